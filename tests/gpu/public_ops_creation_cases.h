// PublicOps cases (public_ops_test.cpp) for the creators: Zeros, Ones, Full, FromVector and the
// random ones (uniform values must agree exactly; normal ones within tolerance).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "tests/gpu/gpu_test_util.h"
#include "tests/gpu/public_ops_case.h"

namespace ember::gpu::public_ops {

// --- The cases ---------------------------------------------------------------------------------

inline void AddCreation(std::vector<OpCase>& cases) {
  for (DType dtype : kAll) {
    cases.push_back({"Creation_" + Name(dtype),
                     [dtype](Device dev, HostData& data) {
                       Outputs out;
                       out.push_back(Read(Make(data.Uniform(kN, -3e4f, 3e4f), kShape, dtype, dev),
                                          "from_floats"));
                       out.push_back(Read(Tensor::Zeros(kShape, dtype, dev), "zeros"));
                       out.push_back(Read(Tensor::Ones({5, 3}, dtype, dev), "ones"));
                       const double v = IsFloat(dtype) ? -3.75 : dtype == DType::kBool ? 1 : -3;
                       out.push_back(Read(Tensor::Full(kShape, v, dtype, dev), "full"));
                       out.push_back(Read(Tensor::Full({}, IsFloat(dtype) ? 2.5 : 1, dtype, dev),
                                          "full_rank0"));
                       return out;
                     },
                     0});
  }
  cases.push_back(
      {"Creation_typed",
       [](Device dev, HostData& data) {
         Outputs out;
         out.push_back(
             Read(Tensor::FromVector<float>(data.Uniform(kN, -1, 1), kShape, dev), "float"));
         const std::vector<int64_t> i64 = data.Ints(kN, -5'000'000'000, 5'000'000'000);
         out.push_back(Read(Tensor::FromVector<int64_t>(i64, kShape, dev), "int64"));
         const std::vector<int64_t> i32 = data.Ints(kN, std::numeric_limits<int32_t>::min(),
                                                    std::numeric_limits<int32_t>::max());
         out.push_back(Read(
             Tensor::FromVector<int32_t>(std::vector<int32_t>(i32.begin(), i32.end()), kShape, dev),
             "int32"));
         const std::vector<bool> b = data.Bools(kN);
         out.push_back(Read(Tensor::FromVector<bool>(std::vector<bool>(b), kShape, dev), "bool"));
         return out;
       },
       0});
}

inline void AddRandom(std::vector<OpCase>& cases) {
  for (DType dtype : kFloats) {
    // Uniform: the same bits on every device for one seed (docs/API.md, ember::Seed).
    cases.push_back(
        {"RandomUniform_" + Name(dtype),
         [dtype](Device dev, HostData&) {
           Seed(dev, InputSeed());
           Tensor a = Tensor::RandomUniform(kShape, dtype, dev, -2.0, 3.0);
           Tensor b = Tensor::RandomUniform({1000}, dtype, dev);  // the next draws
           Seed(dev, InputSeed() + 1);
           Tensor c = Tensor::RandomUniform({33, 65}, dtype, dev, 5.0, 5.5);
           return Outputs{Read(a, "uniform"), Read(b, "uniform_next"), Read(c, "reseeded")};
         },
         0});
    // Normal: Box-Muller in double on both; the GPU's log/sqrt/cos may differ in the last bit.
    cases.push_back({"RandomNormal_" + Name(dtype), [dtype](Device dev, HostData&) {
                       Seed(dev, InputSeed());
                       Tensor a = Tensor::RandomNormal(kShape, dtype, dev, 0.5, 2.0);
                       Tensor b = Tensor::RandomNormal({999}, dtype, dev);  // odd: a lone pair half
                       return Outputs{Read(a, "normal"), Read(b, "normal_next")};
                     }});
  }
}

}  // namespace ember::gpu::public_ops

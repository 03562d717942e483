// What public_ops_test.cpp runs: a case (OpCase: a name, a run that builds its inputs on a device
// from host data drawn alike for both, and a tolerance scale), the dtype lists and the shape the
// cases use, and the inputs they draw. The cases themselves: public_ops_*_cases.h.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "tests/gpu/gpu_test_util.h"

namespace ember::gpu::public_ops {

using Outputs = std::vector<ProgramOutput>;

struct OpCase {
  std::string name;
  // Builds the inputs on `device` from `data` (drawn alike for both devices), runs the ops,
  // and reads every result back.
  std::function<Outputs(Device device, HostData& data)> run;
  // Multiplies the tolerances of Note [GPU tolerances]; 0: the bits must be equal.
  double tolerance_scale = 1.0;
};

// gtest prints a parameter in test listings (and CTest's test names): the case's name.
inline void PrintTo(const OpCase& c, std::ostream* os) { *os << c.name; }

// A stable salt from the case's name, so each case draws its own inputs.
inline uint64_t Salt(const std::string& name) {
  uint64_t h = 1469598103934665603ull;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

inline constexpr DType kFloats[] = {DType::kF32, DType::kF16, DType::kBF16};
inline constexpr DType kNumeric[] = {DType::kF32, DType::kF16, DType::kBF16, DType::kI32,
                                     DType::kI64};
inline constexpr DType kAll[] = {DType::kF32, DType::kF16, DType::kBF16,
                                 DType::kI32, DType::kI64, DType::kBool};

// The rank-3 shape most cases use: odd sizes, so no kernel gets away with whole blocks, and
// more elements than one thread block holds.
inline const std::vector<int64_t> kShape = {7, 66, 257};
inline const size_t kN = static_cast<size_t>(Numel(kShape));

inline std::string Name(DType dtype) { return std::string(DTypeName(dtype)); }

// Values of `dtype` in [lo, hi] on `device`: uniform reals for float dtypes, integers for the
// others (bool: random).
inline Tensor Input(HostData& data, Device device, const std::vector<int64_t>& shape, DType dtype,
                    double lo, double hi) {
  const size_t n = static_cast<size_t>(Numel(shape));
  if (IsFloat(dtype)) {
    return Make(data.Uniform(n, static_cast<float>(lo), static_cast<float>(hi)), shape, dtype,
                device);
  }
  if (dtype == DType::kBool) {
    const std::vector<bool> b = data.Bools(n);
    return Tensor::FromVector<bool>(std::vector<bool>(b), shape, device);
  }
  return MakeInt(data.Ints(n, static_cast<int64_t>(std::ceil(lo)), static_cast<int64_t>(hi)), shape,
                 dtype, device);
}

// Multiples of 1/4 (floats) or integers (ints) in [lo, hi]: ties and equalities happen.
inline Tensor Steps(HostData& data, Device device, const std::vector<int64_t>& shape, DType dtype,
                    int lo, int hi) {
  const size_t n = static_cast<size_t>(Numel(shape));
  if (IsFloat(dtype)) return Make(data.Quarters(n, lo, hi), shape, dtype, device);
  return MakeInt(data.Ints(n, lo, hi), shape, dtype, device);
}

}  // namespace ember::gpu::public_ops

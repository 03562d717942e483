// PublicOps cases (public_ops_test.cpp) for the reductions (every one along every axis of the
// rank-3 shape, and the whole-tensor ones) and matmul.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "tests/gpu/gpu_test_util.h"
#include "tests/gpu/public_ops_case.h"

namespace ember::gpu::public_ops {

// Every reduction along every axis (positive and negative spellings) of the rank-3 shape.
inline void AddReductions(std::vector<OpCase>& cases) {
  for (DType dtype : kNumeric) {
    const bool fl = IsFloat(dtype);
    cases.push_back({"Reduce_" + Name(dtype),
                     [dtype, fl](Device dev, HostData& data) {
                       Tensor x = Input(data, dev, kShape, dtype, fl ? -2 : -500, fl ? 2 : 500);
                       Outputs out;
                       for (int64_t dim : {0, 1, 2, -1, -2, -3}) {
                         const std::string d = std::to_string(dim);
                         out.push_back(Read(x.SumDim(dim), "sum_" + d));
                         out.push_back(Read(x.MeanDim(dim), "mean_" + d));
                       }
                       out.push_back(Read((x + (fl ? 3.0 : 600.0)).Sum(), "sum_all"));
                       out.push_back(Read((x + (fl ? 3.0 : 600.0)).Mean(), "mean_all"));
                       out.push_back(Read(x.SwapDims(0, 2).SumDim(1), "sum_transposed"));
                       return out;
                     },
                     fl ? 1.0 : 0.0});
    cases.push_back({"ReduceProd_" + Name(dtype),
                     [dtype, fl](Device dev, HostData& data) {
                       // Near 1 (floats) or small ints on short axes, so products stay in range.
                       Tensor x = fl ? Input(data, dev, kShape, dtype, 0.95, 1.05)
                                     : Input(data, dev, {7, 6, 5}, dtype, -3, 3);
                       Outputs out;
                       for (int64_t dim : {0, 1, 2, -1}) {
                         out.push_back(Read(x.ProdDim(dim), "prod_" + std::to_string(dim)));
                       }
                       return out;
                     },
                     fl ? 1.0 : 0.0});
    // Selections are exact; quarters and small ints give ties (the first index wins).
    cases.push_back({"ReduceSelect_" + Name(dtype),
                     [dtype](Device dev, HostData& data) {
                       Tensor x = Steps(data, dev, kShape, dtype, -4, 4);
                       Tensor y = Input(data, dev, kShape, dtype, -100, 100);
                       Outputs out;
                       for (int64_t dim : {0, 1, 2, -1, -2, -3}) {
                         const std::string d = std::to_string(dim);
                         out.push_back(Read(x.MaxDim(dim), "max_" + d));
                         out.push_back(Read(x.MinDim(dim), "min_" + d));
                         out.push_back(Read(x.ArgMax(dim), "argmax_ties_" + d));
                         out.push_back(Read(x.ArgMin(dim), "argmin_ties_" + d));
                         out.push_back(Read(y.ArgMax(dim), "argmax_" + d));
                         out.push_back(Read(y.ArgMin(dim), "argmin_" + d));
                       }
                       return out;
                     },
                     0});
  }
  // NaN propagates through MaxDim and MinDim (CpuReduce's NanPropagatesThroughMaxMinAndArgs).
  for (DType dtype : kFloats) {
    cases.push_back({"ReduceNan_" + Name(dtype), [dtype](Device dev, HostData& data) {
                       std::vector<float> v = data.Uniform(kN, -2, 2);
                       for (size_t i = 17; i < v.size(); i += 1301) v[i] = std::nanf("");
                       Tensor x = Make(v, kShape, dtype, dev);
                       Outputs out;
                       for (int64_t dim : {0, 1, 2}) {
                         const std::string d = std::to_string(dim);
                         out.push_back(Read(x.MaxDim(dim), "max_" + d));
                         out.push_back(Read(x.MinDim(dim), "min_" + d));
                         out.push_back(Read(x.ArgMax(dim), "argmax_" + d));
                         out.push_back(Read(x.ArgMin(dim), "argmin_" + d));
                         out.push_back(Read(x.SumDim(dim), "sum_" + d));
                       }
                       out.push_back(Read(x.Sum(), "sum_all"));
                       return out;
                     }});
  }
  // Int Mean truncates; long rows, so a GPU reduction has several rounds.
  for (DType dtype : {DType::kI32, DType::kI64}) {
    cases.push_back({"ReduceLongRows_" + Name(dtype),
                     [dtype](Device dev, HostData& data) {
                       Tensor x = Input(data, dev, {3, 50000}, dtype, -100, 100);
                       return Outputs{Read(x.SumDim(1), "sum"), Read(x.MeanDim(1), "mean"),
                                      Read(x.Mean(), "mean_all"), Read(x.MaxDim(1), "max"),
                                      Read(x.ArgMin(1), "argmin")};
                     },
                     0});
  }
  cases.push_back({"ReduceLongRows_f32", [](Device dev, HostData& data) {
                     Tensor x = Input(data, dev, {3, 50000}, DType::kF32, -1, 3);
                     return Outputs{Read(x.SumDim(1), "sum"), Read(x.MeanDim(1), "mean"),
                                    Read(x.SumDim(0), "sum_columns"), Read(x.Sum(), "sum_all")};
                   }});
}

inline void AddMatmul(std::vector<OpCase>& cases) {
  for (DType dtype : kNumeric) {
    const bool fl = IsFloat(dtype);
    cases.push_back({"Matmul_" + Name(dtype),
                     [dtype, fl](Device dev, HostData& data) {
                       const double r = fl ? 1 : 10;
                       Outputs out;
                       Tensor a = Input(data, dev, {67, 129}, dtype, -r, r);
                       Tensor b = Input(data, dev, {129, 33}, dtype, -r, r);
                       out.push_back(Read(a.Matmul(b), "odd_sizes"));
                       Tensor c = Input(data, dev, {256, 512}, dtype, -r, r);
                       Tensor d = Input(data, dev, {512, 128}, dtype, -r, r);
                       out.push_back(Read(c.Matmul(d), "square_blocks"));
                       // Batch dims broadcast: [2,1,33,65] x [3,65,17] -> [2,3,33,17].
                       Tensor e = Input(data, dev, {2, 1, 33, 65}, dtype, -r, r);
                       Tensor f = Input(data, dev, {3, 65, 17}, dtype, -r, r);
                       out.push_back(Read(e.Matmul(f), "batched_broadcast"));
                       Tensor g = Input(data, dev, {33, 65}, dtype, -r, r);
                       out.push_back(Read(g.Matmul(f), "rank2_times_batch"));
                       // Transposed operands (strided views).
                       out.push_back(Read(b.SwapDims(0, 1).Matmul(a.SwapDims(0, 1)), "transposed"));
                       Tensor v = Input(data, dev, {129, 1}, dtype, -r, r);
                       out.push_back(Read(a.Matmul(v), "matrix_vector"));
                       return out;
                     },
                     fl ? 1.0 : 0.0});
  }
}

}  // namespace ember::gpu::public_ops

// Reductions of the CPU backend: hand-computed values, strided inputs, NaN, dtypes, and a
// float64 reference on random data.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "tests/runtime/cpu/cpu_test_util.h"

namespace ember {
namespace {

using testing::Harness;
using testing::RoundTo;
using testing::TestData;
using V = std::vector<double>;

TEST(CpuReduce, DimReductionsKeepTheAxis) {
  Harness h;
  // [[1, 5, 3], [4, 2, 6]]
  const TensorIr x = h.Input({2, 3}, DType::kF32, {1, 5, 3, 4, 2, 6});
  auto run = [&](OpKind kind, int64_t axis, Shape out, DType dtype = DType::kF32) {
    const TensorIr o = h.Output(out, dtype);
    const V values = h.Run(ir::ReduceDim(kind, x, axis, o));
    EXPECT_EQ(h.Handle(o).shape, out);
    return values;
  };
  EXPECT_EQ(run(OpKind::kSumDim, 0, {1, 3}), (V{5, 7, 9}));
  EXPECT_EQ(run(OpKind::kSumDim, 1, {2, 1}), (V{9, 12}));
  EXPECT_EQ(run(OpKind::kMeanDim, 1, {2, 1}), (V{3, 4}));
  EXPECT_EQ(run(OpKind::kMeanDim, 0, {1, 3}), (V{2.5, 3.5, 4.5}));
  EXPECT_EQ(run(OpKind::kProdDim, 1, {2, 1}), (V{15, 48}));
  EXPECT_EQ(run(OpKind::kMaxDim, 1, {2, 1}), (V{5, 6}));
  EXPECT_EQ(run(OpKind::kMinDim, 0, {1, 3}), (V{1, 2, 3}));
  EXPECT_EQ(run(OpKind::kArgMax, 1, {2, 1}, DType::kI64), (V{1, 2}));
  EXPECT_EQ(run(OpKind::kArgMin, 0, {1, 3}, DType::kI64), (V{0, 1, 0}));
  EXPECT_EQ(run(OpKind::kArgMax, -1, {2, 1}, DType::kI64), (V{1, 2}));
}

TEST(CpuReduce, SumAndMeanOfEverything) {
  Harness h;
  const TensorIr x = h.Input({2, 3}, DType::kF32, {1, 5, 3, 4, 2, 6});
  EXPECT_EQ(h.Run(ir::Reduce(OpKind::kSum, x, h.Output({1}))), (V{21}));
  EXPECT_EQ(h.Run(ir::Reduce(OpKind::kMean, x, h.Output({1}))), (V{3.5}));
  const TensorIr i = h.Input({4}, DType::kI32, {1, 2, 2, 2});
  EXPECT_EQ(h.Run(ir::Reduce(OpKind::kSum, i, h.Output({1}, DType::kI32))), (V{7}));
  EXPECT_EQ(h.Run(ir::Reduce(OpKind::kMean, i, h.Output({1}, DType::kI32))), (V{1}));  // 7/4
  const TensorIr neg = h.Input({2}, DType::kI64, {-3, -4});
  EXPECT_EQ(h.Run(ir::Reduce(OpKind::kMean, neg, h.Output({1}, DType::kI64))), (V{-3}));
}

TEST(CpuReduce, IntegerMeanTruncatesTowardZero) {
  Harness h;
  const TensorIr x = h.Input({2, 2}, DType::kI64, {1, 2, -1, -2});
  EXPECT_EQ(h.Run(ir::ReduceDim(OpKind::kMeanDim, x, 1, h.Output({2, 1}, DType::kI64))),
            (V{1, -1}));
}

TEST(CpuReduce, ArgMaxAndArgMinReturnTheFirstOccurrence) {
  Harness h;
  const TensorIr x = h.Input({2, 4}, DType::kI32, {3, 7, 7, 1, 2, 2, 9, 2});
  EXPECT_EQ(h.Run(ir::ReduceDim(OpKind::kArgMax, x, 1, h.Output({2, 1}, DType::kI64))), (V{1, 2}));
  EXPECT_EQ(h.Run(ir::ReduceDim(OpKind::kArgMin, x, 1, h.Output({2, 1}, DType::kI64))), (V{3, 0}));
}

TEST(CpuReduce, NanPropagatesThroughMaxMinAndArgs) {
  Harness h;
  const double nan = std::nan("");
  const TensorIr x = h.Input({2, 3}, DType::kF32, {1, nan, 3, 4, 5, 6});
  const V max = h.Run(ir::ReduceDim(OpKind::kMaxDim, x, 1, h.Output({2, 1})));
  EXPECT_TRUE(std::isnan(max[0]));
  EXPECT_EQ(max[1], 6);
  const V min = h.Run(ir::ReduceDim(OpKind::kMinDim, x, 1, h.Output({2, 1})));
  EXPECT_TRUE(std::isnan(min[0]));
  EXPECT_EQ(min[1], 4);
  EXPECT_EQ(h.Run(ir::ReduceDim(OpKind::kArgMax, x, 1, h.Output({2, 1}, DType::kI64))), (V{1, 2}));
  EXPECT_EQ(h.Run(ir::ReduceDim(OpKind::kArgMin, x, 1, h.Output({2, 1}, DType::kI64))), (V{1, 0}));
  EXPECT_TRUE(std::isnan(h.Run(ir::Reduce(OpKind::kSum, x, h.Output({1})))[0]));
}

TEST(CpuReduce, StridedAndBroadcastInputs) {
  Harness h;
  // x = [[0,1,2],[3,4,5]]; xt = [[0,3],[1,4],[2,5]].
  const TensorIr x = h.Input({2, 3}, DType::kF32, {0, 1, 2, 3, 4, 5});
  const TensorIr xt = h.Exec(ir::SwapDims(x, 0, 1, h.Output({3, 2})));
  EXPECT_EQ(h.Run(ir::ReduceDim(OpKind::kSumDim, xt, 1, h.Output({3, 1}))), (V{3, 5, 7}));
  EXPECT_EQ(h.Run(ir::ReduceDim(OpKind::kMaxDim, xt, 0, h.Output({1, 2}))), (V{2, 5}));
  EXPECT_EQ(h.Run(ir::Reduce(OpKind::kSum, xt, h.Output({1}))), (V{15}));
  const TensorIr rev =
      h.Exec(ir::SliceOp(x, {Slice{0, std::nullopt, -1}, Slice{0, std::nullopt, -1}},
                         h.Output({2, 3})));  // [[5,4,3],[2,1,0]]
  EXPECT_EQ(h.Run(ir::ReduceDim(OpKind::kArgMax, rev, 1, h.Output({2, 1}, DType::kI64))),
            (V{0, 0}));
  EXPECT_EQ(h.Run(ir::ReduceDim(OpKind::kProdDim, rev, 0, h.Output({1, 3}))), (V{10, 4, 0}));
  const TensorIr row = h.Input({1, 3}, DType::kF32, {1, 2, 3});
  const TensorIr e = h.Exec(ir::Unary(OpKind::kExpand, row, h.Output({4, 3})));
  EXPECT_EQ(h.Run(ir::ReduceDim(OpKind::kSumDim, e, 0, h.Output({1, 3}))), (V{4, 8, 12}));
  EXPECT_EQ(h.Run(ir::Reduce(OpKind::kMean, e, h.Output({1}))), (V{2}));
}

TEST(CpuReduce, EveryNumericDtype) {
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16, DType::kI32, DType::kI64}) {
    Harness h;
    const TensorIr x = h.Input({2, 2}, dtype, {1, -2, 3, 4});
    EXPECT_EQ(h.Run(ir::ReduceDim(OpKind::kSumDim, x, 0, h.Output({1, 2}, dtype))), (V{4, 2}));
    EXPECT_EQ(h.Run(ir::ReduceDim(OpKind::kProdDim, x, 1, h.Output({2, 1}, dtype))), (V{-2, 12}));
    EXPECT_EQ(h.Run(ir::ReduceDim(OpKind::kMinDim, x, 1, h.Output({2, 1}, dtype))), (V{-2, 3}));
    EXPECT_EQ(h.Run(ir::ReduceDim(OpKind::kArgMin, x, 0, h.Output({1, 2}, DType::kI64))),
              (V{0, 0}));
    EXPECT_EQ(h.Run(ir::Reduce(OpKind::kSum, x, h.Output({1}, dtype))), (V{6}));
  }
  Harness h;
  const TensorIr b = h.Input({3}, DType::kBool, {1, 0, 1});
  EXPECT_EQ(h.Run(ir::ReduceDim(OpKind::kArgMax, b, 0, h.Output({1}, DType::kI64))), (V{0}));
}

// Reductions over each axis of a [7, 300, 9] tensor (inner, outer and middle axes exercise
// both loops), against a double reference on the dtype-rounded inputs.
TEST(CpuReduce, MatchesDoubleReferenceOnRandomData) {
  const Shape shape = {7, 300, 9};
  const V data = TestData(7 * 300 * 9, -2, 2, 11);
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
    Harness h;
    const TensorIr x = h.Input(shape, dtype, data);
    V rounded(data.size());
    for (size_t i = 0; i < data.size(); ++i) rounded[i] = RoundTo(data[i], dtype);
    for (int64_t axis = 0; axis < 3; ++axis) {
      Shape out_shape = shape;
      out_shape[axis] = 1;
      const int64_t strides[3] = {300 * 9, 9, 1};
      V sum(NumElements(out_shape), 0.0), mx(NumElements(out_shape), -1e30);
      std::vector<int64_t> arg(NumElements(out_shape), 0);
      for (int64_t i = 0; i < 7; ++i)
        for (int64_t j = 0; j < 300; ++j)
          for (int64_t k = 0; k < 9; ++k) {
            const int64_t idx[3] = {i, j, k};
            const int64_t oi = axis == 0 ? 0 : i, oj = axis == 1 ? 0 : j, ok = axis == 2 ? 0 : k;
            const int64_t o = (oi * out_shape[1] + oj) * out_shape[2] + ok;
            const double v = rounded[i * strides[0] + j * strides[1] + k];
            sum[o] += v;
            if (v > mx[o]) {
              mx[o] = v;
              arg[o] = idx[axis];
            }
          }
      const double tol = dtype == DType::kF32 ? 1e-4 : dtype == DType::kF16 ? 0.25 : 2.0;
      const V got_sum = h.Run(ir::ReduceDim(OpKind::kSumDim, x, axis, h.Output(out_shape, dtype)));
      const V got_mean =
          h.Run(ir::ReduceDim(OpKind::kMeanDim, x, axis, h.Output(out_shape, dtype)));
      const V got_max = h.Run(ir::ReduceDim(OpKind::kMaxDim, x, axis, h.Output(out_shape, dtype)));
      const std::vector<int64_t> got_arg =
          h.RunInts(ir::ReduceDim(OpKind::kArgMax, x, axis, h.Output(out_shape, DType::kI64)));
      for (size_t o = 0; o < sum.size(); ++o) {
        ASSERT_NEAR(got_sum[o], sum[o], tol * std::max(1.0, std::fabs(sum[o]) / 10))
            << DTypeName(dtype) << " axis " << axis;
        ASSERT_NEAR(got_mean[o], sum[o] / shape[axis],
                    tol / 10 + 1e-2 * std::fabs(sum[o] / shape[axis]));
        ASSERT_EQ(got_max[o], mx[o]);
        ASSERT_EQ(got_arg[o], arg[o]);
      }
    }
    const V total = h.Run(ir::Reduce(OpKind::kSum, x, h.Output({1}, DType::kF32)));
    double want = 0;
    for (double v : rounded) want += v;
    EXPECT_NEAR(total[0], want, 1e-3 * std::max(1.0, std::fabs(want)));
  }
}

TEST(CpuReduce, EmptyAxisGivesIdentityOrZero) {
  Harness h;
  const TensorIr x = h.Input({2, 0}, DType::kF32, {});
  EXPECT_EQ(h.Run(ir::ReduceDim(OpKind::kSumDim, x, 1, h.Output({2, 1}))), (V{0, 0}));
  EXPECT_EQ(h.Run(ir::ReduceDim(OpKind::kProdDim, x, 1, h.Output({2, 1}))), (V{1, 1}));
  EXPECT_EQ(h.Run(ir::ReduceDim(OpKind::kMaxDim, x, 1, h.Output({2, 1}))), (V{0, 0}));
  EXPECT_TRUE(std::isnan(h.Run(ir::Reduce(OpKind::kMean, x, h.Output({1})))[0]));
  EXPECT_EQ(h.Run(ir::Reduce(OpKind::kSum, x, h.Output({1}))), (V{0}));
}

}  // namespace
}  // namespace ember

// View kernels (Reshape, SwapDims, Permute, Expand, Slice): values and zero-copy aliasing.
#include <cstdint>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "tests/runtime/cpu/cpu_test_util.h"

namespace ember {
namespace {

using testing::Harness;
using V = std::vector<double>;

// 0, 1, ..., n-1.
V Iota(int n) {
  V v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

TEST(CpuViews, ReshapeOfContiguousInputIsZeroCopy) {
  Harness h;
  const TensorIr x = h.Input({2, 3}, DType::kF32, Iota(6));
  const TensorIr r = h.Exec(ir::Unary(OpKind::kReshape, x, h.Output({3, 1, 2})));
  EXPECT_EQ(h.Values(r), Iota(6));
  EXPECT_EQ(h.Handle(r).buffer, h.Handle(x).buffer);
  EXPECT_EQ(h.Handle(r).shape, (Shape{3, 1, 2}));
}

TEST(CpuViews, ReshapeOfStridedInputCopiesInLogicalOrder) {
  Harness h;
  const TensorIr x = h.Input({2, 3}, DType::kI32, Iota(6));
  const TensorIr xt = h.Exec(ir::SwapDims(x, 0, 1, h.Output({3, 2}, DType::kI32)));
  const TensorIr r = h.Exec(ir::Unary(OpKind::kReshape, xt, h.Output({6}, DType::kI32)));
  EXPECT_EQ(h.Values(r), (V{0, 3, 1, 4, 2, 5}));
  EXPECT_NE(h.Handle(r).buffer, h.Handle(x).buffer);
  EXPECT_TRUE(h.Handle(r).IsContiguous());
}

TEST(CpuViews, SwapDimsAndPermuteAreZeroCopy) {
  Harness h;
  const TensorIr x = h.Input({2, 3, 4}, DType::kF16, Iota(24));
  const TensorIr s = h.Exec(ir::SwapDims(x, 0, 2, h.Output({4, 3, 2}, DType::kF16)));
  EXPECT_EQ(h.Handle(s).buffer, h.Handle(x).buffer);
  const V sv = h.Values(s);
  const V xv = Iota(24);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k) ASSERT_EQ(sv[(i * 3 + j) * 2 + k], xv[(k * 3 + j) * 4 + i]);
  const TensorIr p = h.Exec(ir::Permute(x, {1, 2, 0}, h.Output({3, 4, 2}, DType::kF16)));
  EXPECT_EQ(h.Handle(p).buffer, h.Handle(x).buffer);
  const V pv = h.Values(p);
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 2; ++i) ASSERT_EQ(pv[(j * 4 + k) * 2 + i], xv[(i * 3 + j) * 4 + k]);
  // Negative dims count from the end.
  const TensorIr n = h.Exec(ir::SwapDims(x, -1, -3, h.Output({4, 3, 2}, DType::kF16)));
  EXPECT_EQ(h.Values(n), sv);
}

TEST(CpuViews, ExpandRepeatsWithStrideZero) {
  Harness h;
  const TensorIr x = h.Input({2, 1}, DType::kBool, {1, 0});
  const TensorIr e = h.Exec(ir::Unary(OpKind::kExpand, x, h.Output({3, 2, 2}, DType::kBool)));
  EXPECT_EQ(h.Handle(e).buffer, h.Handle(x).buffer);
  EXPECT_EQ(h.Handle(e).strides, (Shape{0, 1, 0}));
  EXPECT_EQ(h.Values(e), (V{1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0}));
}

TEST(CpuViews, SliceWithPositiveNegativeAndClampedBounds) {
  Harness h;
  const TensorIr x = h.Input({3, 4}, DType::kI64, Iota(12));
  auto slice = [&](std::vector<Slice> ranges, Shape out_shape) {
    const TensorIr s = h.Exec(ir::SliceOp(x, ranges, h.Output(out_shape, DType::kI64)));
    EXPECT_EQ(h.Handle(s).buffer, h.Handle(x).buffer);  // always a view
    return h.Values(s);
  };
  EXPECT_EQ(slice({Slice{1, 3, 1}}, {2, 4}), (V{4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(slice({Slice{0, std::nullopt, 2}, Slice{1, 3, 1}}, {2, 2}), (V{1, 2, 9, 10}));
  EXPECT_EQ(slice({Slice{-1, std::nullopt, 1}, Slice{-3, -1, 1}}, {1, 2}), (V{9, 10}));
  EXPECT_EQ(slice({Slice{-10, 10, 1}, Slice{2, 100, 1}}, {3, 2}), (V{2, 3, 6, 7, 10, 11}));
  EXPECT_EQ(slice({Slice{2, 1, 1}}, {0, 4}), V{});  // empty range
}

TEST(CpuViews, NegativeStepWalksTheRangeBackwardsFromItsLastElement) {
  Harness h;
  const TensorIr x = h.Input({6}, DType::kF32, Iota(6));
  auto slice = [&](Slice s, int64_t n) { return h.Run(ir::SliceOp(x, {s}, h.Output({n}))); };
  EXPECT_EQ(slice(Slice{0, std::nullopt, -1}, 6), (V{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(slice(Slice{0, std::nullopt, -2}, 3), (V{5, 3, 1}));
  EXPECT_EQ(slice(Slice{0, 5, -2}, 3), (V{4, 2, 0}));
  EXPECT_EQ(slice(Slice{1, 4, -1}, 3), (V{3, 2, 1}));
  EXPECT_EQ(slice(Slice{-3, std::nullopt, -3}, 1), (V{5}));
  // A reversed 2-D view, read back and sliced again.
  const TensorIr m = h.Input({2, 3}, DType::kF32, Iota(6));
  const TensorIr r = h.Exec(
      ir::SliceOp(m, {Slice{0, std::nullopt, -1}, Slice{0, std::nullopt, -1}}, h.Output({2, 3})));
  EXPECT_EQ(h.Values(r), (V{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(h.Run(ir::SliceOp(r, {Slice{0, 1, 1}, Slice{0, std::nullopt, -2}}, h.Output({1, 2}))),
            (V{3, 5}));
}

// A step longer than the dim (up to INT64_MAX and INT64_MIN) takes the range's first element (or,
// backwards, its last): no overflow in the length or the stride.
TEST(CpuViews, HugeStepsTakeOneElementWithoutOverflow) {
  Harness h;
  const TensorIr x = h.Input({6}, DType::kF32, Iota(6));
  auto slice = [&](Slice s) { return h.Run(ir::SliceOp(x, {s}, h.Output({1}))); };
  EXPECT_EQ(slice(Slice{1, std::nullopt, INT64_MAX}), V{1});
  EXPECT_EQ(slice(Slice{0, std::nullopt, 7}), V{0});
  EXPECT_EQ(slice(Slice{0, 4, INT64_MIN}), V{3});
  EXPECT_EQ(slice(Slice{0, std::nullopt, -INT64_MAX}), V{5});
}

TEST(CpuViews, ViewsOfViewsCompose) {
  Harness h;
  const TensorIr x = h.Input({4, 5}, DType::kF32, Iota(20));
  const TensorIr s = h.Exec(ir::SliceOp(x, {Slice{1, 4, 2}, Slice{0, 5, 2}}, h.Output({2, 3})));
  const TensorIr t = h.Exec(ir::SwapDims(s, 0, 1, h.Output({3, 2})));
  const TensorIr e = h.Exec(ir::Unary(OpKind::kExpand, t, h.Output({2, 3, 2})));
  EXPECT_EQ(h.Values(e), (V{5, 15, 7, 17, 9, 19, 5, 15, 7, 17, 9, 19}));
  EXPECT_EQ(h.Handle(e).buffer, h.Handle(x).buffer);
  const TensorIr r = h.Exec(ir::Unary(OpKind::kReshape, e, h.Output({12})));
  EXPECT_EQ(h.Values(r), h.Values(e));
}

}  // namespace
}  // namespace ember

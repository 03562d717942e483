// Cat, Gather and Select of the CPU backend.
#include <vector>

#include <gtest/gtest.h>

#include "tests/runtime/cpu/cpu_test_util.h"

namespace ember {
namespace {

using testing::Harness;
using V = std::vector<double>;

TEST(CpuMovement, CatAlongEachDim) {
  Harness h;
  const TensorIr a = h.Input({2, 2}, DType::kF32, {1, 2, 3, 4});
  const TensorIr b = h.Input({1, 2}, DType::kF32, {5, 6});
  EXPECT_EQ(h.Run(ir::Cat({a, b}, 0, h.Output({3, 2}))), (V{1, 2, 3, 4, 5, 6}));
  const TensorIr c = h.Input({2, 3}, DType::kF32, {7, 8, 9, 10, 11, 12});
  EXPECT_EQ(h.Run(ir::Cat({a, c, a}, 1, h.Output({2, 7}))),
            (V{1, 2, 7, 8, 9, 1, 2, 3, 4, 10, 11, 12, 3, 4}));
  EXPECT_EQ(h.Run(ir::Cat({a, c}, -1, h.Output({2, 5}))), (V{1, 2, 7, 8, 9, 3, 4, 10, 11, 12}));
}

TEST(CpuMovement, CatOfStridedInputsInEveryDtype) {
  for (DType dtype :
       {DType::kF32, DType::kF16, DType::kBF16, DType::kI32, DType::kI64, DType::kBool}) {
    Harness h;
    const TensorIr a = h.Input({2, 2}, dtype, {1, 0, 0, 1});
    const TensorIr at = h.Exec(ir::SwapDims(a, 0, 1, h.Output({2, 2}, dtype)));
    const TensorIr b = h.Input({1}, dtype, {1});
    const TensorIr be = h.Exec(ir::Unary(OpKind::kExpand, b, h.Output({2, 1}, dtype)));
    EXPECT_EQ(h.Run(ir::Cat({at, be}, 1, h.Output({2, 3}, dtype))), (V{1, 0, 1, 0, 1, 1}))
        << DTypeName(dtype);
  }
}

TEST(CpuMovement, CatSkipsEmptyInputs) {
  Harness h;
  const TensorIr a = h.Input({2, 0}, DType::kF32, {});
  const TensorIr b = h.Input({2, 2}, DType::kF32, {1, 2, 3, 4});
  EXPECT_EQ(h.Run(ir::Cat({a, b, a}, 1, h.Output({2, 2}))), (V{1, 2, 3, 4}));
  const TensorIr e = h.Input({0, 2}, DType::kF32, {});
  EXPECT_EQ(h.Run(ir::Cat({e, b}, 0, h.Output({2, 2}))), (V{1, 2, 3, 4}));
}

TEST(CpuMovement, GatherAlongDims) {
  Harness h;
  const TensorIr t = h.Input({2, 3}, DType::kF32, {1, 2, 3, 4, 5, 6});
  const TensorIr i1 = h.Input({2, 2}, DType::kI64, {2, 0, 1, 1});
  EXPECT_EQ(h.Run(ir::Indexed(OpKind::kGather, t, 1, i1, h.Output({2, 2}))), (V{3, 1, 5, 5}));
  const TensorIr i0 = h.Input({1, 3}, DType::kI32, {1, 0, 1});
  EXPECT_EQ(h.Run(ir::Indexed(OpKind::kGather, t, 0, i0, h.Output({1, 3}))), (V{4, 2, 6}));
}

TEST(CpuMovement, GatherFromAStridedTensor) {
  Harness h;
  const TensorIr t = h.Input({3, 2}, DType::kI64, {1, 2, 3, 4, 5, 6});
  const TensorIr tt = h.Exec(ir::SwapDims(t, 0, 1, h.Output({2, 3}, DType::kI64)));  // 1 3 5/2 4 6
  const TensorIr idx = h.Input({2, 3}, DType::kI64, {2, 1, 0, 0, 0, 2});
  EXPECT_EQ(h.Run(ir::Indexed(OpKind::kGather, tt, 1, idx, h.Output({2, 3}, DType::kI64))),
            (V{5, 3, 1, 2, 2, 6}));
}

TEST(CpuMovement, OutOfRangeIndicesYieldZeroInsteadOfCrashing) {
  Harness h;
  const TensorIr t = h.Input({2, 3}, DType::kF32, {1, 2, 3, 4, 5, 6});
  const TensorIr bad = h.Input({2, 2}, DType::kI64, {3, -1, 2, 1000000});
  EXPECT_EQ(h.Run(ir::Indexed(OpKind::kGather, t, 1, bad, h.Output({2, 2}))), (V{0, 0, 6, 0}));
  const TensorIr sel = h.Input({3}, DType::kI32, {1, 7, -2});
  EXPECT_EQ(h.Run(ir::Indexed(OpKind::kSelect, t, 0, sel, h.Output({3, 3}))),
            (V{4, 5, 6, 0, 0, 0, 0, 0, 0}));
}

TEST(CpuMovement, EmptyIndicesGiveEmptyOutputs) {
  Harness h;
  const TensorIr t = h.Input({2, 3}, DType::kF32, {1, 2, 3, 4, 5, 6});
  const TensorIr none = h.Input({0}, DType::kI64, {});
  EXPECT_TRUE(h.Run(ir::Indexed(OpKind::kSelect, t, 1, none, h.Output({2, 0}))).empty());
  const TensorIr empty = h.Input({2, 0}, DType::kI64, {});
  EXPECT_TRUE(h.Run(ir::Indexed(OpKind::kGather, t, 1, empty, h.Output({2, 0}))).empty());
}

TEST(CpuMovement, SelectAlongDims) {
  Harness h;
  const TensorIr t = h.Input({2, 3}, DType::kBF16, {1, 2, 3, 4, 5, 6});
  const TensorIr rows = h.Input({3}, DType::kI64, {1, 1, 0});
  EXPECT_EQ(h.Run(ir::Indexed(OpKind::kSelect, t, 0, rows, h.Output({3, 3}, DType::kBF16))),
            (V{4, 5, 6, 4, 5, 6, 1, 2, 3}));
  const TensorIr cols = h.Input({2}, DType::kI32, {2, 0});
  EXPECT_EQ(h.Run(ir::Indexed(OpKind::kSelect, t, 1, cols, h.Output({2, 2}, DType::kBF16))),
            (V{3, 1, 6, 4}));
  // Indices from a strided (reversed) view.
  const TensorIr idx = h.Input({3}, DType::kI64, {0, 1, 2});
  const TensorIr rev =
      h.Exec(ir::SliceOp(idx, {Slice{0, std::nullopt, -1}}, h.Output({3}, DType::kI64)));
  EXPECT_EQ(h.Run(ir::Indexed(OpKind::kSelect, t, 1, rev, h.Output({2, 3}, DType::kBF16))),
            (V{3, 2, 1, 6, 5, 4}));
}

}  // namespace
}  // namespace ember

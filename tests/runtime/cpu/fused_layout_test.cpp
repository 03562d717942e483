// How fused elementwise traces address memory on the CPU backend: broadcast, strided, permuted
// and sliced inputs, reshape and swap-dims views, outputs with size-1 dims, re-read outputs,
// odd and empty sizes, and 1 vs 2 threads, compared byte for byte with unfused ops.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/runtime/fused_test_util.h"

namespace ember::testing {
namespace {

// out0 = (in0 + in1) * in2, every tensor f32.
FuseTrace AddMulTrace() {
  FuseTrace trace;
  trace.blocks.push_back({.reads = {Assign(Local(0), InArg(0)), Assign(Local(1), InArg(1)),
                                    Assign(Local(2), InArg(2))},
                          .ops = {Op(FuseOpKind::kAdd, Local(3), Local(0), Local(1)),
                                  Op(FuseOpKind::kMul, Local(4), Local(3), Local(2))},
                          .writes = {Assign(OutArg(0), Local(4))}});
  trace.resources = Resources(3, 1);
  return trace;
}

void ExpectAddMulMatches(Harness& h, TensorIr a, TensorIr b, TensorIr c, const Shape& shape,
                         const char* what) {
  const TensorIr sum = h.Exec(ir::Binary(OpKind::kAdd, a, b, h.Output(shape)));
  const TensorIr unfused = h.Exec(ir::Binary(OpKind::kMul, sum, c, h.Output(shape)));
  const FuseTrace trace = AddMulTrace();
  const auto fused = RunFused(h, trace, {a, b, c}, {OutIr(shape)}, {shape});
  ExpectSameBytes(h.backend(), fused[0], h.Handle(unfused), what);
}

TEST(FusedLayout, BroadcastRowColumnAndLowerRankInputs) {
  Harness h(2);
  const Shape shape = {67, 129};
  const TensorIr x = h.Input(shape, DType::kF32, AwkwardData(67 * 129, -3, 3, 1));
  const TensorIr bias = h.Input({1, 129}, DType::kF32, TestData(129, -1, 1, 2));
  const TensorIr column = h.Input({67, 1}, DType::kF32, TestData(67, -1, 1, 3));
  const TensorIr row = h.Input({129}, DType::kF32, TestData(129, -1, 1, 4));
  ExpectAddMulMatches(h, x, bias, column, shape, "bias and column");
  ExpectAddMulMatches(h, column, row, x, shape, "column and row");
}

TEST(FusedLayout, StridedPermutedSlicedAndExpandedInputs) {
  Harness h(2);
  const TensorIr a = h.Input({129, 67}, DType::kF32, TestData(129 * 67, -3, 3, 5));
  const TensorIr big = h.Input({134, 260}, DType::kF16, TestData(134 * 260, -3, 3, 6));
  const TensorIr row = h.Input({1, 129}, DType::kF32, TestData(129, -3, 3, 7));
  const Shape shape = {67, 129};
  const TensorIr transposed = h.Exec(ir::SwapDims(a, 0, 1, h.Output(shape)));
  const TensorIr sliced =
      h.Exec(ir::SliceOp(big, {Slice{1, 134, -2}, Slice{1, 259, 2}}, h.Output(shape, DType::kF16)));
  const TensorIr expanded = h.Exec(ir::Unary(OpKind::kExpand, row, h.Output(shape)));
  ASSERT_FALSE(h.Handle(transposed).IsContiguous());
  ASSERT_FALSE(h.Handle(sliced).IsContiguous());
  // Mixed dtypes: the f16 slice is read into f32 by the Add of an f32 lhs.
  const TensorIr sum = h.Exec(ir::Binary(OpKind::kAdd, transposed, sliced, h.Output(shape)));
  const TensorIr unfused = h.Exec(ir::Binary(OpKind::kMul, sum, expanded, h.Output(shape)));
  FuseTrace trace = AddMulTrace();
  trace.blocks[0].reads[1] = Assign(Local(1, DType::kF16), InArg(1, DType::kF16));
  trace.blocks[0].ops[0].args[1] = Local(1, DType::kF16);
  const auto fused = RunFused(h, trace, {transposed, sliced, expanded}, {OutIr(shape)}, {shape});
  ExpectSameBytes(h.backend(), fused[0], h.Handle(unfused));
}

// Input 0 through a reshape, input 1 through swap_dims(0, 1); a reshape of a strided original
// indexes it in logical row-major order.
TEST(FusedLayout, ReshapeAndSwapDimsViews) {
  Harness h(2);
  const Shape shape = {40, 45};
  const TensorIr a = h.Input({30, 60}, DType::kF32, TestData(1800, -3, 3, 8));
  const TensorIr b = h.Input({45, 40}, DType::kBF16, TestData(1800, -3, 3, 9));
  const TensorIr c = h.Exec(ir::SwapDims(h.Input({60, 30}, DType::kF32, TestData(1800, -3, 3, 10)),
                                         0, 1, h.Output({30, 60})));
  FuseTrace trace;
  trace.blocks.push_back({.reads = {Assign(Local(0), ViewArg(0)),
                                    Assign(Local(1, DType::kBF16), ViewArg(1, DType::kBF16)),
                                    Assign(Local(2), ViewArg(2))},
                          .ops = {Op(FuseOpKind::kMul, Local(3), Local(0), Local(1, DType::kBF16)),
                                  Op(FuseOpKind::kSub, Local(4), Local(3), Local(2))},
                          .writes = {Assign(OutArg(0), Local(4))}});
  trace.resources =
      Resources(3, 1, {},
                {{.kind = FuseView::Kind::kReshape, .input = 0},
                 {.kind = FuseView::Kind::kSwapDims, .input = 1, .dim1 = 0, .dim2 = 1},
                 {.kind = FuseView::Kind::kReshape, .input = 2}});
  const auto fused =
      RunFused(h, trace, {a, b, c}, {OutIr(shape)}, {shape}, {}, {shape, shape, shape});
  const TensorIr ra = h.Exec(ir::Unary(OpKind::kReshape, a, h.Output(shape)));
  const TensorIr sb = h.Exec(ir::SwapDims(b, 0, 1, h.Output(shape, DType::kBF16)));
  const TensorIr rc = h.Exec(ir::Unary(OpKind::kReshape, c, h.Output(shape)));
  const TensorIr product = h.Exec(ir::Binary(OpKind::kMul, ra, sb, h.Output(shape)));
  const TensorIr unfused = h.Exec(ir::Binary(OpKind::kSub, product, rc, h.Output(shape)));
  ExpectSameBytes(h.backend(), fused[0], h.Handle(unfused));
}

// Outputs of shape [1, n] and [m, 1] under a [m, n] block: every position mapping to an
// element computes the same value, which is what the unfused op computes at [1, n] / [m, 1].
TEST(FusedLayout, OutputsWithSizeOneDims) {
  for (int threads : {1, 2}) {
    Harness h(threads);
    const Shape shape = {300, 257};
    const TensorIr x = h.Input(shape, DType::kF32, TestData(300 * 257, -3, 3, 11));
    const TensorIr bias = h.Input({1, 257}, DType::kF32, TestData(257, -3, 3, 12));
    const TensorIr column = h.Input({300, 1}, DType::kF16, TestData(300, -3, 3, 13));
    FuseTrace trace;
    trace.blocks.push_back(
        {.reads = {Assign(Local(0), InArg(0)), Assign(Local(1), InArg(1)),
                   Assign(Local(2, DType::kF16), InArg(2, DType::kF16))},
         .ops = {Op(FuseOpKind::kExp, Local(3), Local(1)),
                 Op(FuseOpKind::kAdd, Local(4), Local(0), Local(3)),
                 Op(FuseOpKind::kTanh, Local(5, DType::kF16), Local(2, DType::kF16))},
         .writes = {Assign(OutArg(0), Local(3)), Assign(OutArg(1), Local(4)),
                    Assign(OutArg(2, DType::kF16), Local(5, DType::kF16))}});
    trace.resources = Resources(3, 3);
    const auto fused =
        RunFused(h, trace, {x, bias, column},
                 {OutIr({1, 257}), OutIr(shape), OutIr({300, 1}, DType::kF16)}, {shape});
    const TensorIr e = h.Exec(ir::Unary(OpKind::kExp, bias, h.Output({1, 257})));
    const TensorIr sum = h.Exec(ir::Binary(OpKind::kAdd, x, e, h.Output(shape)));
    const TensorIr t = h.Exec(ir::Unary(OpKind::kTanh, column, h.Output({300, 1}, DType::kF16)));
    ExpectSameBytes(h.backend(), fused[0], h.Handle(e), "[1, n]");
    ExpectSameBytes(h.backend(), fused[1], h.Handle(sum), "[m, n]");
    ExpectSameBytes(h.backend(), fused[2], h.Handle(t), "[m, 1]");
  }
}

// A later block reads an output an earlier block wrote (kOutput as a read).
TEST(FusedLayout, LaterBlockRereadsAnOutput) {
  Harness h(2);
  const Shape shape = {3, 50001};
  const TensorIr x = h.Input(shape, DType::kF32, TestData(3 * 50001, -3, 3, 14));
  FuseTrace trace;
  trace.blocks.push_back({.reads = {Assign(Local(0), InArg(0))},
                          .ops = {Op(FuseOpKind::kSin, Local(1), Local(0))},
                          .writes = {Assign(OutArg(0, DType::kF16), Local(1))}});
  trace.blocks.push_back({.reads = {Assign(Local(0, DType::kF16), OutArg(0, DType::kF16))},
                          .ops = {Op(FuseOpKind::kMul, Local(1, DType::kF16), Local(0, DType::kF16),
                                     Local(0, DType::kF16))},
                          .writes = {Assign(OutArg(1, DType::kF16), Local(1, DType::kF16))}});
  trace.resources = Resources(1, 2);
  const auto fused = RunFused(h, trace, {x}, {OutIr(shape, DType::kF16), OutIr(shape, DType::kF16)},
                              {shape, shape});
  const TensorIr s = h.Exec(ir::Unary(OpKind::kSin, x, h.Output(shape, DType::kF16)));
  const TensorIr sq = h.Exec(ir::Binary(OpKind::kMul, s, s, h.Output(shape, DType::kF16)));
  ExpectSameBytes(h.backend(), fused[0], h.Handle(s), "written");
  ExpectSameBytes(h.backend(), fused[1], h.Handle(sq), "re-read");
}

// Sizes around the tile (1024) and the parallel grain (32768), on 1 and 2 threads.
TEST(FusedLayout, OddSizesOnOneAndTwoThreads) {
  for (const Shape& shape :
       std::vector<Shape>{{}, {1}, {7}, {1023}, {1025}, {3, 1367}, {32769}, {7, 10001}}) {
    std::vector<std::vector<std::byte>> results;
    for (int threads : {1, 2}) {
      Harness h(threads);
      const int64_t n = NumElements(shape);
      const TensorIr a = h.Input(shape, DType::kF32, AwkwardData(n, -3, 3, 15));
      const TensorIr b = h.Input(shape, DType::kF32, AwkwardData(n, -3, 3, 16));
      const TensorIr c = h.Input(shape, DType::kF32, AwkwardData(n, -3, 3, 17));
      ExpectAddMulMatches(h, a, b, c, shape, ("shape of " + std::to_string(n)).c_str());
      const FuseTrace trace = AddMulTrace();
      results.push_back(
          ReadBytes(h.backend(), RunFused(h, trace, {a, b, c}, {OutIr(shape)}, {shape})[0]));
    }
    EXPECT_EQ(results[0], results[1]);
  }
}

TEST(FusedLayout, EmptyTensors) {
  for (const Shape& shape : std::vector<Shape>{{0}, {0, 5}, {4, 0, 3}}) {
    Harness h(2);
    const TensorIr a = h.Input(shape, DType::kF32, {});
    const TensorIr b = h.Input(shape, DType::kF32, {});
    const TensorIr c = h.Input(shape, DType::kF32, {});
    const FuseTrace trace = AddMulTrace();
    const auto fused = RunFused(h, trace, {a, b, c}, {OutIr(shape)}, {shape});
    EXPECT_EQ(fused[0].shape, shape);
    EXPECT_EQ(fused[0].NumElements(), 0);
  }
}

}  // namespace
}  // namespace ember::testing

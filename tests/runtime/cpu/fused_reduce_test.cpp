// Fused traces with reduce stages on the CPU backend (Reduce and ReduceBroadcasted shapes):
// fuse-on-read and fuse-on-write around each reduce kind, on the last, a middle and the first
// axis, a softmax chain of five blocks, and outputs re-read across blocks; each compared byte
// for byte with the unfused ops, on 1 and 2 threads.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/runtime/cpu/fused_plan.h"
#include "tests/runtime/fused_test_util.h"

namespace ember::testing {
namespace {

struct ReduceKind {
  ReduceStage::Kind stage;
  OpKind unfused;
  bool arg;  // the result is an index (i64)
};

constexpr ReduceKind kKinds[] = {
    {ReduceStage::Kind::kSum, OpKind::kSumDim, false},
    {ReduceStage::Kind::kMean, OpKind::kMeanDim, false},
    {ReduceStage::Kind::kProd, OpKind::kProdDim, false},
    {ReduceStage::Kind::kMax, OpKind::kMaxDim, false},
    {ReduceStage::Kind::kMin, OpKind::kMinDim, false},
    {ReduceStage::Kind::kArgMax, OpKind::kArgMax, true},
    {ReduceStage::Kind::kArgMin, OpKind::kArgMin, true},
};

Shape Reduced(Shape shape, int64_t axis) {
  shape[axis] = 1;
  return shape;
}

// out0 = g(reduce(f(x), axis)): f = x * x - 0.5 in `dtype` (fuse-on-read), g = result + 1 in
// the result's dtype (fuse-on-write). Unfused: the same four ops.
void ExpectReduceMatches(Harness& h, const ReduceKind& kind, DType dtype, const Shape& shape,
                         int64_t axis, const std::string& what) {
  const int64_t n = NumElements(shape);
  const bool is_float = IsFloat(dtype);
  const double range = is_float ? 1.2 : 20;
  const TensorIr x = h.Input(shape, dtype, AwkwardData(n, -range, range, 3, false));
  const Shape reduced = Reduced(shape, axis);
  const DType out = kind.arg ? DType::kI64 : dtype;
  const ScalarIr half = is_float ? ScalarIr::Float(0.5) : ScalarIr::Int(1);

  const TensorIr sq = h.Exec(ir::Binary(OpKind::kMul, x, x, h.Output(shape, dtype)));
  const TensorIr f = h.Exec(ir::Scalar(OpKind::kSubScalar, sq, half, h.Output(shape, dtype)));
  const TensorIr r = h.Exec(ir::ReduceDim(kind.unfused, f, axis, h.Output(reduced, out)));
  const TensorIr g =
      h.Exec(ir::Scalar(OpKind::kAddScalar, r, ScalarIr::Int(1), h.Output(reduced, out)));

  FuseTrace trace;
  trace.blocks.push_back(
      {.reads = {Assign(Local(0, dtype), InArg(0, dtype))},
       .ops = {Op(FuseOpKind::kMul, Local(1, dtype), Local(0, dtype), Local(0, dtype)),
               Op(FuseOpKind::kSub, Local(2, dtype), Local(1, dtype), ScalarArg(0, dtype))},
       .writes = {Assign(Handed(0, 0, dtype), Local(2, dtype))}});
  trace.blocks.push_back(
      {.ops = {Op(FuseOpKind::kAdd, Local(1, out), Local(0, out), Literal(1, out))},
       .writes = {Assign(OutArg(0, out), Local(1, out))}});
  trace.reduces.push_back({.kind = kind.stage,
                           .from = 0,
                           .axis = axis,
                           .input = Handed(0, 0, dtype),
                           .output = Local(0, out),
                           .acc = out});
  trace.resources = Resources(1, 1, {dtype});
  const auto fused = RunFused(h, trace, {x}, {OutIr(reduced, out)}, {shape, reduced}, {half});
  ExpectSameBytes(h.backend(), fused[0], h.Handle(g), what.c_str());
}

TEST(FusedReduce, EveryKindOnTheLastMiddleAndFirstAxis) {
  struct Case {
    Shape shape;
    int64_t axis;
  };
  const Case cases[] = {{{257, 1031}, 1}, {{13, 301, 17}, 1}, {{301, 40}, 0},    {{3000, 50}, 0},
                        {{5, 7, 3}, -1},  {{40000, 3}, 1},    {{2, 3000, 2}, -2}};
  for (int threads : {1, 2}) {
    for (const Case& c : cases) {
      for (const ReduceKind& kind : kKinds) {
        for (DType dtype : {DType::kF32, DType::kF16, DType::kI32}) {
          Harness h(threads);
          const std::string what = std::string(OpKindName(kind.unfused)) + " " +
                                   std::string(DTypeName(dtype)) + " axis " +
                                   std::to_string(c.axis) + " threads " + std::to_string(threads);
          ExpectReduceMatches(h, kind, dtype, c.shape,
                              c.axis < 0 ? c.axis + c.shape.size() : c.axis, what);
        }
      }
    }
  }
}

// softmax(x) along `axis`: block0 [x] -max-> block1 (row) -> block2 exp(x - max) -sum->
// block3 (row) -> block4 e / sum.
FuseTrace SoftmaxTrace(int64_t axis, DType dtype) {
  FuseTrace t;
  t.blocks.push_back({.reads = {Assign(Local(0, dtype), InArg(0, dtype))},
                      .writes = {Assign(Handed(0, 0, dtype), Local(0, dtype))}});
  t.blocks.push_back({.writes = {Assign(Handed(1, 0, dtype), Local(0, dtype))}});
  t.blocks.push_back(
      {.reads = {Assign(Local(0, dtype), InArg(0, dtype))},
       .ops = {Op(FuseOpKind::kSub, Local(1, dtype), Local(0, dtype), Handed(1, 0, dtype)),
               Op(FuseOpKind::kExp, Local(2, dtype), Local(1, dtype))},
       .writes = {Assign(Handed(2, 0, dtype), Local(2, dtype))}});
  t.blocks.push_back({.writes = {Assign(Handed(3, 0, dtype), Local(0, dtype))}});
  t.blocks.push_back(
      {.ops = {Op(FuseOpKind::kDiv, Local(0, dtype), Handed(2, 0, dtype), Handed(3, 0, dtype))},
       .writes = {Assign(OutArg(0, dtype), Local(0, dtype))}});
  t.reduces.push_back({.kind = ReduceStage::Kind::kMax,
                       .from = 0,
                       .axis = axis,
                       .input = Handed(0, 0, dtype),
                       .output = Local(0, dtype),
                       .acc = dtype});
  t.reduces.push_back({.kind = ReduceStage::Kind::kSum,
                       .from = 2,
                       .axis = axis,
                       .input = Handed(2, 0, dtype),
                       .output = Local(0, dtype),
                       .acc = dtype});
  t.resources = Resources(1, 1);
  return t;
}

TensorIr UnfusedSoftmax(Harness& h, TensorIr x, int64_t axis) {
  const Shape reduced = Reduced(x.shape, axis);
  const TensorIr mx = h.Exec(ir::ReduceDim(OpKind::kMaxDim, x, axis, h.Output(reduced, x.dtype)));
  const TensorIr d = h.Exec(ir::Binary(OpKind::kSub, x, mx, h.Output(x.shape, x.dtype)));
  const TensorIr e = h.Exec(ir::Unary(OpKind::kExp, d, h.Output(x.shape, x.dtype)));
  const TensorIr s = h.Exec(ir::ReduceDim(OpKind::kSumDim, e, axis, h.Output(reduced, x.dtype)));
  return h.Exec(ir::Binary(OpKind::kDiv, e, s, h.Output(x.shape, x.dtype)));
}

TEST(FusedReduce, SoftmaxChainOfFiveBlocks) {
  struct Case {
    Shape shape;
    int64_t axis;
  };
  for (const Case& c : {Case{{1000, 513}, 1}, Case{{7, 1000, 9}, 1}, Case{{3, 5}, 1},
                        Case{{0, 5}, 1}, Case{{4, 0}, 1}}) {
    for (DType dtype : {DType::kF32, DType::kBF16}) {
      for (int threads : {1, 2}) {
        Harness h(threads);
        const TensorIr x =
            h.Input(c.shape, dtype, AwkwardData(NumElements(c.shape), -8, 8, 5, false));
        const TensorIr unfused = UnfusedSoftmax(h, x, c.axis);
        const FuseTrace trace = SoftmaxTrace(c.axis, dtype);
        const Shape reduced = Reduced(c.shape, c.axis);
        const auto fused = RunFused(h, trace, {x}, {OutIr(c.shape, dtype)},
                                    {c.shape, reduced, c.shape, reduced, c.shape});
        ExpectSameBytes(h.backend(), fused[0], h.Handle(unfused),
                        (std::string(DTypeName(dtype)) + " " + std::to_string(c.shape[0])).c_str());
        const FusedLaunch launch = Launch(trace, {h.Handle(x)}, {OutIr(c.shape, dtype)},
                                          {c.shape, reduced, c.shape, reduced, c.shape});
        EXPECT_TRUE(cpu::PlanFused(launch).independent_units);
      }
    }
  }
}

// Outputs written by one block and re-read by a later one: a per-row output [m, 1] (each unit
// re-reads its own rows) and a [1, n] output only row 0 writes (every unit reads it, so the
// units cannot run independently).
TEST(FusedReduce, LaterBlocksRereadOutputs) {
  for (int threads : {1, 2}) {
    Harness h(threads);
    const Shape shape = {500, 300}, row = {500, 1}, col = {1, 300};
    const TensorIr x = h.Input(shape, DType::kF32, AwkwardData(500 * 300, -3, 3, 6, false));
    const TensorIr bias = h.Input(col, DType::kF32, AwkwardData(300, -3, 3, 7, false));
    FuseTrace t;
    t.blocks.push_back({.reads = {Assign(Local(0), InArg(0)), Assign(Local(1), InArg(1))},
                        .ops = {Op(FuseOpKind::kCos, Local(2), Local(1))},
                        .writes = {Assign(Handed(0, 0), Local(0)), Assign(OutArg(0), Local(2))}});
    t.blocks.push_back({.ops = {Op(FuseOpKind::kSqrt, Local(1), Local(0))},
                        .writes = {Assign(OutArg(1), Local(1))}});
    t.blocks.push_back({.reads = {Assign(Local(0), InArg(0)), Assign(Local(1), OutArg(0)),
                                  Assign(Local(2), OutArg(1))},
                        .ops = {Op(FuseOpKind::kMul, Local(3), Local(0), Local(2)),
                                Op(FuseOpKind::kAdd, Local(4), Local(3), Local(1))},
                        .writes = {Assign(OutArg(2), Local(4))}});
    t.reduces.push_back({.kind = ReduceStage::Kind::kMean,
                         .from = 0,
                         .axis = 1,
                         .input = Handed(0, 0),
                         .output = Local(0),
                         .acc = DType::kF32});
    t.resources = Resources(2, 3);
    const auto fused =
        RunFused(h, t, {x, bias}, {OutIr(col), OutIr(row), OutIr(shape)}, {shape, row, shape});
    // Every unit reads the [1, n] output that unit 0 writes: the plan must not run units
    // independently (a race the comparison below would only catch by luck).
    const FusedLaunch launch = Launch(t, {h.Handle(x), h.Handle(bias)},
                                      {OutIr(col), OutIr(row), OutIr(shape)}, {shape, row, shape});
    EXPECT_FALSE(cpu::PlanFused(launch).independent_units);
    const TensorIr c = h.Exec(ir::Unary(OpKind::kCos, bias, h.Output(col)));
    const TensorIr m = h.Exec(ir::ReduceDim(OpKind::kMeanDim, x, 1, h.Output(row)));
    const TensorIr s = h.Exec(ir::Unary(OpKind::kSqrt, m, h.Output(row)));
    const TensorIr p = h.Exec(ir::Binary(OpKind::kMul, x, s, h.Output(shape)));
    const TensorIr o = h.Exec(ir::Binary(OpKind::kAdd, p, c, h.Output(shape)));
    ExpectSameBytes(h.backend(), fused[0], h.Handle(c), "[1, n]");
    ExpectSameBytes(h.backend(), fused[1], h.Handle(s), "[m, 1]");
    ExpectSameBytes(h.backend(), fused[2], h.Handle(o), "[m, n]");
  }
}

}  // namespace
}  // namespace ember::testing

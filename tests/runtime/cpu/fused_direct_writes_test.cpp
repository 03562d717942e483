// Note [Direct writes] (engine/runtime/cpu/fused_program.h): a computed value that is kept in a
// group buffer or stored as it is goes straight there, and an input overwritten in place is
// copied out of the way only when a store reads it raw. The plans are checked for where each
// step writes, and the runs where an early write would clobber a later read (an output over an
// input or over the matmul result) are compared byte for byte with the ops run one by one.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "engine/runtime/cpu/fused_outputs.h"
#include "engine/runtime/cpu/fused_plan.h"
#include "tests/runtime/fused_test_util.h"

namespace ember::testing {
namespace {

using Kind = cpu::TileStep::Kind;

// The step of `program` of kind `kind` that comes `nth` among them.
const cpu::TileStep& StepOf(const cpu::BlockProgram& program, Kind kind, int nth = 0) {
  for (const cpu::TileStep& step : program.steps) {
    if (step.kind == kind && nth-- == 0) return step;
  }
  ADD_FAILURE() << "no such step";
  return program.steps.front();
}

// The index in program.steps of `step`.
int IndexOf(const cpu::BlockProgram& program, const cpu::TileStep& step) {
  return static_cast<int>(&step - program.steps.data());
}

// block 0: e = exp(x) handed over and summed along the rows; block 1 (rows): s; block 2:
// out0 = e / s (f32), out1 = e as f16.
TEST(FusedDirectWrites, ComputedValuesGoToTheirBufferAndTheirOutput) {
  Harness h(1);
  const Shape full = {6, 50}, rows = {6, 1};
  const TensorIr x = h.Input(full, DType::kF32, TestData(300, -2, 2));
  FuseTrace trace;
  trace.blocks.push_back({.reads = {Assign(Local(0), InArg(0))},
                          .ops = {Op(FuseOpKind::kExp, Local(1), Local(0))},
                          .writes = {Assign(Handed(0, 1), Local(1))}});
  trace.blocks.push_back({.writes = {Assign(Handed(1, 0), Local(0))}});
  trace.blocks.push_back(
      {.ops = {Op(FuseOpKind::kDiv, Local(0), Handed(0, 1), Handed(1, 0))},
       .writes = {Assign(OutArg(0), Local(0)), Assign(OutArg(1, DType::kF16), Handed(0, 1))}});
  trace.reduces.push_back({.kind = ReduceStage::Kind::kSum,
                           .from = 0,
                           .axis = 1,
                           .input = Handed(0, 1),
                           .output = Local(0)});
  trace.resources = Resources(1, 2);
  const FusedLaunch launch =
      Launch(trace, {h.Handle(x)}, {OutIr(full), OutIr(full, DType::kF16)}, {full, rows, full});
  const cpu::FusedPlan plan = cpu::PlanFused(launch);

  const cpu::BlockProgram& first = plan.blocks[0];
  EXPECT_EQ(StepOf(first, Kind::kCompute).into, IndexOf(first, StepOf(first, Kind::kKeep)));
  const cpu::BlockProgram& last = plan.blocks[2];
  const cpu::TileStep& f32_store = StepOf(last, Kind::kStore, 0);
  ASSERT_EQ(last.targets[f32_store.target].output, 0);
  EXPECT_EQ(StepOf(last, Kind::kCompute).into, IndexOf(last, f32_store));
  // The f16 output converts on its store; a loaded buffer is no step's to write.
  for (const cpu::TileStep& step : last.steps) {
    if (step.kind == Kind::kLoad) {
      EXPECT_EQ(step.into, -1);
    }
  }
  // The f16 store reads the handed-over e as loaded: that load is marked stored raw.
  const cpu::TileStep& f16_store = StepOf(last, Kind::kStore, 1);
  for (const cpu::TileStep& step : last.steps) {
    if (step.kind != Kind::kLoad) continue;
    EXPECT_EQ(last.sources[step.target].stored_raw, step.out == f16_store.args[0]);
  }
  EXPECT_TRUE(plan.blocks[0].sources[0].kind == cpu::TileSource::Kind::kTensor);
  EXPECT_FALSE(plan.blocks[0].sources[0].stored_raw);

  // Against the ops one by one.
  const TensorIr e = h.Exec(ir::Unary(OpKind::kExp, x, h.Output(full)));
  const TensorIr s = h.Exec(ir::ReduceDim(OpKind::kSumDim, e, 1, h.Output(rows)));
  const TensorIr q = h.Exec(ir::Binary(OpKind::kDiv, e, s, h.Output(full)));
  const TensorIr e16 = h.Exec(ir::Unary(OpKind::kCast, e, h.Output(full, DType::kF16)));
  const std::vector<TensorHandle> fused = h.backend().ExecuteFused(launch);
  ExpectSameBytes(h.backend(), fused[0], h.Handle(q), "quotient");
  ExpectSameBytes(h.backend(), fused[1], h.Handle(e16), "f16 copy");
}

// Two stores of one output: neither is written early, so the later store still wins.
TEST(FusedDirectWrites, AnOutputStoredTwiceIsWrittenInOrder) {
  Harness h(1);
  const Shape shape = {3, 40};
  const TensorIr x = h.Input(shape, DType::kF32, TestData(120, -2, 2));
  FuseTrace trace;
  trace.blocks.push_back(
      {.reads = {Assign(Local(0), InArg(0))},
       .ops = {Op(FuseOpKind::kExp, Local(1), Local(0)), Op(FuseOpKind::kNeg, Local(2), Local(0))},
       .writes = {Assign(OutArg(0), Local(1)), Assign(OutArg(0), Local(2))}});
  trace.resources = Resources(1, 1);
  const FusedLaunch launch = Launch(trace, {h.Handle(x)}, {OutIr(shape)}, {shape});
  const cpu::FusedPlan plan = cpu::PlanFused(launch);
  for (const cpu::TileStep& step : plan.blocks[0].steps) EXPECT_EQ(step.into, -1);
  const TensorIr neg = h.Exec(ir::Unary(OpKind::kNeg, x, h.Output(shape)));
  ExpectSameBytes(h.backend(), h.backend().ExecuteFused(launch)[0], h.Handle(neg));
}

// out0 takes x's buffer and is computed before x + 1 reads x: the sum must still see x.
TEST(FusedDirectWrites, AnOutputOverItsInputIsWrittenAfterTheLastRead) {
  Harness h(2);
  const Shape shape = {9, 4001};
  const std::vector<double> values = AwkwardData(9 * 4001, -3, 3, 5);
  const TensorIr x = h.Input(shape, DType::kF32, values);
  FuseTrace trace;
  trace.blocks.push_back({.reads = {Assign(Local(0), InArg(0))},
                          .ops = {Op(FuseOpKind::kExp, Local(1), Local(0)),
                                  Op(FuseOpKind::kAdd, Local(2), Local(0), Literal(1))},
                          .writes = {Assign(OutArg(0), Local(1)), Assign(OutArg(1), Local(2))}});
  trace.resources = Resources(1, 2);
  const TensorIr e = h.Exec(ir::Unary(OpKind::kExp, x, h.Output(shape)));
  const TensorIr p = h.Exec(ir::Scalar(OpKind::kAddScalar, x, ScalarIr::Int(1), h.Output(shape)));

  // The launch owns the only handle of a fresh copy of x, its last use.
  FusedLaunch launch = Launch(trace, {MakeHandle(h.backend(), shape, DType::kF32, values)},
                              {OutIr(shape), OutIr(shape)}, {shape});
  launch.reusable = {true};
  const Buffer* x_buffer = launch.inputs[0].buffer.get();
  const std::vector<TensorHandle> fused = h.backend().ExecuteFused(launch);
  EXPECT_EQ(fused[0].buffer.get(), x_buffer);
  ExpectSameBytes(h.backend(), fused[0], h.Handle(e), "exp in place");
  ExpectSameBytes(h.backend(), fused[1], h.Handle(p), "x + 1");
}

// out0 takes the matmul result's buffer and is computed before mm * 2 reads the result.
TEST(FusedDirectWrites, AnOutputOverTheMatmulResultIsWrittenAfterTheLastRead) {
  Harness h(2);
  const Shape out = {70, 90};
  const TensorIr a = h.Input({70, 40}, DType::kF32, AwkwardData(70 * 40, -2, 2, 7, false));
  const TensorIr b = h.Input({40, 90}, DType::kF32, AwkwardData(40 * 90, -2, 2, 8, false));
  const TensorIr bias = h.Input({1, 90}, DType::kF32, AwkwardData(90, -2, 2, 9, false));
  const TensorIr mm = h.Exec(ir::Binary(OpKind::kMatmul, a, b, h.Output(out)));
  const TensorIr sum = h.Exec(ir::Binary(OpKind::kAdd, mm, bias, h.Output(out)));
  const TensorIr twice =
      h.Exec(ir::Scalar(OpKind::kMulScalar, mm, ScalarIr::Int(2), h.Output(out)));
  FuseTrace t;
  t.blocks.push_back({.reads = {Assign(Local(1), InArg(2))},
                      .ops = {Op(FuseOpKind::kAdd, Local(2), Local(0), Local(1)),
                              Op(FuseOpKind::kMul, Local(3), Local(0), Literal(2))},
                      .writes = {Assign(OutArg(0), Local(2)), Assign(OutArg(1), Local(3))}});
  t.matmul = MatmulStage{.lhs = 0, .rhs = 1, .output = Local(0)};
  t.resources = Resources(3, 2);
  const FusedLaunch launch =
      Launch(t, {h.Handle(a), h.Handle(b), h.Handle(bias)}, {OutIr(out), OutIr(out)}, {out});
  ASSERT_EQ(cpu::ChooseMatmulOutput(launch, cpu::ChooseInPlace(launch)), 0);
  const std::vector<TensorHandle> fused = h.backend().ExecuteFused(launch);
  ExpectSameBytes(h.backend(), fused[0], h.Handle(sum), "bias");
  ExpectSameBytes(h.backend(), fused[1], h.Handle(twice), "product * 2");
}

// A load that a store writes out unchanged is marked, so an in-place output over it copies it
// first (fused_inplace_test.cpp runs that case); a load only computed from is not.
TEST(FusedDirectWrites, OnlyALoadStoredRawIsMarked) {
  Harness h(1);
  const Shape shape = {4, 30};
  const TensorIr x = h.Input(shape, DType::kF32, TestData(120, -2, 2));
  const TensorIr y = h.Input(shape, DType::kF32, TestData(120, -2, 2, 3));
  FuseTrace trace;
  trace.blocks.push_back({.reads = {Assign(Local(0), InArg(0)), Assign(Local(1), InArg(1))},
                          .ops = {Op(FuseOpKind::kMul, Local(2), Local(0), Local(1))},
                          .writes = {Assign(OutArg(0), Local(2)), Assign(OutArg(1), Local(1))}});
  trace.resources = Resources(2, 2);
  const FusedLaunch launch =
      Launch(trace, {h.Handle(x), h.Handle(y)}, {OutIr(shape), OutIr(shape)}, {shape});
  const cpu::FusedPlan plan = cpu::PlanFused(launch);
  const cpu::BlockProgram& block = plan.blocks[0];
  ASSERT_EQ(block.sources.size(), 2u);
  EXPECT_FALSE(block.sources[0].stored_raw);
  EXPECT_TRUE(block.sources[1].stored_raw);
}

}  // namespace
}  // namespace ember::testing

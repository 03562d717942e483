// The ReduceBroadcasted fuser on softmax- and layernorm-shaped chains: block cutting, the
// last-axis rule, readiness, the summed score, and the single-kernel trace.
#include <gtest/gtest.h>

#include "engine/fuse/elementwise_fuser.h"
#include "engine/fuse/reduce_broadcasted_fuser.h"
#include "engine/fuse/reduce_fuser.h"
#include "engine/fuse/trace_optimization.h"
#include "tests/fuse/fuse_test_util.h"

namespace ember {
namespace {

using namespace fuse_test;
using test::Out;
using test::P;
using test::Ro;
using test::Rw;
using test::T;
constexpr uint32_t kUnlimited = 0xffffffffu;
const Shape kRows = {1, 2};
const Shape kRow = {1, 0};

// y = a * s; softmax(y) over the last axis, as burn's softmax emits it.
std::vector<OperationIr> SoftmaxOps() {
  return {ir::Scalar(OpKind::kMulScalar, Ro(0, kRows), P(0), Out(1, kRows)),
          ir::ReduceDim(OpKind::kMaxDim, Ro(1, kRows), 1, Out(2, kRow)),
          ir::Binary(OpKind::kSub, Rw(1, kRows), Rw(2, kRow), Out(3, kRows)),
          ir::Unary(OpKind::kExp, Rw(3, kRows), Out(4, kRows)),
          ir::ReduceDim(OpKind::kSumDim, Ro(4, kRows), 1, Out(5, kRow)),
          ir::Binary(OpKind::kDiv, Rw(4, kRows), Rw(5, kRow), Out(6, kRows))};
}

TEST(ReduceBroadcastedFuser, SoftmaxIsOneKernelOfFiveBlocks) {
  ReduceBroadcastedFuser fuser(kUnlimited);
  const auto ops = SoftmaxOps();
  for (const OperationIr& op : ops) fuser.Fuse(op);
  EXPECT_EQ(fuser.len(), 6u);
  EXPECT_TRUE(fuser.properties().ready);
  EXPECT_EQ(fuser.status(), FuserStatus::kOpen);
  // Blocks [y, max] 0 + [sub, exp, sum] (5 - 4) * 100 + 10 + [div] 0.
  EXPECT_EQ(fuser.properties().score, 110u);

  auto opt = std::dynamic_pointer_cast<TraceOptimization>(fuser.Finish());
  ASSERT_NE(opt, nullptr);
  EXPECT_EQ(opt->name(), "ReduceBroadcasted");
  EXPECT_EQ(opt->len(), 6u);
  const FuseTrace& trace = opt->trace();
  ASSERT_EQ(trace.blocks.size(), 5u) << FormatFuseTrace(trace);
  EXPECT_EQ(trace.blocks[0].shape_ref, kRows);
  EXPECT_EQ(trace.blocks[1].shape_ref, kRow);
  EXPECT_EQ(trace.blocks[2].shape_ref, kRows);
  EXPECT_EQ(trace.blocks[3].shape_ref, kRow);
  EXPECT_EQ(trace.blocks[4].shape_ref, kRows);
  ASSERT_EQ(trace.reduces.size(), 2u);
  EXPECT_EQ(trace.reduces[0].kind, ReduceStage::Kind::kMax);
  EXPECT_EQ(trace.reduces[0].from, 0u);
  EXPECT_EQ(trace.reduces[1].kind, ReduceStage::Kind::kSum);
  EXPECT_EQ(trace.reduces[1].from, 2u);
  // One read (a) and one write (the softmax): every intermediate stays in the kernel.
  ASSERT_EQ(trace.resources.inputs.size(), 1u) << FormatFuseTrace(trace);
  ASSERT_EQ(trace.resources.outputs.size(), 1u) << FormatFuseTrace(trace);
  EXPECT_EQ(trace.resources.outputs[0].id, 6u);
}

// burn's reduce_broadcast_workflow_1 (burn-cubecl-fusion,
// optim/reduce_broadcasted/fuser/base.rs): Ones, a SumDim, an Add of an existing per-row tensor,
// a broadcast back to full rows by adding an existing full-row tensor, and a second SumDim. burn
// asserts, after each op, the count, an open fuser and readiness (after the second SumDim its
// status check reads the value from before that op; ember checks the status it has then).
TEST(ReduceBroadcastedFuser, BurnsReduceBroadcastWorkflow1) {
  ReduceBroadcastedFuser fuser(kUnlimited);
  auto expect = [&](size_t len) {
    EXPECT_EQ(fuser.len(), len);
    EXPECT_EQ(fuser.status(), FuserStatus::kOpen) << "after " << len << " ops";
    EXPECT_TRUE(fuser.properties().ready) << "after " << len << " ops";
  };
  fuser.Fuse(ir::Creation(OpKind::kOnes, Out(0, kRows)));
  fuser.Fuse(ir::ReduceDim(OpKind::kSumDim, Rw(0, kRows), 1, Out(1, kRow)));
  expect(2);
  fuser.Fuse(ir::Binary(OpKind::kAdd, Rw(1, kRow), Rw(2, kRow), Out(3, kRow)));
  expect(3);
  fuser.Fuse(ir::Binary(OpKind::kAdd, Rw(3, kRow), Rw(4, kRows), Out(5, kRows)));
  expect(4);
  fuser.Fuse(ir::ReduceDim(OpKind::kSumDim, Rw(5, kRows), 1, Out(6, kRow)));
  expect(5);
  auto opt = std::dynamic_pointer_cast<TraceOptimization>(fuser.Finish());
  ASSERT_NE(opt, nullptr);
  EXPECT_EQ(opt->len(), 5u);
  EXPECT_EQ(opt->trace().reduces.size(), 2u) << FormatFuseTrace(opt->trace());
}

// burn's reduce_broadcast_workflow_2: a full-row input (t2) read ReadOnly before the reduce and
// again, for the last time (ReadWrite), by the broadcast Add after it.
TEST(ReduceBroadcastedFuser, BurnsReduceBroadcastWorkflow2) {
  ReduceBroadcastedFuser fuser(kUnlimited);
  fuser.Fuse(ir::Creation(OpKind::kOnes, Out(0, kRows)));
  fuser.Fuse(ir::Binary(OpKind::kAdd, Rw(0, kRows), Ro(2, kRows), Out(3, kRows)));
  fuser.Fuse(ir::ReduceDim(OpKind::kSumDim, Rw(3, kRows), 1, Out(1, kRow)));
  EXPECT_EQ(fuser.len(), 3u);
  EXPECT_EQ(fuser.status(), FuserStatus::kOpen);
  EXPECT_TRUE(fuser.properties().ready);
  fuser.Fuse(ir::Binary(OpKind::kAdd, Rw(1, kRow), Rw(2, kRows), Out(5, kRows)));
  EXPECT_EQ(fuser.len(), 4u);
  EXPECT_EQ(fuser.status(), FuserStatus::kOpen);
  EXPECT_TRUE(fuser.properties().ready);
  auto opt = std::dynamic_pointer_cast<TraceOptimization>(fuser.Finish());
  ASSERT_NE(opt, nullptr);
  EXPECT_EQ(opt->len(), 4u);
  EXPECT_EQ(opt->trace().reduces.size(), 1u) << FormatFuseTrace(opt->trace());
}

TEST(ReduceBroadcastedFuser, WinsOverElementWiseAndReduceOnSoftmax) {
  ElementWiseFuser elementwise(kUnlimited);
  ReduceFuser reduce(kUnlimited);
  for (const OperationIr& op : SoftmaxOps()) {
    elementwise.Fuse(op);
    reduce.Fuse(op);
  }
  EXPECT_EQ(elementwise.len(), 1u);
  EXPECT_EQ(elementwise.properties().score, 0u);
  EXPECT_EQ(reduce.len(), 2u);
  EXPECT_EQ(reduce.properties().score, 0u);
}

TEST(ReduceBroadcastedFuser, LayerNormKeepsPerRowOpsAfterTheSecondReduce) {
  const Shape r = kRows, p = kRow;
  const std::vector<OperationIr> ops = {
      ir::Binary(OpKind::kAdd, Ro(0, r), Ro(1, r), Out(2, r)),    // x = a + b
      ir::ReduceDim(OpKind::kMeanDim, Ro(2, r), 1, Out(3, p)),    // mu
      ir::Binary(OpKind::kSub, Rw(2, r), Rw(3, p), Out(4, r)),    // xc
      ir::Binary(OpKind::kMul, Ro(4, r), Ro(4, r), Out(5, r)),    // xc^2
      ir::ReduceDim(OpKind::kMeanDim, Rw(5, r), 1, Out(6, p)),    // var
      ir::Scalar(OpKind::kAddScalar, Rw(6, p), P(0), Out(7, p)),  // var + eps
      ir::Unary(OpKind::kSqrt, Rw(7, p), Out(8, p)),              // std
      ir::Binary(OpKind::kDiv, Rw(4, r), Rw(8, p), Out(9, r)),    // xc / std
  };
  ReduceBroadcastedFuser fuser(kUnlimited);
  for (const OperationIr& op : ops) fuser.Fuse(op);
  EXPECT_EQ(fuser.len(), 8u);
  EXPECT_TRUE(fuser.properties().ready);
  auto opt = std::dynamic_pointer_cast<TraceOptimization>(fuser.Finish());
  const FuseTrace& trace = opt->trace();
  EXPECT_EQ(trace.blocks.size(), 5u) << FormatFuseTrace(trace);
  EXPECT_EQ(trace.reduces.size(), 2u);
  EXPECT_EQ(trace.resources.inputs.size(), 2u);
  ASSERT_EQ(trace.resources.outputs.size(), 1u) << FormatFuseTrace(trace);
  EXPECT_EQ(trace.resources.outputs[0].id, 9u);
}

TEST(ReduceBroadcastedFuser, AReduceOverAnotherAxisAborts) {
  ReduceBroadcastedFuser fuser(kUnlimited);
  fuser.Fuse(ir::Unary(OpKind::kExp, Ro(0, kRows), Out(1, kRows)));
  fuser.Fuse(ir::ReduceDim(OpKind::kSumDim, Rw(1, kRows), 0, Out(2, {0, 2})));
  EXPECT_EQ(fuser.status(), FuserStatus::kClosed);
  EXPECT_FALSE(fuser.properties().ready);
}

TEST(ReduceBroadcastedFuser, ASingleReduceBlockIsReadyOnceClosed) {
  ReduceBroadcastedFuser fuser(kUnlimited);
  fuser.Fuse(ir::Unary(OpKind::kExp, Ro(0, kRows), Out(1, kRows)));
  fuser.Fuse(ir::ReduceDim(OpKind::kSumDim, Rw(1, kRows), 1, Out(2, kRow)));
  EXPECT_TRUE(fuser.properties().ready);
  fuser.Fuse(ir::Binary(OpKind::kMatmul, Ro(3, {1, 2}), Ro(4, {2, 3}), Out(5, {1, 3})));
  EXPECT_EQ(fuser.status(), FuserStatus::kClosed);
  EXPECT_TRUE(fuser.properties().ready);
  EXPECT_EQ(fuser.len(), 2u);
}

}  // namespace
}  // namespace ember

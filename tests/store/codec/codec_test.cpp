// The plan codec (store/codec/plan_codec.h): every op kind, trigger kind and strategy shape round
// trips; the bytes are canonical and pinned; plan keys are the IR hashes. The refusals are in
// codec_refusals_test.cpp.
#include "store/codec/plan_codec.h"

#include <gtest/gtest.h>

#include <xxhash.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <fmt/format.h>

#include "engine/fuse/elementwise_fuser.h"
#include "engine/fuse/optimization_factory.h"
#include "engine/fuse/reduce_fuser.h"
#include "engine/fuse/trace_optimization.h"
#include "engine/ir/builders.h"
#include "engine/ir/relative.h"
#include "schema/plan.capnp.h"
#include "store/codec/canonical_message.h"
#include "store/codec/trace_codec.h"
#include "tests/ir/sample_ops.h"
#include "tests/store/codec/codec_plans.h"

namespace ember {
namespace {

using namespace codec_test;

// --- Schema ----------------------------------------------------------------------------------

TEST(PlanSchema, CountsMatchTheOpListAndTheDTypes) {
  // Adding an op kind or a dtype fails here until schema/plan.capnp and its README log say so.
  EXPECT_EQ(schema::NUM_OP_KINDS, kNumOpKinds);
  EXPECT_EQ(schema::NUM_D_TYPES, kNumDTypes);
  EXPECT_EQ(schema::SCHEMA_VERSION, kPlanSchemaVersion);
}

// --- Round trips -----------------------------------------------------------------------------

TEST(PlanCodec, EveryOpKindRoundTripsAsAOneOpPlan) {
  for (OpKind kind : ir_test::AllOpKinds()) {
    SCOPED_TRACE(OpKindName(kind));
    const ExecutionPlan plan = UnfusedPlan(Relative({ir_test::SampleOp(kind)}));
    ExpectSamePlan(RoundTrip(plan), plan);
  }
}

TEST(PlanCodec, EveryOpKindRoundTripsInOneFrame) {
  std::vector<OperationIr> global;
  for (OpKind kind : ir_test::AllOpKinds()) global.push_back(ir_test::SampleOp(kind));
  const ExecutionPlan plan = UnfusedPlan(Relative(global));
  ASSERT_EQ(plan.operations.size(), static_cast<size_t>(kNumOpKinds));
  ExpectSamePlan(RoundTrip(plan), plan);
}

TEST(PlanCodec, GlobalOpsKeepEveryBitOfScalarsRangesAndDistributions) {
  // Global ops (DecodeOperations does not ask for the relative form): NaN payloads, the sign
  // of zero, integer extremes, open and closed ranges, a NaN distribution parameter.
  const double nan_payload = std::bit_cast<double>(uint64_t{0x7ff8000000000123});
  const double neg_nan = std::bit_cast<double>(uint64_t{0xfff0000000000001});
  std::vector<OperationIr> ops = {
      ir::Full(Out(1, {2}), ScalarIr::Float(nan_payload)),
      ir::Full(Out(2, {2}), ScalarIr::Float(-0.0)),
      ir::Full(Out(3, {2}, DType::kI64), ScalarIr::Int(std::numeric_limits<int64_t>::min())),
      ir::Full(Out(4, {2}, DType::kI64), ScalarIr::UInt(std::numeric_limits<uint64_t>::max())),
      ir::Full(Out(5, {2}, DType::kBool), ScalarIr::Bool(true)),
      ir::Clamp(T(1, {2}), ScalarIr::Float(neg_nan), ScalarIr::Float(0.0), Out(6, {2})),
      ir::SliceOp(
          T(7, {9, 9, 9}),
          {Slice{-3, std::nullopt, -2}, Slice{0, 0, 1},
           Slice{std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), 3}},
          Out(8, {2, 0, 3})),
      ir::Random(Out(9, {5}), Distribution{Distribution::Kind::kNormal, nan_payload, -0.0}),
      ir::Permute(T(10, {1, 2, 3, 4, 5}, TensorStatus::kReadWrite, DType::kBF16), {4, 0, 3, 1, 2},
                  Out(11, {5, 1, 4, 2, 3}, DType::kBF16)),
  };
  std::vector<OperationIr> decoded;
  const std::vector<uint8_t> bytes = EncodeOperations(ops);
  ASSERT_TRUE(DecodeOperations(bytes, &decoded).ok());
  EXPECT_EQ(decoded, ops);
  EXPECT_EQ(EncodeOperations(decoded), bytes);
  // Slice{0, 0} and Slice{0, nullopt} differ, and so do their bytes.
  std::vector<OperationIr> open = ops;
  open[6].ranges[1].end = std::nullopt;
  EXPECT_NE(EncodeOperations(open), bytes);
}

TEST(PlanCodec, EveryTriggerKindRoundTrips) {
  ExecutionPlan plan = UnfusedPlan(Relative({ir_test::SampleOp(OpKind::kAdd)}));
  // The trigger continues the plan's frame: t0..t2 exist, t3 is new.
  plan.triggers = {
      ExecutionTrigger::OnOperations(
          {ir::Unary(OpKind::kExp, T(2, {1, 2}, TensorStatus::kReadWrite), Out(3, {1, 2}))}),
      ExecutionTrigger::OnSync(),
      ExecutionTrigger::Always(),
      ExecutionTrigger::OnOperations({ir::Unary(OpKind::kNeg, T(2, {1, 2}), Out(3, {1, 2})),
                                      ir::Unary(OpKind::kNeg, T(3, {1, 2}), Out(4, {1, 2}))}),
  };
  ExpectSamePlan(RoundTrip(plan), plan);
}

TEST(PlanCodec, NestedStrategiesWithFusedLeavesRoundTrip) {
  const ExecutionPlan plan = NestedPlan();
  const ExecutionPlan decoded = RoundTrip(plan);
  ExpectSamePlan(decoded, plan);
  // The decoded leaves are new optimizations, not the originals.
  const ExecutionStrategy& leaf = decoded.optimization.strategy.children[0].children[0];
  ASSERT_EQ(leaf.kind, ExecutionStrategy::Kind::kOptimization);
  EXPECT_NE(leaf.optimization, plan.optimization.strategy.children[0].children[0].optimization);
  EXPECT_EQ(leaf.optimization->name(), "ElementWise");
  EXPECT_EQ(decoded.optimization.strategy.children[1].children[0].optimization->name(), "Reduce");
}

TEST(PlanCodec, DeeplyButLegallyNestedStrategiesRoundTrip) {
  ExecutionStrategy strategy = ExecutionStrategy::Operations({0});
  for (int i = 0; i < kMaxStrategyDepth; ++i) strategy = ExecutionStrategy::Composed({strategy});
  ExecutionPlan plan = UnfusedPlan(Relative({ir_test::SampleOp(OpKind::kExp)}));
  plan.optimization.strategy = strategy;
  ExpectSamePlan(RoundTrip(plan), plan);
}

TEST(PlanCodec, PartsRoundTripAndAssembleIntoTheSamePlan) {
  // As a store with separate columns keeps a plan: ops blob, strategy blob, trigger rows.
  const ExecutionPlan plan = NestedPlan();
  ExecutionPlan assembled;
  ASSERT_TRUE(DecodeOperations(EncodeOperations(plan.operations), &assembled.operations).ok());
  ASSERT_TRUE(
      DecodeBlockOptimization(EncodeBlockOptimization(plan.optimization), &assembled.optimization)
          .ok());
  for (const ExecutionTrigger& trigger : plan.triggers) {
    ExecutionTrigger decoded{trigger.kind, {}};
    ASSERT_TRUE(DecodeOperations(EncodeOperations(trigger.operations), &decoded.operations).ok());
    assembled.triggers.push_back(decoded);
  }
  EXPECT_TRUE(ValidatePlan(assembled).ok());
  ExpectSamePlan(assembled, plan);
  EXPECT_EQ(EncodePlan(assembled), EncodePlan(plan));
  // Equal strategies, equal bytes, also on their own.
  EXPECT_EQ(EncodeBlockOptimization(assembled.optimization),
            EncodeBlockOptimization(plan.optimization));
}

TEST(PlanCodec, ABlockOnItsOwnIsCheckedAsFarAsItCanBe) {
  BlockOptimization block = NestedPlan().optimization;
  BlockOptimization decoded;
  block.ordering.pop_back();  // the leaves cover 0..7, the ordering 0..6
  Status status = DecodeBlockOptimization(EncodeBlockOptimization(block), &decoded);
  EXPECT_NE(status.message().find("do not cover"), std::string::npos) << status.ToString();
  block = NestedPlan().optimization;
  block.strategy.children[1].children[0].ordering = {4, 5};
  block.strategy.children[1].children.push_back(ExecutionStrategy::Operations({6}));
  status = DecodeBlockOptimization(EncodeBlockOptimization(block), &decoded);
  EXPECT_NE(status.message().find("fused leaf over 2 positions for 3 ops"), std::string::npos)
      << status.ToString();
}

// --- Canonical bytes -------------------------------------------------------------------------

TEST(PlanCodec, BytesAreTheSameAcrossEncodingsAndAfterDecoding) {
  const ExecutionPlan plan = NestedPlan();
  const std::vector<uint8_t> bytes = EncodePlan(plan);
  EXPECT_EQ(EncodePlan(plan), bytes);
  EXPECT_EQ(bytes.size() % 8, 0u);
  EXPECT_EQ(EncodePlan(RoundTrip(plan)), bytes);
  // A plan built again from scratch (new optimizations, new vectors) gives the same bytes.
  EXPECT_EQ(EncodePlan(NestedPlan()), bytes);
}

TEST(PlanCodec, GoldenPlanBytesArePinned) {
  // Changes only with the schema or the codec. If this fails, the stored format changed: make
  // sure the change only appends ordinals (schema/README.md), then update the numbers.
  const std::vector<uint8_t> bytes = EncodePlan(GoldenPlan());
  EXPECT_EQ(bytes.size(), 768u);
  EXPECT_EQ(XXH3_64bits(bytes.data(), bytes.size()), 0x53fe9f28426be944u);
  const std::vector<uint8_t> ops = EncodeOperations(GoldenPlan().operations);
  EXPECT_EQ(ops.size(), 400u);
  EXPECT_EQ(XXH3_64bits(ops.data(), ops.size()), 0x7b7388c26156cfd3u);
}

TEST(TraceCodec, GoldenTraceStateBytesArePinned) {
  // x * s written to t1, as the ElementWise fuser would build it, by hand.
  FuseTrace trace;
  trace.resources.inputs = {Ro(0, {1, 2})};
  trace.resources.outputs = {Out(1, {1, 2})};
  trace.resources.scalars = {FuseScalar{DType::kF32, 0}};
  const FuseArg in{FuseArgKind::kInput, DType::kF32, 0, 0};
  const FuseArg local0{FuseArgKind::kLocal, DType::kF32, 0, 0};
  const FuseArg local1{FuseArgKind::kLocal, DType::kF32, 1, 0};
  const FuseArg scalar{FuseArgKind::kScalar, DType::kF32, 0, 0};
  const FuseArg out{FuseArgKind::kOutput, DType::kF32, 0, 0};
  FuseBlock block;
  block.shape_ref = {1, 2};
  block.reads = {FuseOp{FuseOpKind::kAssign, {in}, local0}};
  block.ops = {FuseOp{FuseOpKind::kMul, {local0, scalar}, local1}};
  block.writes = {FuseOp{FuseOpKind::kAssign, {local1}, out}};
  block.num_locals = 2;
  trace.blocks = {block};
  const std::vector<uint8_t> bytes = EncodeTraceState(TraceState{trace, 1, 10});
  EXPECT_EQ(bytes.size(), 424u);
  EXPECT_EQ(XXH3_64bits(bytes.data(), bytes.size()), 0xddc800a5a871e51bu);
  TraceState decoded;
  ASSERT_TRUE(DecodeTraceState(bytes, &decoded).ok());
  EXPECT_EQ(decoded, (TraceState{trace, 1, 10}));
}

// --- Keys ------------------------------------------------------------------------------------

TEST(PlanCodec, PlanKeyAndFirstOpHashAreTheIrHashes) {
  const std::vector<OperationIr> ops = NestedProgram();
  EXPECT_EQ(PlanKey(ops), HashOps(ops));
  EXPECT_EQ(FirstOpHash(ops), HashOp(ops[0]));
  // The same program over other tensors has the same relative ops, hence the same keys.
  const std::vector<OperationIr> again = Relative(ir_test::SeedProgram(500, {16, 16}, 3.0));
  const std::vector<OperationIr> seed = Relative(ir_test::SeedProgram(0, {2, 2}, 1.0));
  EXPECT_EQ(PlanKey(again), PlanKey(seed));
  EXPECT_EQ(FirstOpHash(again), FirstOpHash(seed));
  if (!kHashZero) {
    EXPECT_NE(PlanKey(seed), PlanKey(ops));
  }
}

}  // namespace
}  // namespace ember

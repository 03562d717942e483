// The plan codec (store/codec/plan_codec.h): every op kind, trigger kind and strategy shape round
// trips; the bytes are canonical and pinned; plan keys are the IR hashes; and plans that break
// a store invariant, or carry numbers this build does not know, are refused with a Status.
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

namespace ember {
namespace {

using test::Out;
using test::Ro;
using test::Rw;
using test::T;

constexpr uint32_t kUnlimited = 0xffffffffu;

std::vector<OperationIr> Relative(const std::vector<OperationIr>& global) {
  OperationConverter converter;
  std::vector<OperationIr> relative;
  for (const OperationIr& op : global) relative.push_back(converter.ToRelative(op));
  return relative;
}

std::vector<size_t> Iota(size_t begin, size_t end) {
  std::vector<size_t> v(end - begin);
  std::iota(v.begin(), v.end(), begin);
  return v;
}

ExecutionPlan UnfusedPlan(std::vector<OperationIr> relative) {
  const size_t n = relative.size();
  return ExecutionPlan{
      std::move(relative), {ExecutionTrigger::Always()}, BlockOptimization::Unfused(n)};
}

// Fused leaves compare by identity in ExecutionStrategy::operator==; here by their state.
bool SameStrategy(const ExecutionStrategy& a, const ExecutionStrategy& b) {
  if (a.kind != b.kind || a.ordering != b.ordering || a.score != b.score ||
      a.children.size() != b.children.size() ||
      (a.optimization == nullptr) != (b.optimization == nullptr)) {
    return false;
  }
  if (a.optimization && !(a.optimization->ToState() == b.optimization->ToState())) return false;
  for (size_t i = 0; i < a.children.size(); ++i) {
    if (!SameStrategy(a.children[i], b.children[i])) return false;
  }
  return true;
}

void ExpectSamePlan(const ExecutionPlan& a, const ExecutionPlan& b) {
  EXPECT_EQ(a.operations, b.operations);
  EXPECT_EQ(a.triggers, b.triggers);
  EXPECT_EQ(a.optimization.ordering, b.optimization.ordering);
  EXPECT_TRUE(SameStrategy(a.optimization.strategy, b.optimization.strategy));
}

ExecutionPlan RoundTrip(const ExecutionPlan& plan) {
  ExecutionPlan decoded;
  const Status status = DecodePlan(EncodePlan(plan), &decoded);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return decoded;
}

// The seed expression (a*b + c*s).exp(), then exp, sum over dim 1 and a division (a Reduce
// pattern), then a negation: two fused leaves from real fusers and an unfused one.
std::vector<OperationIr> NestedProgram() {
  const Shape r = {4, 8}, p = {4, 1};
  return Relative({
      ir::Binary(OpKind::kMul, Ro(1, r), Ro(2, r), Out(4, r)),
      ir::Scalar(OpKind::kMulScalar, Ro(3, r), ScalarIr::Float(2.0), Out(5, r)),
      ir::Binary(OpKind::kAdd, Rw(4, r), Rw(5, r), Out(6, r)),
      ir::Unary(OpKind::kExp, Rw(6, r), Out(7, r)),
      ir::Unary(OpKind::kExp, Ro(7, r), Out(8, r)),
      ir::ReduceDim(OpKind::kSumDim, Rw(8, r), 1, Out(9, p)),
      ir::Scalar(OpKind::kDivScalar, Rw(9, p), ScalarIr::Float(3.0), Out(10, p)),
      ir::Unary(OpKind::kNeg, Rw(7, r), Out(11, r)),
  });
}

// Composed{Composed{ElementWise over 0..3}, Composed{Reduce over 4..6, Operations{7}}}.
ExecutionPlan NestedPlan() {
  std::vector<OperationIr> ops = NestedProgram();
  ElementWiseFuser elementwise(kUnlimited);
  for (size_t i = 0; i < 4; ++i) elementwise.Fuse(ops[i]);
  ReduceFuser reduce(kUnlimited);
  for (size_t i = 4; i < 7; ++i) reduce.Fuse(ops[i]);
  EXPECT_TRUE(elementwise.properties().ready);
  EXPECT_TRUE(reduce.properties().ready);
  EXPECT_EQ(elementwise.len(), 4u);
  EXPECT_EQ(reduce.len(), 3u);
  const uint64_t ew_score = elementwise.properties().score;
  const uint64_t reduce_score = reduce.properties().score;
  ExecutionStrategy strategy = ExecutionStrategy::Composed({
      ExecutionStrategy::Composed(
          {ExecutionStrategy::Fused(elementwise.Finish(), Iota(0, 4), ew_score)}),
      ExecutionStrategy::Composed(
          {ExecutionStrategy::Fused(reduce.Finish(), Iota(4, 7), reduce_score),
           ExecutionStrategy::Operations({7})}),
  });
  return ExecutionPlan{std::move(ops),
                       {ExecutionTrigger::OnSync(), ExecutionTrigger::Always()},
                       BlockOptimization{std::move(strategy), Iota(0, 8)}};
}

// Two ops, an unfused strategy, triggers of every kind: small and independent of the fusers,
// so that its bytes only change when the schema or the codec does.
ExecutionPlan GoldenPlan() {
  std::vector<OperationIr> ops = Relative({
      ir::Scalar(OpKind::kMulScalar, T(7, {3, 1}), ScalarIr::Float(0.5), Out(8, {3, 1})),
      ir::Unary(OpKind::kExp, T(8, {3, 1}, TensorStatus::kReadWrite), Out(9, {3, 1})),
  });
  ExecutionPlan plan{ops,
                     {},
                     BlockOptimization{ExecutionStrategy::Composed({
                                           ExecutionStrategy::Operations({1, 0}),
                                       }),
                                       {1, 0}}};
  plan.triggers = {ExecutionTrigger::OnOperations({ir::Unary(
                       OpKind::kNeg, T(2, {1, 0}, TensorStatus::kReadWrite), Out(3, {1, 0}))}),
                   ExecutionTrigger::OnSync(), ExecutionTrigger::Always()};
  return plan;
}

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

// --- Refusals --------------------------------------------------------------------------------

Status DecodeStatus(const ExecutionPlan& plan) {
  ExecutionPlan decoded;
  return DecodePlan(EncodePlan(plan), &decoded);
}

// Decoding `plan` fails with a message containing `reason`, and so does ValidatePlan.
void ExpectRefused(const ExecutionPlan& plan, std::string_view reason) {
  const Status status = DecodeStatus(plan);
  EXPECT_EQ(status.code(), Status::Code::kCorruption) << status.ToString();
  EXPECT_NE(status.message().find(reason), std::string::npos) << status.ToString();
  const Status valid = ValidatePlan(plan);
  EXPECT_NE(valid.message().find(reason), std::string::npos) << valid.ToString();
}

TEST(PlanCodec, RefusesPlansThatBreakStoreInvariants) {
  const ExecutionPlan good = UnfusedPlan(Relative(ir_test::SeedProgram(0, {4, 4}, 2.0)));
  ASSERT_TRUE(DecodeStatus(good).ok());
  ASSERT_TRUE(ValidatePlan(good).ok());

  ExecutionPlan p = good;
  p.operations.clear();
  p.optimization = BlockOptimization::Unfused(0);
  ExpectRefused(p, "a plan without ops");

  p = good;
  p.operations[0].inputs.pop_back();
  ExpectRefused(p, "NumericFloat::Mul: 1 inputs");

  p = good;
  p.operations[0].inputs[0].id = 1;  // t1 before t0
  ExpectRefused(p, "tensor id 1 before id 0");

  p = good;
  p.operations[0].inputs[0].shape = {2, 1};  // shape id 2 before 1
  ExpectRefused(p, "shape id 2 before id 1");

  p = good;
  p.operations[1].scalars[0] = ScalarIr::Float(2.0);
  ExpectRefused(p, "scalar is not placeholder 0");

  p = good;
  p.optimization = BlockOptimization::Unfused(3);
  ExpectRefused(p, "ordering of 3 positions for 4 ops");

  p = good;
  p.optimization.ordering = {0, 1, 1, 3};
  p.optimization.strategy = ExecutionStrategy::Operations({0, 1, 1, 3});
  ExpectRefused(p, "not a permutation");

  p = good;
  p.optimization.ordering = {0, 1, 2, 3};
  p.optimization.strategy = ExecutionStrategy::Operations({1, 0, 2, 3});
  ExpectRefused(p, "leaves do not cover the block ordering");

  p = good;
  p.triggers = {ExecutionTrigger{ExecutionTrigger::Kind::kOnSync, {p.operations[0]}}};
  ExpectRefused(p, "trigger 0 of kind 1 with 1 ops");

  p = good;
  p.triggers = {ExecutionTrigger::OnOperations({})};
  ExpectRefused(p, "trigger 0 of kind 0 with 0 ops");

  p = good;
  p.triggers = {ExecutionTrigger::Always(), ExecutionTrigger::OnSync(), ExecutionTrigger::Always()};
  ExpectRefused(p, "trigger 2 repeats an earlier one");

  p = good;
  p.triggers = {
      ExecutionTrigger::OnOperations({ir::Unary(OpKind::kExp, T(9, {1, 1}), Out(10, {1, 1}))})};
  ExpectRefused(p, "tensor id 9 before id 7");

  ExecutionStrategy deep = ExecutionStrategy::Operations({0, 1, 2, 3});
  for (int i = 0; i <= kMaxStrategyDepth; ++i) deep = ExecutionStrategy::Composed({deep});
  p = good;
  p.optimization.strategy = deep;
  ExpectRefused(p, "nested too deep");
}

TEST(PlanCodec, RefusesFusedLeavesThatDoNotFit) {
  ExecutionPlan plan = NestedPlan();
  ExecutionPlan p = plan;
  // The ElementWise leaf covers 4 ops; give it 3 positions (and the unfused leaf the 4th).
  p.optimization.strategy.children[0].children[0].ordering = {0, 1, 2};
  p.optimization.strategy.children[0].children.push_back(ExecutionStrategy::Operations({3}));
  ExpectRefused(p, "fused leaf over 3 positions for 4 ops");

  // A leaf referring to a shape id the plan's ops never handed out.
  auto opt = std::dynamic_pointer_cast<TraceOptimization>(
      plan.optimization.strategy.children[0].children[0].optimization);
  ASSERT_NE(opt, nullptr);
  FuseTrace trace = opt->trace();
  trace.blocks[0].shape_ref = {1, 7};
  p = plan;
  p.optimization.strategy.children[0].children[0].optimization =
      std::make_shared<TraceOptimization>("ElementWise", trace, opt->len(), opt->score());
  ExpectRefused(p, "needs shape id 7, the ops hand out 3");
}

TEST(PlanCodec, RefusesUnknownOptimizations) {
  ExecutionPlan plan = NestedPlan();
  class Foreign final : public Optimization {
   public:
    void Execute(Context&, OrderedExecution&) override {}
    size_t len() const override { return 4; }
    std::string_view name() const override { return "FromTheFuture"; }
    OptimizationState ToState() const override { return {"FromTheFuture", {}}; }
  };
  plan.optimization.strategy.children[0].children[0].optimization = std::make_shared<Foreign>();
  const Status status = DecodeStatus(plan);
  EXPECT_EQ(status.code(), Status::Code::kCorruption);
  EXPECT_NE(status.message().find("FromTheFuture"), std::string::npos) << status.ToString();
}

// The words of a blob, aligned for Cap'n Proto.
kj::Array<capnp::word> Words(const std::vector<uint8_t>& bytes) {
  kj::Array<capnp::word> words = kj::heapArray<capnp::word>(bytes.size() / 8);
  std::memcpy(words.begin(), bytes.data(), bytes.size());
  return words;
}

// Rewrites the canonical blob of `plan` through `edit` on a Cap'n Proto builder, as a writer
// with other numbers (a newer build, a bit flip that kept the layout) would have produced it.
std::vector<uint8_t> Edited(const ExecutionPlan& plan,
                            const std::function<void(schema::ExecutionPlan::Builder)>& edit) {
  const kj::Array<capnp::word> words = Words(EncodePlan(plan));
  const kj::ArrayPtr<const capnp::word> segments[1] = {words.asPtr()};
  capnp::SegmentArrayMessageReader reader(kj::arrayPtr(segments, 1));
  capnp::MallocMessageBuilder builder;
  builder.setRoot(reader.getRoot<schema::ExecutionPlan>());
  auto root = builder.getRoot<schema::ExecutionPlan>();
  edit(root);
  return WordsToBytes(capnp::canonicalize(root.asReader()));
}

TEST(PlanCodec, RefusesStoredNumbersThisBuildDoesNotKnow) {
  ExecutionPlan plan = GoldenPlan();
  // The golden plan runs Exp before the MulScalar that produces its input, which decoding
  // refuses (ValidatePlan: the block ordering must keep tensors alive); these edits are about
  // numbers, so they start from a plan that decodes.
  plan.optimization = BlockOptimization{
      ExecutionStrategy::Composed({ExecutionStrategy::Operations({0, 1})}), {0, 1}};
  using B = schema::ExecutionPlan::Builder;
  const std::vector<std::pair<std::string, std::function<void(B)>>> edits = {
      {fmt::format("unknown op kind {}", kNumOpKinds),
       [](B b) { b.getOperations()[0].setKind(kNumOpKinds); }},
      {"unknown dtype 6", [](B b) { b.getOperations()[0].setDtype(kNumDTypes); }},
      {"unknown tensor status 3", [](B b) { b.getOperations()[0].getInputs()[0].setStatus(3); }},
      {"unknown dtype 200", [](B b) { b.getOperations()[0].getOutputs()[0].setDtype(200); }},
      {"unknown scalar kind 4", [](B b) { b.getOperations()[0].getScalars()[0].setKind(4); }},
      {"unknown distribution 2", [](B b) { b.getOperations()[1].getDistribution().setKind(2); }},
      {"unknown trigger kind 3", [](B b) { b.getTriggers()[1].setKind(3); }},
      {"negative relative shape id -1",
       [](B b) { b.getOperations()[0].getInputs()[0].getShape().set(0, -1); }},
  };
  ExecutionPlan decoded;
  for (const auto& [what, edit] : edits) {
    const Status status = DecodePlan(Edited(plan, edit), &decoded);
    EXPECT_EQ(status.code(), Status::Code::kCorruption) << what;
    EXPECT_NE(status.message().find(what), std::string::npos) << status.ToString();
  }
  // The editing path itself keeps a plan intact.
  EXPECT_TRUE(DecodePlan(Edited(plan, [](B) {}), &decoded).ok());
}

TEST(PlanCodec, RefusesBytesThatAreNotOneCanonicalMessage) {
  const ExecutionPlan plan = GoldenPlan();
  const std::vector<uint8_t> bytes = EncodePlan(plan);
  ExecutionPlan decoded;
  EXPECT_FALSE(DecodePlan({}, &decoded).ok());
  EXPECT_FALSE(DecodePlan(std::vector<uint8_t>(8, 0), &decoded).ok());  // a null root
  std::vector<uint8_t> longer = bytes;
  longer.insert(longer.end(), 8, 0);
  EXPECT_FALSE(DecodePlan(longer, &decoded).ok());  // a word after the message
  std::vector<uint8_t> odd = bytes;
  odd.push_back(0);
  EXPECT_FALSE(DecodePlan(odd, &decoded).ok());

  // The same plan written the ordinary (non-canonical) way: a segment table first.
  const kj::Array<capnp::word> words = Words(bytes);
  const kj::ArrayPtr<const capnp::word> segments[1] = {words.asPtr()};
  capnp::SegmentArrayMessageReader reader(kj::arrayPtr(segments, 1));
  capnp::MallocMessageBuilder builder;
  builder.setRoot(reader.getRoot<schema::ExecutionPlan>());
  EXPECT_FALSE(DecodePlan(WordsToBytes(capnp::messageToFlatArray(builder)), &decoded).ok());
}

}  // namespace
}  // namespace ember

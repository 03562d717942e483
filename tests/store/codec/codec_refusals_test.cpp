// The plan codec's refusals (store/codec/plan_codec.h): plans that break a store invariant, fused
// leaves that do not fit, unknown optimizations, stored numbers this build does not know and bytes
// that are not one canonical message are refused with a Status.
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

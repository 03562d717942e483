// Note [Optimization proof] (store/codec/plan_proof.h): a decoded plan's fused traces must be what
// a fresh fuser makes of the plan's ops. Plans the real explorer makes pass, through both decoders
// (DecodePlan: shared-tier entries; DecodePlanParts: SQLite rows); issue 13's forged traces — one
// byte changed, the blob well formed — are refused by both; and no flipped byte of a stored
// optimization state gets through.
#include "store/codec/plan_proof.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "engine/fuse/builtin_fusers.h"
#include "engine/ir/builders.h"
#include "engine/ir/relative.h"
#include "engine/stream/explorer.h"
#include "store/codec/plan_codec.h"
#include "store/codec/trace_codec.h"
#include "store/repository/plan_row_check.h"
#include "tests/ir/sample_ops.h"
#include "tests/store/forged_plans.h"
#include "tests/store/real_plans.h"

namespace ember {
namespace {

using test::Out;
using test::Rw;
using test::T;

// (x * 0.5 + 3).mean(1) * 2: a Reduce leaf with a Mean and three scalars.
ExecutionPlan MeanPlan() {
  const Shape r = {16, 8}, p = {16, 1};
  return test::ExploredPlan({
      ir::Scalar(OpKind::kMulScalar, T(1, r), ScalarIr::Float(0.5), Out(2, r)),
      ir::Scalar(OpKind::kAddScalar, Rw(2, r), ScalarIr::Float(3.0), Out(3, r)),
      ir::ReduceDim(OpKind::kMeanDim, Rw(3, r), 1, Out(4, p)),
      ir::Scalar(OpKind::kMulScalar, Rw(4, p), ScalarIr::Float(2.0), Out(5, p)),
  });
}

ExecutionPlan SoftmaxPlan() { return test::ExploredPlan(ir_test::SoftmaxProgram()); }

ExecutionPlan MatmulPlan() {
  return test::ExploredPlan({
      ir::Binary(OpKind::kMatmul, T(1, {4, 8}), T(2, {8, 6}), Out(3, {4, 6})),
      ir::Binary(OpKind::kAdd, Rw(3, {4, 6}), T(4, {1, 6}), Out(5, {4, 6})),
      ir::Unary(OpKind::kTanh, Rw(5, {4, 6}), Out(6, {4, 6})),
  });
}

// The seed `(a*b + c*2).exp()` with its inputs dropped: ElementWise with Drop ops.
ExecutionPlan SeedPlan() {
  std::vector<OperationIr> ops = ir_test::SeedProgram(0, {8, 8}, 2.0);
  ops.push_back(ir::Drop(Rw(1, {8, 8})));
  return test::ExploredPlan(ops);
}

// 65 unary ops on a [1, n] row (the 64-op limit then refuses the next one), then one that
// would grow the reference to [m, n]: the ElementWise leaf's trace must not keep the grown
// shape of the op it refused (TraceOpFuser::Fuse), or re-deriving it from its 65 ops differs.
ExecutionPlan LongChainThenBroadcastPlan() {
  const Shape row = {1, 8}, full = {4, 8};
  std::vector<OperationIr> ops;
  ops.push_back(ir::Unary(OpKind::kExp, T(1, row), Out(2, row)));
  for (TensorId id = 2; id < 66; ++id) {
    ops.push_back(ir::Unary(OpKind::kTanh, Rw(id, row), Out(id + 1, row)));
  }
  ops.push_back(ir::Binary(OpKind::kAdd, Rw(66, row), T(100, full), Out(101, full)));
  return test::ExploredPlan(ops);
}

std::vector<ExecutionPlan> ExploredPlans() {
  std::vector<ExecutionPlan> plans;
  plans.push_back(MeanPlan());
  plans.push_back(SoftmaxPlan());
  plans.push_back(MatmulPlan());
  plans.push_back(SeedPlan());
  plans.push_back(LongChainThenBroadcastPlan());
  return plans;
}

void CollectLeaves(const ExecutionStrategy& s, std::vector<const ExecutionStrategy*>* out) {
  if (s.kind == ExecutionStrategy::Kind::kOptimization) out->push_back(&s);
  for (const ExecutionStrategy& child : s.children) CollectLeaves(child, out);
}

std::vector<const ExecutionStrategy*> FusedLeaves(const ExecutionPlan& plan) {
  std::vector<const ExecutionStrategy*> leaves;
  CollectLeaves(plan.optimization.strategy, &leaves);
  return leaves;
}

// Both decoders on `plan` as it would be stored: the whole encoding (a shared-tier entry) and
// its parts (a SQLite row), with `plan_blob` standing for the row's strategy blob.
Status DecodeAsEntry(const std::vector<uint8_t>& encoded, ExecutionPlan* out = nullptr) {
  ExecutionPlan decoded;
  return DecodePlan(encoded, out != nullptr ? out : &decoded);
}

Status DecodeAsRow(const ExecutionPlan& plan, const std::vector<uint8_t>& plan_blob,
                   ExecutionPlan* out = nullptr) {
  ExecutionPlan decoded;
  // OnSync triggers store no ops.
  const std::vector<TriggerRow> triggers = {
      TriggerRow{.kind = static_cast<int>(ExecutionTrigger::Kind::kOnSync), .ops_blob = {}}};
  return DecodePlanParts(EncodeOperations(plan.operations), plan_blob, triggers,
                         out != nullptr ? out : &decoded);
}

std::vector<OptimizationState> States(const ExecutionPlan& plan) {
  std::vector<OptimizationState> states;
  for (const ExecutionStrategy* leaf : FusedLeaves(plan)) {
    states.push_back(leaf->optimization->ToState());
  }
  return states;
}

TEST(PlanProof, EveryExploredPlanIsProvenByBothDecoders) {
  std::set<std::string> kinds;
  for (const ExecutionPlan& plan : ExploredPlans()) {
    EXPECT_TRUE(ProveFusedLeaves(plan).ok()) << ProveFusedLeaves(plan).ToString();
    EXPECT_TRUE(DecodeAsEntry(EncodePlan(plan)).ok()) << DecodeAsEntry(EncodePlan(plan)).ToString();
    const Status row = DecodeAsRow(plan, EncodeBlockOptimization(plan.optimization));
    EXPECT_TRUE(row.ok()) << row.ToString();
    for (const ExecutionStrategy* leaf : FusedLeaves(plan)) {
      kinds.insert(std::string(leaf->optimization->name()));
    }
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"ElementWise", "Matmul", "Reduce", "ReduceBroadcasted"}));
}

TEST(PlanProof, AReferenceShapeGrownByARefusedOpIsNotKept) {
  const ExecutionPlan plan = LongChainThenBroadcastPlan();
  const std::vector<const ExecutionStrategy*> leaves = FusedLeaves(plan);
  ASSERT_FALSE(leaves.empty());
  auto first = std::dynamic_pointer_cast<TraceOptimization>(leaves[0]->optimization);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->len(), 65u);
  EXPECT_EQ(first->trace().blocks.back().shape_ref, plan.operations[0].outputs[0].shape);
}

struct Forgery {
  std::string name;
  std::function<ExecutionPlan()> plan;
  forge::TraceEdit edit;
  bool one_byte;  // see forge::HideAnOutput
};

std::vector<Forgery> IssueForgeries() {
  return {{"Mean made ArgMax", MeanPlan, forge::MeanToArgMax, true},
          {"scalar placeholder redirected", MeanPlan, forge::RedirectScalar, true},
          {"output hidden (not shown by show)", SeedPlan, forge::HideAnOutput, false}};
}

TEST(PlanProof, IssueThirteensOneByteForgeriesAreRefusedByBothDecoders) {
  for (const Forgery& f : IssueForgeries()) {
    SCOPED_TRACE(f.name);
    const ExecutionPlan plan = f.plan();
    const std::vector<uint8_t> genuine = EncodeBlockOptimization(plan.optimization);
    const std::optional<std::vector<uint8_t>> forged = forge::ForgePlanBlob(genuine, f.edit);
    ASSERT_TRUE(forged.has_value());
    if (f.one_byte) {
      EXPECT_EQ(forge::BytesChanged(genuine, *forged), 1u);
    }
    // Well formed: decoding alone accepts it, which is what made it dangerous.
    BlockOptimization block;
    EXPECT_TRUE(DecodeBlockOptimization(*forged, &block).ok());

    const Status row = DecodeAsRow(plan, *forged);
    EXPECT_EQ(row.code(), Status::Code::kCorruption);
    EXPECT_NE(row.message().find("is not what its fuser makes of those ops"), std::string::npos)
        << row.ToString();
    const std::optional<std::vector<uint8_t>> entry = forge::ForgeEncodedPlan(f.plan(), f.edit);
    ASSERT_TRUE(entry.has_value());
    EXPECT_EQ(DecodeAsEntry(*entry).code(), Status::Code::kCorruption);
  }
}

TEST(PlanProof, TheHiddenOutputForgeryListsLikeTheGenuineTrace) {
  const ExecutionPlan plan = SeedPlan();
  auto genuine = std::dynamic_pointer_cast<TraceOptimization>(FusedLeaves(plan)[0]->optimization);
  ASSERT_NE(genuine, nullptr);
  FuseTrace forged = genuine->trace();
  ASSERT_TRUE(forge::HideAnOutput(forged));
  EXPECT_NE(forged, genuine->trace());
  EXPECT_EQ(FormatFuseTrace(forged), FormatFuseTrace(genuine->trace()));
}

TEST(PlanProof, AScoreOrPositionsOtherThanTheFusersAreRefused) {
  ExecutionPlan rescored = MeanPlan();
  std::vector<const ExecutionStrategy*> leaves = FusedLeaves(rescored);
  ASSERT_FALSE(leaves.empty());
  const_cast<ExecutionStrategy*>(leaves[0])->score += 1;
  EXPECT_NE(ProveFusedLeaves(rescored).message().find("score"), std::string::npos);

  // The softmax's fused ops fed in another order: a different trace.
  ExecutionPlan reordered = SoftmaxPlan();
  leaves = FusedLeaves(reordered);
  ASSERT_FALSE(leaves.empty());
  std::vector<size_t>& ordering = const_cast<ExecutionStrategy*>(leaves[0])->ordering;
  ASSERT_GE(ordering.size(), 2u);
  std::swap(ordering[0], ordering[1]);
  EXPECT_EQ(ProveFusedLeaves(reordered).code(), Status::Code::kCorruption);
}

// Every byte of every stored optimization state, flipped in turn (two ways) inside the plan
// blob and inside the encoded plan: each variant is refused, or decodes to leaves whose states
// are byte-identical to the genuine ones and so computes the same. The second kind exists:
// Cap'n Proto's canonical check cannot see bits that no field uses (a struct's data words are
// padded), and decoding ignores them.
TEST(PlanProof, EveryFlippedByteOfAStoredStateIsRefusedOrChangesNothing) {
  size_t variants = 0, refused = 0;
  // Every kind of leaf; the 65-op chain only adds more of ElementWise's bytes.
  for (const ExecutionPlan& plan : {MeanPlan(), SoftmaxPlan(), MatmulPlan(), SeedPlan()}) {
    const std::vector<uint8_t> blob = EncodeBlockOptimization(plan.optimization);
    const std::vector<uint8_t> encoded = EncodePlan(plan);
    const std::vector<OptimizationState> genuine = States(plan);
    auto same_or_refused = [&](Status status, const ExecutionPlan& decoded) {
      ++variants;
      if (!status.ok()) {
        ++refused;
        return true;
      }
      return States(decoded) == genuine && decoded.operations == plan.operations;
    };
    for (const OptimizationState& genuine_state : genuine) {
      const std::vector<uint8_t> state_bytes = EncodeTraceState(genuine_state.trace);
      const auto in_blob =
          std::search(blob.begin(), blob.end(), state_bytes.begin(), state_bytes.end());
      const auto in_entry =
          std::search(encoded.begin(), encoded.end(), state_bytes.begin(), state_bytes.end());
      ASSERT_NE(in_blob, blob.end());
      ASSERT_NE(in_entry, encoded.end());
      for (size_t i = 0; i < state_bytes.size(); ++i) {
        for (uint8_t mask : {uint8_t{0x01}, uint8_t{0xff}}) {
          std::vector<uint8_t> row = blob;
          row[static_cast<size_t>(in_blob - blob.begin()) + i] ^= mask;
          std::vector<uint8_t> entry = encoded;
          entry[static_cast<size_t>(in_entry - encoded.begin()) + i] ^= mask;
          ExecutionPlan from_row, from_entry;
          const Status row_status = DecodeAsRow(plan, row, &from_row);
          EXPECT_TRUE(same_or_refused(row_status, from_row)) << "byte " << i << " ^ " << int{mask};
          const Status entry_status = DecodeAsEntry(entry, &from_entry);
          EXPECT_TRUE(same_or_refused(entry_status, from_entry))
              << "byte " << i << " ^ " << int{mask};
        }
      }
    }
  }
  EXPECT_GT(variants, 4000u);
  // Most flips land in a field, which some check or the proof reads.
  EXPECT_GT(refused, variants * 3 / 4);
}

}  // namespace
}  // namespace ember

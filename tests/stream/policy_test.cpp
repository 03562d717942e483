// burn's policy tests (stream/execution/policy.rs), ported: candidates seeded at the head,
// triggers, sync actions, invalidation.
#include <gtest/gtest.h>

#include "engine/ir/builders.h"
#include "engine/stream/policy.h"
#include "tests/common/ir_builders.h"

namespace ember {
namespace {

// A chain of Log ops t_{k-1} -> t_k, shapes [32,32,1], every tensor NotInit (burn's TestStream).
struct TestStream {
  std::vector<TensorIr> tensors;
  std::vector<OperationIr> operations;

  explicit TestStream(size_t n) {
    for (size_t id = 0; id < n; ++id) NewOp(id + 1);
  }

  void NewOp(TensorId out_id) {
    if (tensors.empty()) tensors.push_back(test::Out(0, {32, 32, 1}));
    tensors.push_back(test::Out(out_id, {32, 32, 1}));
    operations.push_back(
        ir::Unary(OpKind::kLog, tensors[tensors.size() - 2], tensors[tensors.size() - 1]));
  }

  std::vector<OperationIr> Ops(size_t begin, size_t end) const {
    return {operations.begin() + static_cast<std::ptrdiff_t>(begin),
            operations.begin() + static_cast<std::ptrdiff_t>(end)};
  }

  // For each i in [begin, end): update with op i, then the Lazy action about ops [0, i) (one
  // fewer than analyzed, as burn's harness does) must be `expected`.
  void AssertUpdates(const ExecutionPlanStore& store, Policy& policy, size_t begin, size_t end,
                     Action expected) const {
    for (size_t i = begin; i < end; ++i) {
      policy.Update(store, operations[i]);
      const std::span<const OperationIr> seen(operations.data(), i);
      EXPECT_EQ(policy.GetAction(store, seen, ExecutionMode::kLazy), expected) << "at op " << i;
    }
  }
};

ExecutionPlan Plan(std::vector<OperationIr> ops, std::vector<ExecutionTrigger> triggers) {
  const size_t n = ops.size();
  std::vector<size_t> ordering(n);
  for (size_t i = 0; i < n; ++i) ordering[i] = i;
  return ExecutionPlan{std::move(ops), std::move(triggers),
                       BlockOptimization{ExecutionStrategy::Operations(ordering), ordering}};
}

std::vector<ExecutionTrigger> OnEach(const std::vector<OperationIr>& ops) {
  std::vector<ExecutionTrigger> out;
  for (const OperationIr& op : ops) out.push_back(ExecutionTrigger::OnOperations({op}));
  return out;
}

TEST(Policy, GivenNoOptimizationShouldExplore) {
  ExecutionPlanStore store;
  Policy policy;
  TestStream stream(3);
  stream.AssertUpdates(store, policy, 0, 3, Action::Explore());
}

TEST(Policy, GivenExistingOptimizationsWhenSyncShouldExecuteOneWhenAvailable) {
  ExecutionPlanStore store;
  Policy policy;
  TestStream stream(3);
  const PlanId id_1 = store.Add(Plan(stream.Ops(0, 2), {}));
  store.Add(Plan(stream.Ops(0, 3), {}));
  stream.AssertUpdates(store, policy, 0, 2, Action::Defer());
  const std::vector<OperationIr> two = stream.Ops(0, 2);
  EXPECT_EQ(policy.GetAction(store, two, ExecutionMode::kSync), Action::Execute(id_1));
}

TEST(Policy, ShouldNotExecuteAPlanLongerThanTheSegment) {
  ExecutionPlanStore store;
  Policy policy;
  TestStream stream(3);
  const PlanId id = store.Add(Plan(stream.Ops(0, 3), {ExecutionTrigger::Always()}));
  for (size_t i = 0; i < 3; ++i) policy.Update(store, stream.operations[i]);
  const std::vector<OperationIr> three = stream.Ops(0, 3), one = stream.Ops(0, 1);
  EXPECT_EQ(policy.GetAction(store, three, ExecutionMode::kLazy), Action::Execute(id));
  EXPECT_NE(policy.GetAction(store, one, ExecutionMode::kLazy), Action::Execute(id));
}

TEST(Policy, GivenExistingPlanWhenFoundTriggerShouldExecutePlan) {
  ExecutionPlanStore store;
  Policy policy;
  TestStream stream(3);
  const PlanId id = store.Add(Plan(stream.Ops(0, 2), OnEach(stream.Ops(2, 3))));
  stream.AssertUpdates(store, policy, 0, 2, Action::Defer());
  stream.AssertUpdates(store, policy, 2, 3, Action::Execute(id));
}

TEST(Policy, ShouldSupportMultipleTriggers) {
  ExecutionPlanStore store;
  Policy policy_1, policy_2;
  TestStream stream_1(2), stream_2(2);
  stream_1.NewOp(5);
  stream_2.NewOp(6);
  const PlanId id = store.Add(
      Plan(stream_1.Ops(0, 2), {ExecutionTrigger::OnOperations({stream_1.operations[2]}),
                                ExecutionTrigger::OnOperations({stream_2.operations[2]})}));
  stream_1.AssertUpdates(store, policy_1, 0, 2, Action::Defer());
  stream_2.AssertUpdates(store, policy_2, 0, 2, Action::Defer());
  stream_1.AssertUpdates(store, policy_1, 2, 3, Action::Execute(id));  // first trigger
  stream_2.AssertUpdates(store, policy_2, 2, 3, Action::Execute(id));  // second trigger
}

TEST(Policy, ShouldSelectRightOptimization) {
  ExecutionPlanStore store;
  Policy policy_1, policy_2;
  TestStream stream_1(2), stream_2(2);
  stream_1.NewOp(4);
  stream_1.NewOp(5);
  stream_2.NewOp(5);
  stream_2.NewOp(6);
  const PlanId plan_1 = store.Add(Plan(stream_1.Ops(0, 3), OnEach(stream_1.Ops(3, 4))));
  const PlanId plan_2 = store.Add(Plan(stream_2.Ops(0, 3), OnEach(stream_2.Ops(3, 4))));
  ASSERT_NE(plan_1, plan_2);
  stream_1.AssertUpdates(store, policy_1, 0, 3, Action::Defer());
  stream_2.AssertUpdates(store, policy_2, 0, 3, Action::Defer());
  stream_1.AssertUpdates(store, policy_1, 3, 4, Action::Execute(plan_1));
  stream_2.AssertUpdates(store, policy_2, 3, 4, Action::Execute(plan_2));
}

TEST(Policy, ShouldInvalidateWrongOptimizations) {
  ExecutionPlanStore store;
  TestStream stream_1(4), stream_2(2);
  stream_2.NewOp(6);
  stream_2.NewOp(7);
  store.Add(Plan(stream_1.Ops(0, 3), OnEach(stream_1.Ops(3, 4))));
  Policy policy;
  stream_2.AssertUpdates(store, policy, 0, 2, Action::Defer());    // same path as stream 1
  stream_2.AssertUpdates(store, policy, 2, 4, Action::Explore());  // but then different
}

// Beyond burn's suite.

TEST(Policy, CandidatesAreSeededOnlyAtTheHead) {
  ExecutionPlanStore store;
  TestStream stream(3);
  // A plan starting with op 1 never matches when op 1 is not the segment's first op.
  store.Add(Plan(stream.Ops(1, 3), {ExecutionTrigger::Always()}));
  Policy policy;
  stream.AssertUpdates(store, policy, 0, 3, Action::Explore());
}

TEST(Policy, ResetStartsMatchingFromTheNewHead) {
  ExecutionPlanStore store;
  TestStream stream(3);
  const PlanId id = store.Add(Plan(stream.Ops(0, 1), {ExecutionTrigger::Always()}));
  Policy policy;
  policy.Update(store, stream.operations[1]);
  EXPECT_EQ(policy.GetAction(store, stream.Ops(1, 2), ExecutionMode::kLazy), Action::Explore());
  policy.Reset();
  policy.Update(store, stream.operations[0]);
  EXPECT_EQ(policy.GetAction(store, stream.Ops(0, 1), ExecutionMode::kLazy), Action::Execute(id));
}

TEST(Policy, OnSyncTriggerNeverFiresInLazyButSyncExecutesAnExactMatch) {
  ExecutionPlanStore store;
  TestStream stream(3);
  const PlanId id = store.Add(Plan(stream.Ops(0, 2), {ExecutionTrigger::OnSync()}));
  Policy policy;
  for (size_t i = 0; i < 3; ++i) policy.Update(store, stream.operations[i]);
  EXPECT_EQ(policy.GetAction(store, stream.Ops(0, 3), ExecutionMode::kLazy), Action::Explore());
  EXPECT_EQ(policy.GetAction(store, stream.Ops(0, 3), ExecutionMode::kSync), Action::Explore());
  EXPECT_EQ(policy.GetAction(store, stream.Ops(0, 2), ExecutionMode::kSync), Action::Execute(id));
}

TEST(Policy, TriggerIgnoresTheOpThatCompletedThePlan) {
  ExecutionPlanStore store;
  TestStream stream(3);
  // Trigger = [op 2]; the op completing the plan (op 1) must not be compared with it.
  const PlanId id = store.Add(Plan(stream.Ops(0, 2), OnEach(stream.Ops(2, 3))));
  Policy policy;
  policy.Update(store, stream.operations[0]);
  policy.Update(store, stream.operations[1]);
  EXPECT_EQ(policy.GetAction(store, stream.Ops(0, 2), ExecutionMode::kLazy), Action::Defer());
  policy.Update(store, stream.operations[2]);
  EXPECT_EQ(policy.GetAction(store, stream.Ops(0, 3), ExecutionMode::kLazy), Action::Execute(id));
}

TEST(PolicyDeathTest, AskingAboutMoreOpsThanAnalyzedIsABug) {
  ExecutionPlanStore store;
  TestStream stream(2);
  Policy policy;
  policy.Update(store, stream.operations[0]);
  EXPECT_DEATH((void)policy.GetAction(store, stream.Ops(0, 2), ExecutionMode::kLazy),
               "only 1 were analyzed");
}

}  // namespace
}  // namespace ember

// burn's processor/policy/explorer integration tests (burn-fusion's stream/execution/tests.rs),
// ported with the same pattern-matching test fusers (tests/search/test_fusers.h). As in burn,
// the ops are used as is (as if already relative) and assertions look at plans' ops and
// triggers, the executed plan ids and the queue length.
#include <gtest/gtest.h>

#include <deque>

#include "engine/core/check.h"
#include "engine/ir/builders.h"
#include "engine/stream/processor.h"
#include "tests/common/ir_builders.h"
#include "tests/search/test_fusers.h"

namespace ember {
namespace {

using search_test::TestOptimizationFuser;

using test::Out;
using test::Ro;

// Every tensor of these tests is [32, 32] f32, as in burn's.
const Shape kShape = {32, 32};

// All three share tensor id 0, so they always land in one block.
OperationIr Op1() { return ir::Binary(OpKind::kAdd, Ro(0, kShape), Ro(1, kShape), Out(2, kShape)); }
OperationIr Op2() {
  return ir::Scalar(OpKind::kAddScalar, Ro(0, kShape), ScalarIr::Float(5.0), Out(2, kShape));
}
OperationIr Op3() { return ir::Unary(OpKind::kLog, Ro(0, kShape), Out(0, kShape)); }

// burn's TestSegment: executing a plan drains, per leaf, opt.len() ops (fused) or
// ordering.size() ops (unfused) from the front, and records the plan id.
class TestSegment final : public StreamSegment {
 public:
  std::vector<OperationIr> ops;
  std::vector<PlanId> executed;

  std::span<const OperationIr> operations() const override { return ops; }
  void Execute(PlanId id, ExecutionPlanStore& store) override {
    Drain(store.Get(id).optimization.strategy);
    executed.push_back(id);
  }
  void ExecuteUnfused(BlockOptimization optimization) override { Drain(optimization.strategy); }

 private:
  void Drain(const ExecutionStrategy& s) {
    size_t n = 0;
    switch (s.kind) {
      case ExecutionStrategy::Kind::kOptimization: n = s.optimization->len(); break;
      case ExecutionStrategy::Kind::kOperations: n = s.ordering.size(); break;
      case ExecutionStrategy::Kind::kComposed:
        for (const ExecutionStrategy& child : s.children) Drain(child);
        return;
    }
    EMBER_CHECK(n <= ops.size(), "draining {} of {}", n, ops.size());
    ops.erase(ops.begin(), ops.begin() + static_cast<std::ptrdiff_t>(n));
  }
};

struct TestStream {
  ExecutionPlanStore store;
  TestSegment segment;
  Processor processor;

  explicit TestStream(std::vector<std::unique_ptr<OperationFuser>> fusers,
                      SearchSettings settings = {5, std::nullopt})
      : processor(std::move(fusers), settings) {}

  void Add(OperationIr op) {
    segment.ops.push_back(std::move(op));
    processor.Process(segment, store, ExecutionMode::kLazy);
  }
  void Sync() { processor.Process(segment, store, ExecutionMode::kSync); }

  size_t queued() const { return segment.ops.size(); }
  size_t executions() const { return segment.executed.size(); }
  PlanId last_executed() const { return segment.executed.back(); }

  void AssertPlan(PlanId id, const std::vector<OperationIr>& ops,
                  const std::vector<ExecutionTrigger>& triggers) const {
    ASSERT_LT(id, store.size());
    EXPECT_EQ(store.Get(id).operations, ops) << "plan #" << id;
    EXPECT_EQ(store.Get(id).triggers, triggers) << "plan #" << id;
  }
};

std::vector<std::unique_ptr<OperationFuser>> Builders(
    std::vector<std::pair<size_t, std::vector<OperationIr>>> specs) {
  std::vector<std::unique_ptr<OperationFuser>> out;
  for (auto& [id, ops] : specs) {
    out.push_back(std::make_unique<TestOptimizationFuser>(id, std::move(ops)));
  }
  return out;
}

using Trig = ExecutionTrigger;

TEST(ProcessorExecution, ShouldSupportComplexStream) {
  TestStream s(Builders({{0, {Op1(), Op2()}}, {1, {Op2(), Op2()}}}));
  s.Add(Op1());
  EXPECT_EQ(s.queued(), 1u);
  EXPECT_EQ(s.executions(), 0u);
  s.Add(Op1());
  EXPECT_EQ(s.queued(), 0u);
  EXPECT_EQ(s.executions(), 1u);
  s.AssertPlan(0, {Op1(), Op1()}, {Trig::Always()});
  s.Add(Op1());
  EXPECT_EQ(s.queued(), 1u);
  s.Add(Op2());
  EXPECT_EQ(s.queued(), 0u);
  EXPECT_EQ(s.executions(), 2u);
  s.AssertPlan(1, {Op1(), Op2()}, {Trig::Always()});
  s.Add(Op2());
  EXPECT_EQ(s.queued(), 1u);
  s.Add(Op2());
  EXPECT_EQ(s.queued(), 0u);
  EXPECT_EQ(s.executions(), 3u);
  s.AssertPlan(2, {Op2(), Op2()}, {Trig::Always()});
  s.Add(Op1());
  EXPECT_EQ(s.queued(), 1u);
  s.Add(Op2());
  EXPECT_EQ(s.queued(), 0u);
  EXPECT_EQ(s.executions(), 4u);
  EXPECT_EQ(s.last_executed(), 1u);
  s.AssertPlan(1, {Op1(), Op2()}, {Trig::Always()});
  s.Add(Op2());
  EXPECT_EQ(s.queued(), 1u);
  s.Add(Op2());
  EXPECT_EQ(s.queued(), 0u);
  EXPECT_EQ(s.executions(), 5u);
  EXPECT_EQ(s.last_executed(), 2u);
  EXPECT_EQ(s.store.size(), 3u);
}

TEST(ProcessorExecution, ShouldReuseBasicOperations) {
  TestStream s(Builders({{0, {Op1(), Op2()}}}));
  s.Add(Op3());
  EXPECT_EQ(s.queued(), 0u);
  s.AssertPlan(0, {Op3()}, {Trig::Always()});
  s.Add(Op3());
  EXPECT_EQ(s.queued(), 0u);
  EXPECT_EQ(s.last_executed(), 0u);
  s.AssertPlan(0, {Op3()}, {Trig::Always()});
  s.Add(Op1());
  EXPECT_EQ(s.queued(), 1u);
  s.Add(Op3());
  EXPECT_EQ(s.queued(), 0u);
  s.AssertPlan(1, {Op1(), Op3()}, {Trig::Always()});
  EXPECT_EQ(s.last_executed(), 1u);
}

TEST(ProcessorExecution, ShouldSupportOverlappingOptimizations) {
  TestStream s(Builders({{0, {Op1(), Op2()}}, {0, {Op1(), Op2(), Op1(), Op1()}}}));
  s.Add(Op1());
  s.Add(Op2());
  s.Add(Op1());
  EXPECT_EQ(s.queued(), 3u);
  EXPECT_EQ(s.executions(), 0u);
  s.Add(Op2());
  EXPECT_EQ(s.queued(), 2u);
  EXPECT_EQ(s.executions(), 1u);
  s.AssertPlan(0, {Op1(), Op2()}, {Trig::OnOperations({Op1(), Op2()})});
  s.Add(Op2());
  EXPECT_EQ(s.queued(), 0u);
  EXPECT_EQ(s.executions(), 3u);
  s.AssertPlan(0, {Op1(), Op2()},
               {Trig::OnOperations({Op1(), Op2()}), Trig::OnOperations({Op2()})});
  s.AssertPlan(1, {Op2()}, {Trig::Always()});
  s.Add(Op1());
  s.Add(Op2());
  s.Add(Op1());
  EXPECT_EQ(s.queued(), 3u);
  EXPECT_EQ(s.executions(), 3u);
  s.Add(Op1());
  EXPECT_EQ(s.queued(), 0u);
  EXPECT_EQ(s.executions(), 4u);
  s.AssertPlan(2, {Op1(), Op2(), Op1(), Op1()}, {Trig::Always()});
  s.Add(Op1());
  s.Add(Op2());
  s.Add(Op1());
  EXPECT_EQ(s.queued(), 3u);
  EXPECT_EQ(s.executions(), 4u);
  s.Sync();
  EXPECT_EQ(s.queued(), 0u);
  EXPECT_EQ(s.executions(), 5u);
  s.AssertPlan(3, {Op1(), Op2(), Op1()}, {Trig::OnSync()});
  // Derived from the rules (burn's literal is not checked there): B0 fuses the first two ops,
  // the third runs unfused.
  const ExecutionPlan& plan3 = s.store.Get(3);
  EXPECT_EQ(plan3.optimization.ordering, (std::vector<size_t>{0, 1, 2}));
  ASSERT_EQ(plan3.optimization.strategy.kind, ExecutionStrategy::Kind::kComposed);
  ASSERT_EQ(plan3.optimization.strategy.children.size(), 2u);
  EXPECT_EQ(plan3.optimization.strategy.children[0].kind, ExecutionStrategy::Kind::kOptimization);
  EXPECT_EQ(plan3.optimization.strategy.children[1], ExecutionStrategy::Operations({2}));
  s.AssertPlan(0, {Op1(), Op2()},
               {Trig::OnOperations({Op1(), Op2()}), Trig::OnOperations({Op2()})});
  s.Add(Op3());
  s.AssertPlan(4, {Op3()}, {Trig::Always()});
  EXPECT_EQ(s.last_executed(), 4u);
  s.Add(Op3());
  EXPECT_EQ(s.last_executed(), 4u);
  EXPECT_EQ(s.store.size(), 5u);
}

TEST(ProcessorExecution, ShouldReuseSyncPlanOnNextPass) {
  TestStream s(Builders({{0, {Op1(), Op2()}}, {1, {Op1(), Op2(), Op3(), Op1()}}}));
  s.Add(Op1());
  s.Add(Op2());
  s.Add(Op3());
  EXPECT_EQ(s.executions(), 0u);
  s.Sync();
  EXPECT_EQ(s.queued(), 0u);
  EXPECT_EQ(s.executions(), 1u);
  s.AssertPlan(0, {Op1(), Op2(), Op3()}, {Trig::OnSync()});
  EXPECT_EQ(s.processor.num_explorations(), 1u);
  s.Add(Op1());
  s.Add(Op2());
  s.Add(Op3());
  EXPECT_EQ(s.executions(), 1u);
  s.Sync();
  EXPECT_EQ(s.queued(), 0u);
  EXPECT_EQ(s.executions(), 2u);
  EXPECT_EQ(s.last_executed(), 0u);
  s.AssertPlan(0, {Op1(), Op2(), Op3()}, {Trig::OnSync()});
  EXPECT_EQ(s.processor.num_explorations(), 1u);
}

TEST(ProcessorExecution, ExplorationCapOfZeroRunsUnfusedAndStoresNothing) {
  ExecutionPlanStore store;
  TestSegment segment;
  Processor processor(Builders({{0, {Op1(), Op2()}}}), SearchSettings{5, 0});
  for (OperationIr op : {Op1(), Op2(), Op3()}) {
    segment.ops.push_back(op);
    processor.Process(segment, store, ExecutionMode::kLazy);
  }
  EXPECT_TRUE(segment.ops.empty());
  EXPECT_EQ(store.size(), 0u);
  EXPECT_TRUE(segment.executed.empty()) << "unfused runs are not plan executions";
  EXPECT_EQ(processor.num_explorations(), 0u);
}

TEST(ProcessorExecution, ExplorationCapStopsExploringButKeepsHittingThePlans) {
  ExecutionPlanStore store;
  TestSegment segment;
  Processor processor(Builders({}), SearchSettings{5, 1});
  auto add = [&](OperationIr op) {
    segment.ops.push_back(std::move(op));
    processor.Process(segment, store, ExecutionMode::kLazy);
  };
  add(Op3());  // explored: plan 0
  EXPECT_EQ(store.size(), 1u);
  add(Op1());  // a miss past the cap: unfused, not stored
  EXPECT_EQ(store.size(), 1u);
  add(Op3());  // still a hit
  EXPECT_EQ(segment.executed, (std::vector<PlanId>{0, 0}));
  EXPECT_EQ(processor.num_explorations(), 1u);
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

TEST(ProcessorExecution, FusionOffRunsEveryOpAtOnceAndStoresNothing) {
  ExecutionPlanStore store;
  TestSegment segment;
  SearchSettings settings;
  settings.fusion_enabled = false;
  Processor processor(Builders({{0, {Op1(), Op2()}}}), settings);
  for (OperationIr op : {Op1(), Op2(), Op1()}) {
    segment.ops.push_back(op);
    processor.Process(segment, store, ExecutionMode::kLazy);
    EXPECT_TRUE(segment.ops.empty()) << "an op waited with fusion off";
  }
  processor.Process(segment, store, ExecutionMode::kSync);
  EXPECT_EQ(store.size(), 0u);
  EXPECT_EQ(processor.num_explorations(), 0u);
  EXPECT_EQ(processor.counters().explorations, 0u);
}

TEST(ProcessorExecution, CountersCountExplorationsAndCacheHits) {
  TestStream s(Builders({{0, {Op1(), Op2()}}}));
  s.Add(Op1());
  s.Add(Op2());  // explored, plan 0
  s.Add(Op1());
  s.Add(Op2());  // hit through Always
  EXPECT_EQ(s.processor.counters().explorations, 1u);
  EXPECT_EQ(s.processor.counters().cache_hits, 1u);
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

OperationIr Chain(OpKind kind, TensorId in, TensorId out) {
  return ir::Unary(kind, Ro(in, kShape), Out(out, kShape));
}

// Head settling (Note [Head settling]) at a sync (Note [Sync tail]): a block whose head cannot fuse
// settles only the head; the fusable rest trails the segment. By burn's rule (the default) it is
// appended unfused, as one Operations leaf; with search_sync_tail it is searched again and fuses.
const OperationIr kLog = Chain(OpKind::kLog, 0, 1), kExp = Chain(OpKind::kExp, 1, 2),
                  kSqrt = Chain(OpKind::kSqrt, 2, 3), kTanh = Chain(OpKind::kTanh, 3, 4),
                  kCos = Chain(OpKind::kCos, 10, 11), kSin = Chain(OpKind::kSin, 1, 5);

// F0 fuses [sqrt, tanh]; F1 starts on log and closes on exp (the unfusable head); F2 keeps cos's
// block open until the sync.
std::string SyncPlanWithASettledHead(bool search_sync_tail) {
  TestStream s(Builders({{0, {kSqrt, kTanh}}, {1, {kLog, kSin}}, {2, {kCos, kCos, kCos}}}),
               SearchSettings{.max_blocks = 5, .search_sync_tail = search_sync_tail});
  for (const OperationIr& op : {kCos, kLog, kExp, kSqrt, kTanh}) s.Add(op);
  EXPECT_EQ(s.queued(), 5u) << "cos's block keeps the explorer waiting";
  s.Sync();
  EXPECT_EQ(s.queued(), 0u);
  s.AssertPlan(0, {kCos, kLog, kExp, kSqrt, kTanh}, {Trig::OnSync()});
  EXPECT_EQ(s.store.Get(0).optimization.ordering, (std::vector<size_t>{0, 1, 2, 3, 4}));
  return search_test::Describe(s.store.Get(0).optimization.strategy);
}

TEST(ProcessorExecution, HeadSettlingAtSyncAppendsTheTrailingRestUnfusedAsBurn) {
  EXPECT_EQ(SyncPlanWithASettledHead(false), "Composed[Ops[0], Ops[1,2], Ops[3,4]]");
}

TEST(ProcessorExecution, HeadSettlingAtSyncFusesTheTrailingRestWhenTheTailIsSearched) {
  EXPECT_EQ(SyncPlanWithASettledHead(true), "Composed[Ops[0], Ops[1,2], Opt(b0,n2,[3,4],s2)]");
}

}  // namespace
}  // namespace ember

// burn's plan index tests (stream/store/index.rs) and the store's trigger rules.
#include <gtest/gtest.h>

#include "engine/ir/builders.h"
#include "engine/stream/plan_store.h"
#include "tests/common/ir_builders.h"

namespace ember {
namespace {

using test::Out;
using test::Ro;
using test::Rw;

const Shape kShape = {1, 2};

OperationIr LogOp(TensorId in, TensorId out) {
  return ir::Unary(OpKind::kLog, Ro(in, kShape), Out(out, kShape));
}
OperationIr ExpOp(TensorId in, TensorId out) {
  return ir::Unary(OpKind::kExp, Ro(in, kShape), Out(out, kShape));
}

std::vector<PlanId> Ids(std::span<const PlanId> ids) { return {ids.begin(), ids.end()}; }

ExecutionPlan PlanOf(std::vector<OperationIr> ops) {
  return ExecutionPlan{std::move(ops),
                       {ExecutionTrigger::Always()},
                       BlockOptimization{ExecutionStrategy::Operations({0}), {0}}};
}

TEST(ExecutionPlanIndex, SingleInsertThenFind) {
  ExecutionPlanIndex index;
  index.Insert(LogOp(0, 1), 0);
  EXPECT_EQ(Ids(index.Find(LogOp(0, 1))), (std::vector<PlanId>{0}));
}

TEST(ExecutionPlanIndex, TwoPlansWithTheSameFirstOp) {
  ExecutionPlanIndex index;
  index.Insert(LogOp(0, 1), 0);
  index.Insert(LogOp(0, 1), 1);
  EXPECT_EQ(Ids(index.Find(LogOp(0, 1))), (std::vector<PlanId>{0, 1}));
}

TEST(ExecutionPlanIndex, DifferentFirstOpsAreKeptApart) {
  ExecutionPlanIndex index;
  index.Insert(LogOp(0, 1), 0);
  index.Insert(ExpOp(0, 1), 1);
  EXPECT_EQ(Ids(index.Find(LogOp(0, 1))), (std::vector<PlanId>{0}));
  EXPECT_EQ(Ids(index.Find(ExpOp(0, 1))), (std::vector<PlanId>{1}));
  EXPECT_TRUE(index.Find(LogOp(0, 2)).empty());
}

TEST(ExecutionPlanIndex, StatusIsPartOfTheKey) {
  ExecutionPlanIndex index;
  index.Insert(ir::Unary(OpKind::kLog, Rw(0, kShape), Ro(1, kShape)), 0);
  EXPECT_TRUE(index.Find(LogOp(0, 1)).empty());
}

TEST(ExecutionPlanStore, AddIndexesTheFirstOpAndKeepsIdsDense) {
  ExecutionPlanStore store;
  EXPECT_EQ(store.Add(PlanOf({LogOp(0, 1), ExpOp(1, 2)})), 0u);
  EXPECT_EQ(store.Add(PlanOf({LogOp(0, 1)})), 1u);
  EXPECT_EQ(store.Add(PlanOf({ExpOp(0, 1)})), 2u);
  EXPECT_EQ(Ids(store.PlansStartingWith(LogOp(0, 1))), (std::vector<PlanId>{0, 1}));
  EXPECT_EQ(store.size(), 3u);
}

TEST(ExecutionPlanStore, TriggersAreAppendOnlyAndDeduplicated) {
  ExecutionPlanStore store;
  const PlanId id = store.Add(PlanOf({LogOp(0, 1)}));
  store.AddTrigger(id, ExecutionTrigger::OnOperations({ExpOp(1, 2)}));
  store.AddTrigger(id, ExecutionTrigger::Always());
  store.AddTrigger(id, ExecutionTrigger::OnOperations({ExpOp(1, 2)}));
  store.AddTrigger(id, ExecutionTrigger::OnSync());
  store.AddTrigger(id, ExecutionTrigger::OnSync());
  const std::vector<ExecutionTrigger> expected = {ExecutionTrigger::Always(),
                                                  ExecutionTrigger::OnOperations({ExpOp(1, 2)}),
                                                  ExecutionTrigger::OnSync()};
  EXPECT_EQ(store.Get(id).triggers, expected);
}

TEST(ExecutionPlanStoreDeathTest, EmptyPlanIsABug) {
  ExecutionPlanStore store;
  EXPECT_DEATH(store.Add(PlanOf({})), "at least one op");
}

class ShapeIds final : public Optimization {
 public:
  explicit ShapeIds(std::optional<size_t> id) : id_(id) {}
  void Execute(Context&, OrderedExecution&) override {}
  size_t len() const override { return 1; }
  std::string_view name() const override { return "ShapeIds"; }
  std::optional<size_t> max_relative_shape_id() const override { return id_; }
  OptimizationState ToState() const override { return {"ShapeIds", {}}; }

 private:
  std::optional<size_t> id_;
};

TEST(ExecutionStrategy, ReportsTheHighestRelativeShapeIdItHolds) {
  const ExecutionStrategy strategy = ExecutionStrategy::Composed(
      {ExecutionStrategy::Operations({0, 1}),
       ExecutionStrategy::Fused(std::make_shared<ShapeIds>(4), {0, 1}, 0),
       ExecutionStrategy::Fused(std::make_shared<ShapeIds>(7), {2}, 0)});
  EXPECT_EQ(strategy.MaxRelativeShapeId(), std::optional<size_t>(7));
}

TEST(ExecutionStrategy, OperationsOnlyStrategyNamesNoRelativeShapeId) {
  EXPECT_EQ(ExecutionStrategy::Operations({0, 1, 2}).MaxRelativeShapeId(), std::nullopt);
}

TEST(BlockOptimization, IncludeTrailingWrapsASingleStrategyAndExtendsTheOrdering) {
  BlockOptimization opt{ExecutionStrategy::Fused(std::make_shared<ShapeIds>(1), {1, 0}, 3), {1, 0}};
  opt.IncludeTrailing(4);
  EXPECT_EQ(opt.ordering, (std::vector<size_t>{1, 0, 2, 3}));
  ASSERT_EQ(opt.strategy.kind, ExecutionStrategy::Kind::kComposed);
  ASSERT_EQ(opt.strategy.children.size(), 2u);
  EXPECT_EQ(opt.strategy.children[1], ExecutionStrategy::Operations({2, 3}));
  EXPECT_EQ(opt.strategy.FlatOrdering(), opt.ordering);
  opt.IncludeTrailing(5);  // a composed strategy gets the tail as one more child
  EXPECT_EQ(opt.strategy.children.size(), 3u);
  EXPECT_EQ(opt.strategy.NumLeaves(), 3u);
}

}  // namespace
}  // namespace ember

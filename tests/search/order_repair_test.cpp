// RepairOrder: the repair tests of burn's search/optimization/stream.rs (:659-764).
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "engine/core/log.h"
#include "engine/search/order_repair.h"
#include "tests/search/graph_test_util.h"
#include "tests/search/test_fusers.h"

namespace ember {
namespace {

using graph_test::Add;
using graph_test::AddRw;
using search_test::Composed;
using search_test::Describe;
using search_test::Ops;
using search_test::Opt;
using Positions = std::vector<size_t>;

ExecutionStrategy Fused(Positions ordering) {
  const size_t size = ordering.size();
  return ExecutionStrategy::Fused(std::make_shared<search_test::TestOptimization>(0, size),
                                  std::move(ordering), 0);
}

BlockOptimization Plan(ExecutionStrategy strategy, Positions ordering) {
  return BlockOptimization{.strategy = std::move(strategy), .ordering = std::move(ordering)};
}

TEST(OrderRepair, SplitsUnfusedProduceFreeChunkInsteadOfUnfusingEverything) {
  const std::vector<OperationIr> ops = {
      Add(1, 2, 10),     // 0: produces 10 (unfused chunk)
      Add(10, 3, 100),   // 1: fused, reads 10
      Add(100, 4, 101),  // 2: fused
      AddRw(10, 5, 11),  // 3: frees 10 (same unfused chunk as op 0)
  };
  const BlockOptimization repaired = RepairOrder(
      Plan(ExecutionStrategy::Composed({Fused({1, 2}), ExecutionStrategy::Operations({0, 3})}),
           {1, 2, 0, 3}),
      ops);
  EXPECT_EQ(repaired.ordering, (Positions{0, 1, 2, 3}));
  EXPECT_EQ(Describe(repaired.strategy), Composed({Ops({0}), Opt(0, 2, {1, 2}, 0), Ops({3})}));
}

TEST(OrderRepair, ReordersChunksByDependency) {
  const std::vector<OperationIr> ops = {Add(1, 2, 5), Add(5, 3, 10), Add(10, 4, 20)};
  const BlockOptimization repaired = RepairOrder(
      Plan(ExecutionStrategy::Composed({ExecutionStrategy::Operations({2}), Fused({0, 1})}),
           {2, 0, 1}),
      ops);
  EXPECT_EQ(repaired.ordering, (Positions{0, 1, 2}));
  EXPECT_EQ(Describe(repaired.strategy), Composed({Opt(0, 2, {0, 1}, 0), Ops({2})}));
}

TEST(OrderRepair, FallsBackToUnfusedWhenFusedChunksCycle) {
  ScopedLogCapture capture(LogLevel::kMedium);
  const std::vector<OperationIr> ops = {
      Add(1, 2, 10),   // 0: chunk A, produces 10
      Add(10, 6, 20),  // 1: chunk B, reads 10, produces 20
      Add(20, 7, 21),  // 2: chunk B
      Add(20, 5, 11),  // 3: chunk A, reads 20
  };
  const BlockOptimization repaired = RepairOrder(
      Plan(ExecutionStrategy::Composed({Fused({0, 3}), Fused({1, 2})}), {0, 3, 1, 2}), ops);
  EXPECT_EQ(repaired.ordering, (Positions{0, 1, 2, 3}));
  EXPECT_EQ(Describe(repaired.strategy), Ops({0, 1, 2, 3}));
  EXPECT_EQ(capture.lines(),
            std::vector<std::string>{"[repair] falling back to unfused stream order (4 ops)"});
}

TEST(OrderRepair, SingleStrategyWithInvalidOrderUnfuses) {
  const std::vector<OperationIr> ops = {Add(1, 2, 10), Add(10, 3, 11)};
  const BlockOptimization repaired = RepairOrder(Plan(Fused({1, 0}), {1, 0}), ops);
  EXPECT_EQ(repaired.ordering, (Positions{0, 1}));
  EXPECT_EQ(Describe(repaired.strategy), Ops({0, 1}));
}

TEST(OrderRepair, SingleStrategyWithValidOrderPassesThrough) {
  const std::vector<OperationIr> ops = {Add(1, 2, 10), Add(10, 3, 11)};
  const BlockOptimization repaired = RepairOrder(Plan(Fused({0, 1}), {0, 1}), ops);
  EXPECT_EQ(repaired.ordering, (Positions{0, 1}));
  EXPECT_EQ(Describe(repaired.strategy), Opt(0, 2, {0, 1}, 0));
}

TEST(OrderRepair, NestedComposedChildIsOneChunk) {
  // A hole strategy may itself be Composed: it moves as one chunk (its share of the ordering
  // is the sum of its leaves).
  const std::vector<OperationIr> ops = {Add(1, 2, 5), Add(5, 3, 10), Add(10, 4, 20)};
  const BlockOptimization repaired = RepairOrder(
      Plan(ExecutionStrategy::Composed(
               {ExecutionStrategy::Operations({2}),
                ExecutionStrategy::Composed({ExecutionStrategy::Operations({0}), Fused({1})})}),
           {2, 0, 1}),
      ops);
  EXPECT_EQ(repaired.ordering, (Positions{0, 1, 2}));
  EXPECT_EQ(Describe(repaired.strategy),
            Composed({Composed({Ops({0}), Opt(0, 1, {1}, 0)}), Ops({2})}));
}

}  // namespace
}  // namespace ember

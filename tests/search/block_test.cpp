// Block: registration, data-flow sets, Optimize's choice and truncation, and the merge
// acceptance tests of burn's search/block.rs (:577-638).
#include <gtest/gtest.h>

#include <memory>
#include <utility>
#include <vector>

#include "engine/search/block.h"
#include "tests/search/graph_test_util.h"
#include "tests/search/test_fusers.h"

namespace ember {
namespace {

using graph_test::Add;
using graph_test::AddRw;
using search_test::Composed;
using search_test::Describe;
using search_test::Fusers;
using search_test::Ops;
using search_test::Opt;

// burn's block_with_pattern: one test fuser for `pattern`, the ops registered with force.
Block BlockWithPattern(const std::vector<OperationIr>& pattern,
                       const std::vector<std::pair<OperationIr, size_t>>& ops) {
  const auto fusers = Fusers({pattern});
  Block block(fusers);
  for (const auto& [op, position] : ops) block.Register(op, position, /*force=*/true);
  return block;
}

TEST(Block, AcceptsOnlyOpsSharingATensorUnlessForced) {
  const auto fusers = Fusers({});
  Block block(fusers);
  EXPECT_EQ(block.Register(Add(1, 2, 3), 0, false), RegistrationResult::kAccepted);
  EXPECT_EQ(block.Register(Add(7, 8, 9), 1, false), RegistrationResult::kNotPartOfTheGraph);
  // A shared read-only input is enough.
  EXPECT_EQ(block.Register(Add(2, 4, 5), 2, false), RegistrationResult::kAccepted);
  EXPECT_EQ(block.Register(Add(7, 8, 9), 3, true), RegistrationResult::kAccepted);
  EXPECT_EQ(block.ordering(), (std::vector<size_t>{0, 2, 3}));
  EXPECT_EQ(block.start_pos(), 0u);
  EXPECT_EQ(block.end_pos(), 4u);
}

TEST(Block, DataFlowFollowsRegisterOp) {
  const auto fusers = Fusers({});
  Block block(fusers);
  block.Register(Add(1, 2, 3), 4, true);
  block.Register(AddRw(3, 5, 6), 5, true);
  const DataFlow flow = block.Flow();
  EXPECT_EQ(flow.produced, (std::vector<TensorId>{3, 6}));
  EXPECT_EQ(flow.read, (std::vector<TensorId>{1, 2, 5}));
  EXPECT_EQ(flow.freed, (std::vector<TensorId>{3}));  // freed even though produced inside
  EXPECT_EQ(flow.position, 4u);
}

TEST(Block, ReadBecomesInternalWhenALaterOpProducesIt) {
  const auto fusers = Fusers({});
  Block block(fusers);
  block.Register(Add(50, 1, 2), 0, true);
  block.Register(Add(3, 4, 50), 1, true);
  EXPECT_EQ(block.Flow().read, (std::vector<TensorId>{1, 3, 4}));
}

TEST(Block, OptimizePicksStrictlyHighestScoreAndFirstOnTies) {
  const OperationIr a1 = Add(100, 101, 102);
  const OperationIr a2 = Add(102, 103, 104);
  const auto fusers = Fusers({{a1}, {a1, a2}, {a1, a2}});
  Block block(fusers);
  block.Register(a1, 0, false);
  block.Register(a2, 1, false);
  EXPECT_EQ(Describe(block.Optimize().strategy), Opt(1, 2, {0, 1}, 2));
}

TEST(Block, OptimizeTruncatesToTheOptimizationLengthInRegistrationOrder) {
  const OperationIr a1 = Add(100, 101, 102);
  const OperationIr a2 = Add(102, 103, 104);
  const OperationIr a3 = Add(104, 105, 106);
  const auto fusers = Fusers({{a1, a2}});
  Block block(fusers);
  block.Register(a1, 3, true);
  block.Register(a2, 1, true);
  block.Register(a3, 2, true);
  const BlockOptimization result = block.Optimize();
  EXPECT_EQ(result.ordering, (std::vector<size_t>{3, 1}));
  EXPECT_EQ(Describe(result.strategy), Opt(0, 2, {3, 1}, 2));
}

TEST(Block, MapOrderingRewritesEveryLeaf) {
  BlockOptimization opt{.strategy = ExecutionStrategy::Composed(
                            {ExecutionStrategy::Operations({0}),
                             ExecutionStrategy::Composed({ExecutionStrategy::Operations({2, 1})})}),
                        .ordering = {0, 2, 1}};
  const std::vector<size_t> holes = {3, 5, 9};
  MapOrdering(opt, holes);
  EXPECT_EQ(opt.ordering, (std::vector<size_t>{3, 9, 5}));
  EXPECT_EQ(Describe(opt.strategy), Composed({Ops({3}), Composed({Ops({9, 5})})}));
}

TEST(BlockMerge, RejectsConsumerFusedBeforeProducer) {
  const OperationIr x = Add(1, 2, 10);
  const OperationIr y = Add(50, 3, 11);  // reads 50 ...
  const OperationIr z = Add(4, 5, 50);   // ... which z produces
  // The pattern would accept [x, y, z]: only the order check can refuse.
  const std::vector<OperationIr> pattern = {x, y, z, x};
  Block base = BlockWithPattern(pattern, {{x, 0}, {y, 1}});
  const Block producer = BlockWithPattern(pattern, {{z, 2}});
  EXPECT_FALSE(base.CanAppend(producer));
  EXPECT_FALSE(base.Merge(producer));
}

TEST(BlockMerge, AcceptsProducerFusedBeforeConsumer) {
  const OperationIr x = Add(1, 2, 10);
  const OperationIr y = Add(50, 3, 11);
  const OperationIr z = Add(4, 5, 50);
  const std::vector<OperationIr> pattern = {z, x, y, x};
  const Block consumers = BlockWithPattern(pattern, {{x, 0}, {y, 1}});
  Block base = BlockWithPattern(pattern, {{z, 2}});
  EXPECT_TRUE(base.Merge(consumers));
  EXPECT_EQ(base.ordering(), (std::vector<size_t>{2, 0, 1}));
}

TEST(BlockMerge, RejectsFreeFusedBeforeRead) {
  const OperationIr reader = Add(100, 1, 2);
  const OperationIr freer = AddRw(100, 3, 4);
  const std::vector<OperationIr> pattern = {freer, reader, reader};
  Block base = BlockWithPattern(pattern, {{freer, 1}});
  const Block other = BlockWithPattern(pattern, {{reader, 0}});
  EXPECT_FALSE(base.Merge(other));
}

TEST(BlockMerge, RefusedWhenBothSidesAreAlreadyReady) {
  const OperationIr a1 = Add(100, 101, 102);
  const OperationIr b1 = Add(200, 201, 202);
  const auto fusers = Fusers({{a1}, {b1}});
  Block a(fusers);
  a.Register(a1, 0, false);
  Block b(fusers);
  b.Register(b1, 1, false);
  EXPECT_FALSE(a.Merge(b));
}

TEST(BlockMerge, AcceptedWhenItCreatesAReadyFusion) {
  const OperationIr a1 = Add(100, 101, 102);
  const OperationIr b1 = Add(200, 201, 202);
  const auto fusers = Fusers({{a1, b1}});
  Block a(fusers);
  a.Register(a1, 0, false);
  Block b(fusers);
  b.Register(b1, 1, false);
  EXPECT_TRUE(a.Merge(b));
  EXPECT_TRUE(a.HasReadyOptimization());
  EXPECT_FALSE(a.StillOptimizing());
}

}  // namespace
}  // namespace ember

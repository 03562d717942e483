// The dependency scenarios of burn's search/block.rs tests (:516-576) that are pure graph
// questions: blocks become DataFlows with burn's Block sets (graph_test::BlockFlow), and the Dag
// and its Reachability answer. The merge tests of block.rs need fusers and live with Block.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "engine/search/graph/dag.h"
#include "tests/search/graph_test_util.h"

namespace ember {
namespace {

using graph_test::Add;
using graph_test::AddRw;
using graph_test::BlockFlow;
using Order = std::optional<std::vector<size_t>>;

// An expected topological order (a braced list would pick optional's explicit constructors).
Order Seq(std::vector<size_t> order) { return order; }

TEST(BlockDependencies, DependencyBeatsStartPosInTopologicalOrder) {
  // Block 0 (start 0) reads 50, which block 1 (start 5) produces.
  const std::vector<DataFlow> blocks = {
      BlockFlow({{Add(50, 1, 2), 0}}),
      BlockFlow({{Add(9, 8, 50), 5}}),
  };
  EXPECT_EQ(Dag(blocks).TopologicalOrder(), Seq({1, 0}));
}

TEST(BlockDependencies, MutualDependencyBetweenBlocksIsACycle) {
  // Block 0 produces 100 (read by block 1) and reads 200 (produced by block 1).
  const std::vector<DataFlow> blocks = {
      BlockFlow({{Add(1, 2, 100), 0}, {Add(200, 3, 101), 1}}),
      BlockFlow({{Add(100, 4, 200), 2}}),
  };
  EXPECT_FALSE(Dag(blocks).IsAcyclic());
}

TEST(BlockDependencies, FreeingBlockRunsAfterReadingBlock) {
  // Both read 100 from elsewhere: block 0 ReadOnly, block 1 ReadWrite (its last use).
  const std::vector<DataFlow> blocks = {
      BlockFlow({{Add(100, 1, 2), 0}}),
      BlockFlow({{AddRw(100, 3, 4), 1}}),
  };
  const Dag dag(blocks);
  EXPECT_TRUE(dag.DependsOn(1, 0));
  EXPECT_FALSE(dag.DependsOn(0, 1));
  EXPECT_EQ(dag.TopologicalOrder(), Seq({0, 1}));
}

TEST(BlockDependencies, FreeingBlockWaitsForReaderEvenWhenItStartsEarlier) {
  // The same hazard with the freeing block first in stream order (as after a merge moved
  // start positions): the write-after-read edge, not the position, decides.
  const std::vector<DataFlow> blocks = {
      BlockFlow({{AddRw(100, 3, 4), 0}}),
      BlockFlow({{Add(100, 1, 2), 6}}),
  };
  EXPECT_EQ(Dag(blocks).TopologicalOrder(), Seq({1, 0}));
}

TEST(BlockDependencies, MergeGuardBlocksContractionAroundIntermediateBlock) {
  // A (0) → C (1) → B (2).
  const std::vector<DataFlow> blocks = {
      BlockFlow({{Add(1, 2, 100), 0}}),
      BlockFlow({{Add(100, 3, 200), 1}}),
      BlockFlow({{Add(200, 4, 300), 2}}),
  };
  // Seeded constituents: block i stands for node i.
  const std::vector<SubGraph> constituents = {SubGraph::Single(0), SubGraph::Single(1),
                                              SubGraph::Single(2)};
  const Reachability guard = Dag(blocks).Reachability();
  EXPECT_FALSE(guard.CanContract(constituents[0], constituents[2]));
  EXPECT_TRUE(guard.CanContract(constituents[0], constituents[1]));
  EXPECT_TRUE(guard.CanContract(constituents[1], constituents[2]));
}

TEST(BlockDependencies, MergeGuardRefusesUnseededBlocks) {
  const std::vector<DataFlow> blocks = {
      BlockFlow({{Add(1, 2, 3), 0}}),
      BlockFlow({{Add(4, 5, 6), 1}}),
  };
  const SubGraph unseeded;
  const Reachability guard = Dag(blocks).Reachability();
  EXPECT_FALSE(guard.CanContract(unseeded, unseeded));
}

TEST(BlockDependencies, BlockSetsFollowRegisterOpRules) {
  // 3 = 1 + 2; 4 = 3(rw) + 1: 3 is produced inside (not an external read) yet still freed.
  const DataFlow block = BlockFlow({{Add(1, 2, 3), 4}, {AddRw(3, 1, 4), 7}});
  EXPECT_EQ(block.produced, (std::vector<TensorId>{3, 4}));
  EXPECT_EQ(block.read, (std::vector<TensorId>{1, 2}));
  EXPECT_EQ(block.freed, (std::vector<TensorId>{3}));
  EXPECT_EQ(block.position, 4u);
}

}  // namespace
}  // namespace ember

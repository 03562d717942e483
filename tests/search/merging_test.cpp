// MergeBlocks: burn's search/merging.rs tests (:325-509). Builders are [op1 x10] and
// [op2 x10]; blocks are seeded with their index and guarded by the Dag of all of them.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "engine/search/merging.h"
#include "tests/search/graph_test_util.h"
#include "tests/search/test_fusers.h"

namespace ember {
namespace {

using graph_test::Add;
using graph_test::kShape;
using search_test::Fusers;
using test::Out;
using test::Ro;
using Positions = std::vector<std::vector<size_t>>;

// burn's operation_1/2/3 (stream/execution/tests.rs): all on tensors 0 -> 2 (op3: 0 -> 0).
OperationIr Op1() { return Add(0, 1, 2); }
OperationIr Op2() {
  return ir::Scalar(OpKind::kAddScalar, Ro(0, kShape), ScalarIr::Float(5.0), Out(2, kShape));
}
OperationIr Op3() { return ir::Unary(OpKind::kLog, Ro(0, kShape), Out(0, kShape)); }

std::vector<std::unique_ptr<OperationFuser>> Builders() {
  return Fusers({std::vector<OperationIr>(10, Op1()), std::vector<OperationIr>(10, Op2())});
}

// One block per entry: the ops at the given positions.
std::vector<Block> Blocks(const std::vector<std::unique_ptr<OperationFuser>>& fusers,
                          const std::vector<std::vector<std::pair<OperationIr, size_t>>>& specs) {
  std::vector<Block> blocks;
  for (const auto& spec : specs) {
    Block block(fusers);
    for (const auto& [op, position] : spec) block.Register(op, position, false);
    blocks.push_back(std::move(block));
  }
  return blocks;
}

// burn's merge(): seed, guard over all blocks, merge sorted.
MergeBlocksResult Merge(std::vector<Block>& blocks) {
  std::vector<const Block*> refs;
  for (size_t i = 0; i < blocks.size(); ++i) {
    blocks[i].SeedConstituent(i);
    refs.push_back(&blocks[i]);
  }
  const std::vector<DataFlow> flows = BlockFlows(std::span<const Block>(blocks));
  const Reachability guard = Dag(flows).Reachability();
  return MergeBlocks(refs, /*sorted=*/true, guard);
}

std::vector<size_t> Sorted(std::vector<size_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

Positions Sets(const std::vector<Block>& blocks) {
  Positions out;
  for (const Block& block : blocks) out.push_back(Sorted(block.ordering()));
  return out;
}

TEST(MergeBlocks, NoBlockFails) {
  std::vector<Block> blocks;
  EXPECT_EQ(Merge(blocks).kind, MergeBlocksResult::Kind::kFail);
}

TEST(MergeBlocks, SingleBlockIsFull) {
  const auto fusers = Builders();
  std::vector<Block> blocks = Blocks(fusers, {{{Op1(), 0}}});
  const MergeBlocksResult result = Merge(blocks);
  ASSERT_EQ(result.kind, MergeBlocksResult::Kind::kFull);
  EXPECT_EQ(Sets(result.merged), (Positions{{0}}));
}

TEST(MergeBlocks, TwoBlocksMergeFully) {
  const auto fusers = Builders();
  std::vector<Block> blocks = Blocks(fusers, {{{Op1(), 0}, {Op1(), 1}}, {{Op1(), 2}, {Op1(), 3}}});
  const MergeBlocksResult result = Merge(blocks);
  ASSERT_EQ(result.kind, MergeBlocksResult::Kind::kFull);
  EXPECT_EQ(result.merged[0].ordering(), (std::vector<size_t>{0, 1, 2, 3}));
}

TEST(MergeBlocks, ThreeBlocksMergeFully) {
  const auto fusers = Builders();
  std::vector<Block> blocks = Blocks(fusers, {{{Op1(), 0}}, {{Op1(), 1}}, {{Op1(), 2}}});
  const MergeBlocksResult result = Merge(blocks);
  ASSERT_EQ(result.kind, MergeBlocksResult::Kind::kFull);
  EXPECT_EQ(Sets(result.merged), (Positions{{0, 1, 2}}));
}

TEST(MergeBlocks, ThreeBlocksPartial) {
  const auto fusers = Builders();
  std::vector<Block> blocks = Blocks(fusers, {{{Op1(), 0}}, {{Op2(), 1}}, {{Op1(), 2}}});
  const MergeBlocksResult result = Merge(blocks);
  ASSERT_EQ(result.kind, MergeBlocksResult::Kind::kPartial);
  EXPECT_EQ(Sets(result.merged), (Positions{{0, 2}, {1}}));
  EXPECT_TRUE(result.failed.empty());
}

TEST(MergeBlocks, FourBlocksPartialWithFailure) {
  // op3 reads and produces t0: it fails the lifetime check in both directions.
  const auto fusers = Builders();
  std::vector<Block> blocks =
      Blocks(fusers, {{{Op1(), 0}}, {{Op2(), 1}}, {{Op1(), 2}}, {{Op3(), 3}}});
  const MergeBlocksResult result = Merge(blocks);
  ASSERT_EQ(result.kind, MergeBlocksResult::Kind::kPartial);
  EXPECT_EQ(Sets(result.merged), (Positions{{0, 2}}));
  EXPECT_EQ(Sets(result.failed), (Positions{{1}, {3}}));
}

TEST(MergeBlocks, FiveBlocksPartialWithFailure) {
  const auto fusers = Builders();
  std::vector<Block> blocks =
      Blocks(fusers, {{{Op1(), 0}}, {{Op2(), 1}}, {{Op1(), 2}}, {{Op3(), 3}}, {{Op2(), 4}}});
  const MergeBlocksResult result = Merge(blocks);
  ASSERT_EQ(result.kind, MergeBlocksResult::Kind::kPartial);
  EXPECT_EQ(Sets(result.merged), (Positions{{0, 2}, {1, 4}}));
  EXPECT_EQ(Sets(result.failed), (Positions{{3}}));
}

TEST(MergeBlocks, AccumulatorReversesDirection) {
  const OperationIr x = Add(1, 2, 10);
  const OperationIr y = Add(50, 3, 11);  // reads 50 ...
  const OperationIr z = Add(4, 5, 50);   // ... which z produces
  const OperationIr w = Add(6, 7, 12);   // independent
  // Accepts exactly the reversed merge order [z, x, y, w].
  const auto fusers = Fusers({{z, x, y, w, x}});
  std::vector<Block> blocks;
  blocks.emplace_back(fusers);
  blocks.back().Register(x, 0, true);
  blocks.back().Register(y, 5, true);
  blocks.emplace_back(fusers);
  blocks.back().Register(z, 3, true);
  blocks.emplace_back(fusers);
  blocks.back().Register(w, 6, true);
  const MergeBlocksResult result = Merge(blocks);
  ASSERT_EQ(result.kind, MergeBlocksResult::Kind::kFull);
  EXPECT_EQ(result.merged[0].ordering(), (std::vector<size_t>{3, 0, 5, 6}));
}

TEST(MergeBlocks, MergeTwoRefusesWhenTheGuardForbidsContraction) {
  // b sits between a and c: a -> b -> c. Contracting a and c would make a cycle with b.
  // An always-Open fuser: any merge the guard lets through would be accepted.
  std::vector<std::unique_ptr<OperationFuser>> fusers;
  fusers.push_back(std::make_unique<search_test::NeverReadyFuser>());
  std::vector<Block> blocks =
      Blocks(fusers, {{{Add(1, 2, 10), 0}}, {{Add(10, 3, 20), 1}}, {{Add(20, 4, 30), 2}}});
  for (size_t i = 0; i < blocks.size(); ++i) blocks[i].SeedConstituent(i);
  const Reachability guard = Dag(BlockFlows(std::span<const Block>(blocks))).Reachability();
  EXPECT_FALSE(MergeTwo(blocks[0], blocks[2], guard).has_value());
  EXPECT_TRUE(MergeTwo(blocks[0], blocks[1], guard).has_value());
}

}  // namespace
}  // namespace ember

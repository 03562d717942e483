// StreamOptimizer + BlocksOptimizer: burn-fusion's search/optimization/tests.rs and the stop
// paths of search/optimization/stream.rs (:770-826), with head settling
// (Note [Head settling], engine/search/block.h) in force.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/log.h"
#include "engine/ir/builders.h"
#include "engine/search/stream_optimizer.h"
#include "tests/search/graph_test_util.h"
#include "tests/search/test_fusers.h"

namespace ember {
namespace {

using graph_test::Add;
using graph_test::AddRw;
using graph_test::kShape;
using search_test::Composed;
using search_test::Describe;
using search_test::Fusers;
using search_test::Ops;
using search_test::Opt;
using test::Out;
using test::Ro;
using Patterns = std::vector<std::vector<OperationIr>>;
using Positions = std::vector<size_t>;

constexpr std::optional<size_t> kDefaultMaxBlocks = 5;

// Chain A, chain B (disjoint ids), as in burn's tests.
const OperationIr a1 = Add(100, 101, 102);
const OperationIr a2 = Add(102, 103, 104);
const OperationIr a3 = Add(104, 105, 106);
const OperationIr b1 = Add(200, 201, 202);
const OperationIr b2 = Add(202, 203, 204);

StreamOptimizer Optimizer(const Patterns& patterns,
                          std::optional<size_t> max_blocks = kDefaultMaxBlocks) {
  return StreamOptimizer(Fusers(patterns), max_blocks);
}

BlockOptimization RunStream(const std::vector<OperationIr>& ops, const Patterns& patterns) {
  StreamOptimizer optimizer = Optimizer(patterns);
  for (const OperationIr& op : ops) optimizer.Register(op);
  return optimizer.Optimize(ops);
}

TEST(StreamOptimizer, SingleBlockFusesFullStream) {
  const BlockOptimization res = RunStream({a1, a2}, {{a1, a2}});
  EXPECT_EQ(res.ordering, (Positions{0, 1}));
  EXPECT_EQ(Describe(res.strategy), Opt(0, 2, {0, 1}, 2));
}

TEST(StreamOptimizer, ContiguousIndependentBlocksFuseBoth) {
  const BlockOptimization res = RunStream({a1, a2, b1, b2}, {{a1, a2}, {b1, b2}});
  EXPECT_EQ(res.ordering, (Positions{0, 1, 2, 3}));
  EXPECT_EQ(Describe(res.strategy), Composed({Opt(0, 2, {0, 1}, 2), Opt(1, 2, {2, 3}, 2)}));
}

TEST(StreamOptimizer, InterleavedIndependentBlocksFuseBoth) {
  const BlockOptimization res = RunStream({a1, b1, a2, b2}, {{a1, a2}, {b1, b2}});
  EXPECT_EQ(res.ordering, (Positions{0, 2, 1, 3}));
  EXPECT_EQ(Describe(res.strategy), Composed({Opt(0, 2, {0, 2}, 2), Opt(1, 2, {1, 3}, 2)}));
}

TEST(StreamOptimizer, InterleavedBlocksWithMergedPatternFusesFull) {
  const BlockOptimization res = RunStream({a1, b1, a2, b2}, {{a1, a2, b1, b2}});
  EXPECT_EQ(res.ordering, (Positions{0, 2, 1, 3}));
  EXPECT_EQ(Describe(res.strategy), Opt(0, 4, {0, 2, 1, 3}, 4));
}

TEST(StreamOptimizer, InterleavedBlocksSingleBuilderPreservesOtherOps) {
  // Block B: its fuser closes on b1 and no fresh fuser starts on b2, so the head is all of B.
  const BlockOptimization res = RunStream({a1, b1, a2, b2}, {{a1, a2}});
  EXPECT_EQ(res.ordering, (Positions{0, 2, 1, 3}));
  EXPECT_EQ(Describe(res.strategy), Composed({Opt(0, 2, {0, 2}, 2), Ops({1, 3})}));
}

TEST(StreamOptimizer, WithinBlockOrderIsNotReordered) {
  // burn 0.22-pre.2 expects Ops[0,1]. With head settling the fuser closes on a1 and a fresh
  // fuser would start on a2 (the pattern [a2, a1] begins with it), so only a1 is settled; a2 is
  // the trailing tail, left for the next round. Either way nothing is reordered in a block.
  const BlockOptimization res = RunStream({a1, a2}, {{a2, a1}});
  EXPECT_EQ(res.ordering, (Positions{0}));
  EXPECT_EQ(Describe(res.strategy), Ops({0}));
}

TEST(StreamOptimizer, PatternLongerThanStreamStaysOptimizing) {
  StreamOptimizer optimizer = Optimizer({{a1, a2, a3}});
  optimizer.Register(a1);
  optimizer.Register(a2);
  EXPECT_TRUE(optimizer.StillOptimizing());
  // The fuser never closed: no head boundary, the whole block runs unfused.
  const BlockOptimization res = optimizer.Optimize(std::vector<OperationIr>{a1, a2});
  EXPECT_EQ(res.ordering, (Positions{0, 1}));
  EXPECT_EQ(Describe(res.strategy), Ops({0, 1}));
}

TEST(StreamOptimizer, ReadyAndOpenCoexistKeepsOptimizing) {
  StreamOptimizer optimizer = Optimizer({{a1, a2}, {a1, a2, a3}});
  optimizer.Register(a1);
  optimizer.Register(a2);
  EXPECT_TRUE(optimizer.StillOptimizing());
  const BlockOptimization res = optimizer.Optimize(std::vector<OperationIr>{a1, a2});
  EXPECT_EQ(res.ordering, (Positions{0, 1}));
  EXPECT_EQ(Describe(res.strategy), Opt(0, 2, {0, 1}, 2));
}

TEST(StreamOptimizer, CommitPicksHighestScoreReadyBuilder) {
  StreamOptimizer optimizer = Optimizer({{a1, a2}, {a1, a2, a3}});
  for (const OperationIr& op : {a1, a2, a3}) optimizer.Register(op);
  EXPECT_FALSE(optimizer.StillOptimizing());
  const BlockOptimization res = optimizer.Optimize(std::vector<OperationIr>{a1, a2, a3});
  EXPECT_EQ(res.ordering, (Positions{0, 1, 2}));
  EXPECT_EQ(Describe(res.strategy), Opt(1, 3, {0, 1, 2}, 3));
}

TEST(StreamOptimizer, AllClosedWithoutReadyBailsOut) {
  StreamOptimizer optimizer = Optimizer({{a1, b1}});
  optimizer.Register(a1);
  optimizer.Register(a2);
  EXPECT_FALSE(optimizer.StillOptimizing());
  // The fuser closed on a2 (the last op): the head is the whole block.
  const BlockOptimization res = optimizer.Optimize(std::vector<OperationIr>{a1, a2});
  EXPECT_EQ(res.ordering, (Positions{0, 1}));
  EXPECT_EQ(Describe(res.strategy), Ops({0, 1}));
}

TEST(StreamOptimizer, PatternStraddlesIncompleteMergedBlocks) {
  StreamOptimizer optimizer = Optimizer({{a1, a2, b1, b2}});
  optimizer.Register(a1);
  optimizer.Register(b1);
  optimizer.Register(a2);
  EXPECT_TRUE(optimizer.StillOptimizing());
  // The merged block registered [a1 (0), a2 (2), b1 (1)].
  const BlockOptimization res = optimizer.Optimize(std::vector<OperationIr>{a1, b1, a2});
  EXPECT_EQ(res.ordering, (Positions{0, 2, 1}));
  EXPECT_EQ(Describe(res.strategy), Ops({0, 2, 1}));
}

TEST(StreamOptimizer, DependentBlockCreatedInsteadOfStopping) {
  const OperationIr c = Add(104, 204, 105);  // reads A's 104 and B's 204
  StreamOptimizer optimizer = Optimizer({{a1, a2}, {b1, b2}});
  const std::vector<OperationIr> ops = {a1, a2, b1, b2, c};
  for (const OperationIr& op : ops) optimizer.Register(op);
  EXPECT_FALSE(optimizer.stopped());
  EXPECT_EQ(optimizer.num_blocks(), 3u);
  const BlockOptimization res = optimizer.Optimize(ops);
  EXPECT_EQ(res.ordering, (Positions{0, 1, 2, 3, 4}));
  EXPECT_EQ(Describe(res.strategy),
            Composed({Opt(0, 2, {0, 1}, 2), Opt(1, 2, {2, 3}, 2), Ops({4})}));
}

TEST(StreamOptimizer, DependentOpAtMaxBlocksStopsWhenNoMergePossible) {
  const OperationIr c = Add(104, 204, 105);
  StreamOptimizer optimizer = Optimizer({{a1, a2}, {b1, b2}}, /*max_blocks=*/2);
  for (const OperationIr& op : {a1, a2, b1, b2}) optimizer.Register(op);
  EXPECT_FALSE(optimizer.stopped());
  // Both blocks hold a ready fusion: force-merging frees no slot.
  optimizer.Register(c);
  EXPECT_TRUE(optimizer.stopped());
  EXPECT_FALSE(optimizer.StillOptimizing());
  const BlockOptimization res = optimizer.Optimize(std::vector<OperationIr>{a1, a2, b1, b2});
  EXPECT_EQ(res.ordering, (Positions{0, 1, 2, 3}));
  EXPECT_EQ(Describe(res.strategy), Composed({Opt(0, 2, {0, 1}, 2), Opt(1, 2, {2, 3}, 2)}));
}

TEST(StreamOptimizer, DependentOpCreatingACycleStopsSegment) {
  // burn drives on_dependent_op directly; here the op also touches block B so that it reaches
  // the dependent path through Register. It reads 1 (freed by A) and 3 (produced by A).
  const OperationIr a = AddRw(1, 2, 3);
  const OperationIr b = Add(10, 11, 12);
  const OperationIr n =
      ir::MaskWhere(Ro(1, kShape), Ro(3, kShape), Ro(10, kShape), Out(20, kShape));
  StreamOptimizer optimizer = Optimizer({}, std::nullopt);
  optimizer.Register(a);
  optimizer.Register(b);
  EXPECT_EQ(optimizer.num_blocks(), 2u);
  optimizer.Register(n);
  EXPECT_TRUE(optimizer.stopped());
  EXPECT_EQ(optimizer.num_blocks(), 2u);  // the cyclic block was rejected
  // Later ops are dropped until Reset.
  optimizer.Register(Add(30, 31, 32));
  EXPECT_EQ(optimizer.num_blocks(), 2u);
  optimizer.Reset();
  EXPECT_FALSE(optimizer.stopped());
  EXPECT_EQ(optimizer.num_blocks(), 0u);
  EXPECT_TRUE(optimizer.StillOptimizing());
}

TEST(StreamOptimizer, IndependentOpAtMaxBlocksStopsWhenForceMergeFails) {
  StreamOptimizer optimizer = Optimizer({{a1, a2}, {b1, b2}}, /*max_blocks=*/2);
  for (const OperationIr& op : {a1, a2, b1, b2}) optimizer.Register(op);
  optimizer.Register(Add(300, 301, 302));
  EXPECT_TRUE(optimizer.stopped());
  EXPECT_EQ(optimizer.num_blocks(), 2u);
}

TEST(StreamOptimizer, IndependentOpAtMaxBlocksForceMergesToFreeASlot) {
  // Neither block is ready, and the merge creates the ready [a1, b1] fusion.
  const OperationIr c1 = Add(300, 301, 302);
  StreamOptimizer optimizer = Optimizer({{a1, b1}}, /*max_blocks=*/2);
  for (const OperationIr& op : {a1, b1, c1}) optimizer.Register(op);
  EXPECT_FALSE(optimizer.stopped());
  EXPECT_EQ(optimizer.num_blocks(), 2u);
  const BlockOptimization res = optimizer.Optimize(std::vector<OperationIr>{a1, b1, c1});
  EXPECT_EQ(Describe(res.strategy), Composed({Opt(0, 2, {0, 1}, 2), Ops({2})}));
}

TEST(StreamOptimizer, MaxBlocksOneForcesEveryOpIntoOneBlock) {
  StreamOptimizer optimizer = Optimizer({{a1, b1, a2}}, /*max_blocks=*/1);
  const std::vector<OperationIr> ops = {a1, b1, a2};
  for (const OperationIr& op : ops) optimizer.Register(op);
  EXPECT_EQ(optimizer.num_blocks(), 1u);
  EXPECT_FALSE(optimizer.stopped());
  const BlockOptimization res = optimizer.Optimize(ops);
  EXPECT_EQ(Describe(res.strategy), Opt(0, 3, {0, 1, 2}, 3));
}

TEST(StreamOptimizer, SeventyBlocksAreOrderedThroughTheSpilledReachability) {
  // 70 independent ops (70 blocks, no cap; the guard's subgraphs spill past 64 nodes), then
  // ops linking block 2 with block 67 and the result with block 69: dependent blocks.
  std::vector<OperationIr> ops;
  for (TensorId i = 0; i < 70; ++i) ops.push_back(Add(10 * i + 1000, 10 * i + 1001, 10 * i + 1002));
  ops.push_back(Add(1022, 1672, 5000));
  ops.push_back(Add(5000, 1692, 5001));
  StreamOptimizer optimizer = Optimizer({{Add(1, 1, 1)}}, std::nullopt);
  for (const OperationIr& op : ops) optimizer.Register(op);
  EXPECT_FALSE(optimizer.stopped());
  EXPECT_EQ(optimizer.num_blocks(), 72u);
  const BlockOptimization res = optimizer.Optimize(ops);
  Positions expected(72);
  std::iota(expected.begin(), expected.end(), size_t{0});
  EXPECT_EQ(res.ordering, expected);
  EXPECT_EQ(res.strategy.kind, ExecutionStrategy::Kind::kComposed);
  EXPECT_EQ(res.strategy.children.size(), 72u);
}

TEST(StreamOptimizer, LogsBurnsSearchMessages) {
  ScopedLogCapture capture(LogLevel::kFull);
  const OperationIr c = Add(104, 204, 105);
  RunStream({a1, a2, b1, b2, c}, {{a1, a2}, {b1, b2}});
  const std::vector<std::string> lines = capture.lines();
  const auto has = [&](const std::string& line) {
    return std::find(lines.begin(), lines.end(), line) != lines.end();
  };
  EXPECT_TRUE(has("[stream] op 0 NumericFloat::Add → new block (total: 1)"));
  EXPECT_TRUE(has("[stream] op 1 NumericFloat::Add → accepted in 1/1 block(s)"));
  EXPECT_TRUE(has("[stream] op 2 NumericFloat::Add → new block (total: 2)"));
  EXPECT_TRUE(has("[stream] op 4 NumericFloat::Add → new dependent block (total: 3)"));
  EXPECT_TRUE(has("selected composed strategy (3 sub-strategies)"));
}

TEST(StreamOptimizer, LogsTheStopAtMaxBlocks) {
  ScopedLogCapture capture(LogLevel::kFull);
  StreamOptimizer optimizer = Optimizer({{a1, a2}, {b1, b2}}, /*max_blocks=*/2);
  for (const OperationIr& op : {a1, a2, b1, b2}) optimizer.Register(op);
  optimizer.Register(Add(300, 301, 302));
  optimizer.Register(Add(400, 401, 402));
  const std::vector<std::string> lines = capture.lines();
  EXPECT_NE(std::find(lines.begin(), lines.end(),
                      "[stream] stopped (max_blocks=2 reached) at op 4 (NumericFloat::Add)"),
            lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(),
                      "[stream] NumericFloat::Add dropped (optimizer stopped at op 4)"),
            lines.end());
}

}  // namespace
}  // namespace ember

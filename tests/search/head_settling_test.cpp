// Head settling (Note [Head settling], engine/search/block.h): a block whose fusers yield no plan
// settles only its head unfused and leaves the rest for the next round.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "engine/ir/builders.h"
#include "engine/search/block.h"
#include "engine/search/stream_optimizer.h"
#include "tests/search/graph_test_util.h"
#include "tests/search/test_fusers.h"

namespace ember {
namespace {

using graph_test::Add;
using graph_test::kShape;
using search_test::Composed;
using search_test::Describe;
using search_test::Fusers;
using search_test::Ops;
using search_test::Opt;
using test::Out;
using test::Ro;
using Positions = std::vector<size_t>;

OperationIr Exp(TensorId in, TensorId out) {
  return ir::Unary(OpKind::kExp, Ro(in, kShape), Out(out, kShape));
}
OperationIr Reshape(TensorId in, TensorId out) {
  return ir::Unary(OpKind::kReshape, Ro(in, kShape), Out(out, {1024}));
}

// The backward-pass head: a lone elementwise op, a view of its own output, then a chain.
const OperationIr e0 = Exp(1, 2);
const OperationIr r1 = Reshape(2, 3);
const OperationIr c2 = Add(3, 4, 5);
const OperationIr c3 = Exp(5, 6);
// An "elementwise" fuser: takes e0, cannot take the view of its own output (closes on r1).
const std::vector<OperationIr> kElementwise = {e0, Exp(2, 99)};
// A fuser for the chain after the view.
const std::vector<OperationIr> kChain = {c2, c3};

BlockOptimization Explore(const std::vector<OperationIr>& ops,
                          const std::vector<std::vector<OperationIr>>& patterns,
                          std::optional<size_t> max_blocks = 5) {
  StreamOptimizer optimizer(Fusers(patterns), max_blocks);
  for (const OperationIr& op : ops) optimizer.Register(op);
  return optimizer.Optimize(ops);
}

TEST(HeadSettling, SettlesOnlyTheUnfusableHeadAndFusesTheChainNextRound) {
  const std::vector<OperationIr> ops = {e0, r1, c2, c3};
  const BlockOptimization first = Explore(ops, {kElementwise, kChain});
  // Not the old Ops[0,1,2,3]: e0 and the view run unfused, the chain stays queued.
  EXPECT_EQ(first.ordering, (Positions{0, 1}));
  EXPECT_EQ(Describe(first.strategy), Ops({0, 1}));

  // Next round: the remaining ops form the new segment (positions from 0 again).
  const std::vector<OperationIr> rest(ops.begin() + 2, ops.end());
  const BlockOptimization second = Explore(rest, {kElementwise, kChain});
  EXPECT_EQ(second.ordering, (Positions{0, 1}));
  EXPECT_EQ(Describe(second.strategy), Opt(1, 2, {0, 1}, 2));
}

TEST(HeadSettling, HeadLengthIsTheLastCloseOpInclusive) {
  const auto fusers = Fusers({kElementwise, kChain});
  Block block(fusers);
  for (size_t i = 0; const OperationIr& op : {e0, r1, c2, c3}) block.Register(op, i++, false);
  // kChain closed on e0 (op 0), kElementwise on r1 (op 1); a fresh kChain starts on c2.
  EXPECT_EQ(block.SettledHeadLength(), 2u);
}

TEST(HeadSettling, HeadExtendsOverOpsNoFreshFuserWouldStart) {
  const OperationIr x2 = Exp(3, 7);  // no fuser starts on it
  const OperationIr d3 = Add(3, 8, 9);
  const OperationIr d4 = Exp(9, 10);
  const std::vector<OperationIr> ops = {e0, r1, x2, d3, d4};
  const BlockOptimization first = Explore(ops, {kElementwise, {d3, d4}});
  EXPECT_EQ(first.ordering, (Positions{0, 1, 2}));
  EXPECT_EQ(Describe(first.strategy), Ops({0, 1, 2}));
}

TEST(HeadSettling, NoFusersSettleTheWholeBlock) {
  const std::vector<OperationIr> ops = {e0, r1, c2, c3};
  const BlockOptimization result = Explore(ops, {});
  EXPECT_EQ(Describe(result.strategy), Ops({0, 1, 2, 3}));
}

TEST(HeadSettling, FuserClosedBeforeTheFirstOpSetsNoBoundary) {
  // An empty pattern is Closed from the start (and ready with score 0, never chosen).
  const std::vector<OperationIr> ops = {e0, r1, c2, c3};
  const BlockOptimization result = Explore(ops, {{}, kElementwise, kChain});
  EXPECT_EQ(Describe(result.strategy), Ops({0, 1}));
}

TEST(HeadSettling, UnsettledOpsBeforeAnotherBlockBecomeHolesAndFuse) {
  // Block A = {e0@0, r1@1, c2@3, c3@4}; block B = {b1@2, b2@5} fuses. A's head is {0, 1}; 3 and
  // 4 lie before B's last position, so they are holes, searched again at once, and fuse.
  const OperationIr b1 = Add(200, 201, 202);
  const OperationIr b2 = Add(202, 203, 204);
  const std::vector<OperationIr> ops = {e0, r1, b1, c2, c3, b2};
  const BlockOptimization result = Explore(ops, {kElementwise, kChain, {b1, b2}});
  EXPECT_EQ(result.ordering, (Positions{0, 1, 2, 5, 3, 4}));
  EXPECT_EQ(Describe(result.strategy),
            Composed({Ops({0, 1}), Opt(2, 2, {2, 5}, 2), Opt(1, 2, {3, 4}, 2)}));
}

TEST(HeadSettling, EveryRoundMakesProgressUntilTheSegmentIsDrained) {
  // Replays the processor: optimize, drain the covered prefix, start again on the rest.
  std::vector<OperationIr> queue = {e0, r1, Exp(3, 7), c2, c3, Exp(6, 11)};
  size_t rounds = 0;
  while (!queue.empty()) {
    ASSERT_LT(rounds, queue.size() + 10u);
    const BlockOptimization plan = Explore(queue, {kElementwise, kChain});
    ASSERT_FALSE(plan.ordering.empty());
    Positions sorted = plan.ordering;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], i);  // a prefix
    queue.erase(queue.begin(), queue.begin() + static_cast<ptrdiff_t>(plan.ordering.size()));
    ++rounds;
  }
  EXPECT_LE(rounds, 4u);
}

// Ready with a positive score on `target`, but its optimization covers no op: a buggy fuser
// that would make the hole search loop forever without the progress guard.
class ZeroLengthFuser : public OperationFuser {
 public:
  explicit ZeroLengthFuser(OperationIr target) : target_(std::move(target)) {}
  void Fuse(const OperationIr& op) override {
    if (!first_) first_ = op;
  }
  std::shared_ptr<Optimization> Finish() override {
    return std::make_shared<search_test::TestOptimization>(7, 0);
  }
  void Reset() override { first_.reset(); }
  FuserStatus status() const override { return FuserStatus::kClosed; }
  FuserProperties properties() const override {
    if (first_ && *first_ == target_) return {.score = 5, .ready = true};
    return {};
  }
  size_t len() const override { return 0; }
  std::unique_ptr<OperationFuser> Clone() const override {
    return std::make_unique<ZeroLengthFuser>(*this);
  }

 private:
  OperationIr target_;
  std::optional<OperationIr> first_;
};

TEST(HeadSettling, HoleSearchThatConsumesNothingStillProgresses) {
  const OperationIr a1 = Add(100, 101, 102);
  const OperationIr b1 = Add(200, 201, 202);
  const OperationIr b2 = Add(202, 203, 204);
  std::vector<std::unique_ptr<OperationFuser>> fusers;
  fusers.push_back(std::make_unique<ZeroLengthFuser>(a1));
  fusers.push_back(std::make_unique<search_test::TestOptimizationFuser>(1, std::vector{b1, b2}));
  StreamOptimizer optimizer(std::move(fusers), 5);
  const std::vector<OperationIr> ops = {a1, b1, b2};
  for (const OperationIr& op : ops) optimizer.Register(op);
  const BlockOptimization result = optimizer.Optimize(ops);
  Positions sorted = result.ordering;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (Positions{0, 1, 2}));
  // Block A's zero-length fusion covers nothing, so position 0 is a hole; its search covers
  // nothing either, and the guard runs it unfused.
  EXPECT_EQ(Describe(result.strategy),
            Composed({"Opt(b7,n0,[],s5)", Ops({0}), Opt(1, 2, {1, 2}, 2)}));
}

}  // namespace
}  // namespace ember

// IsValidExecutionOrder (burn's search/graph/lifetime.rs): the `lifetime` module of burn's graph
// tests.rs with the same expectations, then the corners of the rule as burn implements it.
#include "engine/search/graph/lifetime.h"

#include <gtest/gtest.h>

#include <vector>

#include "engine/ir/builders.h"
#include "tests/search/graph_test_util.h"

namespace ember {
namespace {

using graph_test::Add;
using graph_test::AddRw;
using graph_test::kShape;
using graph_test::Node;
using graph_test::Raw;
using test::Rw;

bool Valid(const std::vector<DataFlow>& nodes, const std::vector<size_t>& order) {
  return IsValidExecutionOrder(nodes, order);
}

// --- burn: lifetime -----------------------------------------------------------------------

TEST(Lifetime, ProgramOrderIsValid) {
  const std::vector<DataFlow> nodes = {
      Node({.position = 0, .produces = {10}, .reads = {1}}),
      Node({.position = 1, .produces = {11}, .frees = {10}}),
  };
  EXPECT_TRUE(Valid(nodes, {0, 1}));
}

TEST(Lifetime, ReadBeforeProduceIsInvalid) {
  const std::vector<DataFlow> nodes = {
      Node({.position = 0, .produces = {10}, .reads = {1}}),
      Node({.position = 1, .produces = {11}, .reads = {10}}),
  };
  EXPECT_FALSE(Valid(nodes, {1, 0}));
}

TEST(Lifetime, ReadAfterFreeIsInvalid) {
  const std::vector<DataFlow> nodes = {
      Node({.position = 0, .produces = {10}, .frees = {1}}),
      Node({.position = 1, .produces = {11}, .reads = {1}}),
  };
  EXPECT_FALSE(Valid(nodes, {0, 1}));
  EXPECT_TRUE(Valid(nodes, {1, 0}));
}

TEST(Lifetime, ExternalReadsAreAssumedLive) {
  const std::vector<DataFlow> nodes = {
      Node({.position = 0, .produces = {10}, .reads = {1}}),
      Node({.position = 1, .produces = {11}, .reads = {1, 10}}),
  };
  EXPECT_TRUE(Valid(nodes, {0, 1}));
}

TEST(Lifetime, OrderMayCoverASubsetOfNodes) {
  const std::vector<DataFlow> nodes = {
      Node({.position = 0, .produces = {10}}),
      Node({.position = 1, .produces = {11}, .reads = {10}}),
  };
  EXPECT_TRUE(Valid(nodes, {1}));
}

// --- ember: corners -----------------------------------------------------------------------

TEST(Lifetime, SpanOfNodesInOrderAgreesWithIndexedOrder) {
  const std::vector<DataFlow> forward = {
      Node({.position = 0, .produces = {10}, .reads = {1}}),
      Node({.position = 1, .produces = {11}, .reads = {10}}),
  };
  const std::vector<DataFlow> backward = {forward[1], forward[0]};
  EXPECT_TRUE(IsValidExecutionOrder(forward));
  EXPECT_FALSE(IsValidExecutionOrder(backward));
  EXPECT_TRUE(IsValidExecutionOrder(std::span<const DataFlow>{}));
}

TEST(Lifetime, ReadAfterFreeOfAnExternalTensorIsInvalid) {
  // Tensor 5 comes from an earlier segment; node 0 releases it without listing it as read, so
  // it was never alive in the simulation: the free marks it dead all the same.
  const std::vector<DataFlow> nodes = {
      Raw(0, {10}, {}, {5}),
      Raw(1, {11}, {5}, {}),
  };
  EXPECT_FALSE(Valid(nodes, {0, 1}));
  EXPECT_TRUE(Valid(nodes, {1, 0}));
}

TEST(Lifetime, DoubleFreeWithoutAReadIsNotDetected) {
  // burn checks reads only: two nodes releasing the same id pass.
  const std::vector<DataFlow> nodes = {
      Raw(0, {10}, {}, {5}),
      Raw(1, {11}, {}, {5}),
  };
  EXPECT_TRUE(Valid(nodes, {0, 1}));
}

TEST(Lifetime, DoubleFreeOfAReadTensorIsAReadAfterFree) {
  // As ops see it: both frees are ReadWrite reads, so the second one reads a dead tensor.
  const std::vector<DataFlow> nodes = {
      ForOperation(AddRw(5, 1, 10), 0),
      ForOperation(ir::Drop(Rw(5, kShape)), 1),
  };
  EXPECT_FALSE(Valid(nodes, {0, 1}));
}

TEST(Lifetime, ProducingAfterAFreeRevivesTheId) {
  // Within a node, productions apply after frees: a block that creates 7 and consumes it in
  // place leaves 7 alive for a later reader.
  const std::vector<DataFlow> nodes = {
      Raw(0, {7}, {}, {7}),
      Raw(1, {8}, {7}, {}),
  };
  EXPECT_TRUE(Valid(nodes, {0, 1}));
}

TEST(Lifetime, NodeReadingItsOwnOutputIsReadBeforeProduce) {
  // An op-level node may not read its own output: it is produced in the order and not yet alive.
  const std::vector<DataFlow> nodes = {Raw(0, {7}, {7}, {})};
  EXPECT_FALSE(Valid(nodes, {0}));
}

TEST(Lifetime, OpsInStreamOrderAreValidAndAFreeBeforeAReadIsNot) {
  // t3 = t1 + t2; t4 = t3 + t1; t5 = t3 + t2 with t3 ReadWrite (its last use).
  const OperationIr first = Add(1, 2, 3);
  const OperationIr reader = Add(3, 1, 4);
  const OperationIr freer = AddRw(3, 2, 5);
  const std::vector<DataFlow> nodes = {
      ForOperation(first, 0),
      ForOperation(reader, 1),
      ForOperation(freer, 2),
  };
  EXPECT_TRUE(Valid(nodes, {0, 1, 2}));
  EXPECT_FALSE(Valid(nodes, {0, 2, 1}));  // the free runs before the last reader
  EXPECT_FALSE(Valid(nodes, {1, 0, 2}));  // the reader runs before the producer
}

}  // namespace
}  // namespace ember

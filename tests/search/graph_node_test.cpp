// DataFlow (burn's GraphNode trait, search/graph/node.rs) and ForOperation (burn's
// OperationNode, search/block.rs): which ids an op produces, reads and frees.
#include "engine/search/graph/node.h"

#include <gtest/gtest.h>

#include <vector>

#include "engine/ir/builders.h"
#include "tests/search/graph_test_util.h"

namespace ember {
namespace {

using graph_test::Add;
using graph_test::AddRw;
using graph_test::kShape;
using test::Out;
using test::Ro;
using test::Rw;
using Ids = std::vector<TensorId>;

TEST(DataFlow, OperationProducesOutputsReadsAllInputsFreesReadWriteInputs) {
  const DataFlow flow = ForOperation(AddRw(7, 3, 9), 4);
  EXPECT_EQ(flow.produced, (Ids{9}));
  EXPECT_EQ(flow.read, (Ids{3, 7}));
  EXPECT_EQ(flow.freed, (Ids{7}));
  EXPECT_EQ(flow.position, 4u);
  EXPECT_TRUE(flow.Produces(9));
  EXPECT_TRUE(flow.Reads(7));
  EXPECT_TRUE(flow.Reads(3));
  EXPECT_TRUE(flow.Frees(7));
  EXPECT_FALSE(flow.Frees(3));
  EXPECT_FALSE(flow.Reads(9));
  EXPECT_TRUE(IsCanonical(flow));
}

TEST(DataFlow, ReadOnlyOperationFreesNothing) {
  const DataFlow flow = ForOperation(Add(1, 2, 3), 0);
  EXPECT_TRUE(flow.freed.empty());
  EXPECT_EQ(flow.read, (Ids{1, 2}));
}

TEST(DataFlow, DropReadsAndFreesItsTensorAndProducesNothing) {
  const DataFlow flow = ForOperation(ir::Drop(Rw(5, kShape)), 2);
  EXPECT_TRUE(flow.produced.empty());
  EXPECT_EQ(flow.read, (Ids{5}));
  EXPECT_EQ(flow.freed, (Ids{5}));
}

TEST(DataFlow, InitReadsNothing) {
  const DataFlow flow = ForOperation(ir::Init(Out(8, kShape)), 0);
  EXPECT_EQ(flow.produced, (Ids{8}));
  EXPECT_TRUE(flow.read.empty());
}

TEST(DataFlow, RepeatedInputIsListedOnce) {
  const DataFlow flow =
      ForOperation(ir::Binary(OpKind::kMul, Ro(4, kShape), Rw(4, kShape), Out(6, kShape)), 0);
  EXPECT_EQ(flow.read, (Ids{4}));
  EXPECT_EQ(flow.freed, (Ids{4}));
}

TEST(DataFlow, MakeDataFlowSortsAndDeduplicates) {
  const DataFlow flow = MakeDataFlow({9, 1, 9}, {5, 2, 5, 2}, {3, 3}, 7);
  EXPECT_EQ(flow.produced, (Ids{1, 9}));
  EXPECT_EQ(flow.read, (Ids{2, 5}));
  EXPECT_EQ(flow.freed, (Ids{3}));
  EXPECT_TRUE(IsCanonical(flow));
  EXPECT_FALSE(IsCanonical(DataFlow{.produced = {2, 1}}));
  EXPECT_FALSE(IsCanonical(DataFlow{.read = {1, 1}}));
}

TEST(DataFlow, SortedOverlapFindsASharedId) {
  EXPECT_TRUE(SortedOverlap({1, 4, 9}, {2, 9}));
  EXPECT_FALSE(SortedOverlap({1, 4, 9}, {2, 3, 10}));
  EXPECT_FALSE(SortedOverlap({}, {1}));
}

}  // namespace
}  // namespace ember

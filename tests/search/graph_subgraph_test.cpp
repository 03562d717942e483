// SubGraph (burn's search/graph/subgraph.rs): the scenarios of burn's graph tests.rs `subgraph`
// module, then ember's own checks of the canonical form past the inline word.
#include "engine/search/graph/subgraph.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/search/graph_test_util.h"

namespace ember {
namespace {

using graph_test::Indices;

// burn: insert_contains_iter.
TEST(SubGraph, InsertContainsIterSpillsPastInlineWord) {
  SubGraph set;
  EXPECT_TRUE(set.Empty());

  set.Insert(3);
  set.Insert(70);
  EXPECT_TRUE(set.Contains(3));
  EXPECT_TRUE(set.Contains(70));
  EXPECT_FALSE(set.Contains(4));
  EXPECT_EQ(set.Size(), 2u);
  EXPECT_EQ(Indices(set), (std::vector<size_t>{3, 70}));
}

// burn: set_operations_keep_canonical_form.
TEST(SubGraph, SetOperationsKeepCanonicalForm) {
  SubGraph a = SubGraph::Single(2);
  a.Insert(100);
  a.Subtract(SubGraph::Single(100));
  EXPECT_EQ(a, SubGraph::Single(2));

  SubGraph b = SubGraph::Single(2);
  b.UnionWith(SubGraph::Single(65));
  EXPECT_TRUE(b.Intersects(SubGraph::Single(65)));
  EXPECT_FALSE(b.Intersects(SubGraph::Single(64)));

  b.IntersectWith(SubGraph::Single(2));
  EXPECT_EQ(b, SubGraph::Single(2));
}

TEST(SubGraph, EqualAfterClearingEveryHighBit) {
  SubGraph high;
  for (size_t node : {1u, 63u, 64u, 127u, 128u, 300u}) high.Insert(node);
  SubGraph only_low;
  only_low.Insert(1);
  only_low.Insert(63);

  SubGraph cleared = high;
  SubGraph spilled;
  for (size_t node : {64u, 127u, 128u, 300u}) spilled.Insert(node);
  cleared.Subtract(spilled);
  EXPECT_EQ(cleared, only_low);
  EXPECT_EQ(Indices(cleared), (std::vector<size_t>{1, 63}));

  // Intersecting with a set that has no spill words trims them all too.
  SubGraph intersected = high;
  intersected.IntersectWith(only_low);
  EXPECT_EQ(intersected, only_low);

  // Clearing everything gives the empty set, equal to a default one.
  SubGraph none = high;
  none.Subtract(high);
  EXPECT_TRUE(none.Empty());
  EXPECT_EQ(none, SubGraph());
}

TEST(SubGraph, ClearingAMiddleWordKeepsTheHigherOnes) {
  SubGraph set;
  set.Insert(70);   // spill word 0
  set.Insert(200);  // spill word 2
  set.Subtract(SubGraph::Single(70));
  EXPECT_EQ(Indices(set), (std::vector<size_t>{200}));
  EXPECT_EQ(set, SubGraph::Single(200));
  EXPECT_FALSE(set.Empty());
}

TEST(SubGraph, UnionGrowsAndIteratesInAscendingOrder) {
  SubGraph a = SubGraph::Single(130);
  a.Insert(0);
  SubGraph b = SubGraph::Single(64);
  b.Insert(63);
  a.UnionWith(b);
  EXPECT_EQ(Indices(a), (std::vector<size_t>{0, 63, 64, 130}));
  EXPECT_EQ(a.Size(), 4u);
  EXPECT_FALSE(a.Contains(1000));  // beyond every word
}

TEST(SubGraph, EmptySetIteratesNothing) {
  SubGraph set;
  EXPECT_EQ(set.begin(), set.end());
  EXPECT_EQ(set.Size(), 0u);
  EXPECT_FALSE(set.Intersects(SubGraph::Single(0)));
}

}  // namespace
}  // namespace ember

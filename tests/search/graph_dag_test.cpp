// Dag and Reachability (burn's search/graph/dag.rs): the `dag` and `reachability` modules of
// burn's graph tests.rs with the same expectations, then ember's own checks past 64 nodes and
// on random graphs.
#include "engine/search/graph/dag.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <random>
#include <vector>

#include "tests/search/graph_test_util.h"

namespace ember {
namespace {

using graph_test::Indices;
using graph_test::Node;
using graph_test::NodeSpec;
using Order = std::optional<std::vector<size_t>>;

// An expected topological order (a braced list would pick optional's explicit constructors).
Order Seq(std::vector<size_t> order) { return order; }

SubGraph Set(std::initializer_list<size_t> nodes) {
  SubGraph set;
  for (size_t node : nodes) set.Insert(node);
  return set;
}

// --- burn: dag ----------------------------------------------------------------------------

TEST(Dag, IndependentNodesOrderedByPosition) {
  const std::vector<DataFlow> nodes = {
      Node({.position = 2, .produces = {202}, .reads = {200, 201}}),
      Node({.position = 0, .produces = {102}, .reads = {100, 101}}),
  };
  const Dag dag(nodes);
  EXPECT_FALSE(dag.DependsOn(0, 1));
  EXPECT_FALSE(dag.DependsOn(1, 0));
  EXPECT_EQ(dag.TopologicalOrder(), Seq({1, 0}));
}

TEST(Dag, ReadAfterWriteBeatsPosition) {
  const std::vector<DataFlow> nodes = {
      Node({.position = 0, .produces = {2}, .reads = {50}}),
      Node({.position = 5, .produces = {50}, .reads = {9}}),
  };
  const Dag dag(nodes);
  EXPECT_TRUE(dag.DependsOn(0, 1));
  EXPECT_EQ(dag.TopologicalOrder(), Seq({1, 0}));
}

TEST(Dag, MutualDependencyIsACycle) {
  const std::vector<DataFlow> nodes = {
      Node({.position = 0, .produces = {100}, .reads = {200}}),
      Node({.position = 1, .produces = {200}, .reads = {100}}),
  };
  const Dag dag(nodes);
  EXPECT_FALSE(dag.IsAcyclic());
  EXPECT_EQ(dag.TopologicalOrder(), std::nullopt);
}

TEST(Dag, WriteAfterReadOrdersFreerAfterReader) {
  const std::vector<DataFlow> nodes = {
      Node({.position = 0, .produces = {2}, .reads = {100}}),
      Node({.position = 1, .produces = {4}, .frees = {100}}),
  };
  const Dag dag(nodes);
  EXPECT_TRUE(dag.DependsOn(1, 0));
  EXPECT_FALSE(dag.DependsOn(0, 1));
  EXPECT_EQ(dag.TopologicalOrder(), Seq({0, 1}));
}

TEST(Dag, DiamondTopologicalOrder) {
  const std::vector<DataFlow> nodes = {
      Node({.position = 0, .produces = {10}}),
      Node({.position = 1, .produces = {11}, .reads = {10}}),
      Node({.position = 2, .produces = {12}, .reads = {10}}),
      Node({.position = 3, .produces = {13}, .reads = {11, 12}}),
  };
  EXPECT_EQ(Dag(nodes).TopologicalOrder(), Seq({0, 1, 2, 3}));
}

// --- ember: dag ---------------------------------------------------------------------------

TEST(Dag, NodeThatReadsAndFreesWhatItProducesHasNoSelfEdge) {
  const std::vector<DataFlow> nodes = {
      Node({.position = 0, .produces = {7}, .frees = {7}}),
  };
  const Dag dag(nodes);
  EXPECT_FALSE(dag.DependsOn(0, 0));
  EXPECT_EQ(dag.TopologicalOrder(), Seq({0}));
}

TEST(Dag, FreeingAnotherNodesOutputIsOnlyAReadAfterWriteEdge) {
  // Node 1 frees 10, which node 0 produces but does not read: only the read-after-write edge.
  const std::vector<DataFlow> nodes = {
      Node({.position = 0, .produces = {10}}),
      Node({.position = 1, .produces = {11}, .frees = {10}}),
  };
  const Dag dag(nodes);
  EXPECT_TRUE(dag.DependsOn(1, 0));
  EXPECT_FALSE(dag.DependsOn(0, 1));
}

TEST(Dag, EqualPositionsBreakTiesByIndex) {
  const std::vector<DataFlow> nodes = {
      Node({.position = 3, .produces = {1}}),
      Node({.position = 3, .produces = {2}}),
      Node({.position = 1, .produces = {3}}),
  };
  EXPECT_EQ(Dag(nodes).TopologicalOrder(), Seq({2, 0, 1}));
}

TEST(Dag, NodeBehindACycleIsNeverOrdered) {
  // 0 and 1 form a cycle; 2 depends on 1; 3 is independent. No partial order comes back.
  const std::vector<DataFlow> nodes = {
      Node({.position = 0, .produces = {100}, .reads = {200}}),
      Node({.position = 1, .produces = {200}, .reads = {100}}),
      Node({.position = 2, .produces = {300}, .reads = {200}}),
      Node({.position = 3, .produces = {400}}),
  };
  EXPECT_EQ(Dag(nodes).TopologicalOrder(), std::nullopt);
}

TEST(Dag, EmptyGraphHasAnEmptyOrder) {
  const Dag dag(std::span<const DataFlow>{});
  EXPECT_EQ(dag.TopologicalOrder(), Seq({}));
  EXPECT_TRUE(dag.IsAcyclic());
}

// --- burn: reachability -------------------------------------------------------------------

// A (0) → C (1) → B (2).
std::vector<DataFlow> Chain() {
  return {
      Node({.position = 0, .produces = {100}}),
      Node({.position = 1, .produces = {200}, .reads = {100}}),
      Node({.position = 2, .produces = {300}, .reads = {200}}),
  };
}

TEST(Reachability, DirectEdgeCanContract) {
  const Reachability reach = Dag(Chain()).Reachability();
  EXPECT_TRUE(reach.CanContract(SubGraph::Single(0), SubGraph::Single(1)));
  EXPECT_TRUE(reach.CanContract(SubGraph::Single(1), SubGraph::Single(2)));
}

TEST(Reachability, IntermediateNodeBlocksContraction) {
  const Reachability reach = Dag(Chain()).Reachability();
  EXPECT_FALSE(reach.CanContract(SubGraph::Single(0), SubGraph::Single(2)));
}

TEST(Reachability, ContractionIncludingTheIntermediateIsLegal) {
  const Reachability reach = Dag(Chain()).Reachability();
  EXPECT_TRUE(reach.CanContract(Set({0, 1}), SubGraph::Single(2)));
}

TEST(Reachability, EmptySubgraphsAreRefused) {
  const Reachability reach = Dag(Chain()).Reachability();
  EXPECT_FALSE(reach.CanContract(SubGraph(), SubGraph()));
  EXPECT_FALSE(reach.CanContract(SubGraph::Single(0), SubGraph()));
}

TEST(Reachability, TransitiveAncestorsBlockContraction) {
  const std::vector<DataFlow> nodes = {
      Node({.position = 0, .produces = {10}}),
      Node({.position = 1, .produces = {11}, .reads = {10}}),
      Node({.position = 2, .produces = {12}, .reads = {11}}),
      Node({.position = 3, .produces = {13}, .reads = {12}}),
  };
  const Reachability reach = Dag(nodes).Reachability();
  EXPECT_FALSE(reach.CanContract(SubGraph::Single(0), SubGraph::Single(3)));
  EXPECT_FALSE(reach.CanContract(SubGraph::Single(0), SubGraph::Single(2)));
}

TEST(Reachability, CyclicGraphFallsBackToFixpoint) {
  const std::vector<DataFlow> nodes = {
      Node({.position = 0, .produces = {100}, .reads = {200}}),
      Node({.position = 1, .produces = {200}, .reads = {100}}),
      Node({.position = 2, .produces = {300}, .reads = {200}}),
  };
  const Dag dag(nodes);
  EXPECT_FALSE(dag.IsAcyclic());
  const Reachability reach = dag.Reachability();
  EXPECT_TRUE(reach.CanContract(SubGraph::Single(0), SubGraph::Single(1)));
  EXPECT_FALSE(reach.CanContract(SubGraph::Single(0), SubGraph::Single(2)));
  // On the cycle each node is its own ancestor.
  EXPECT_EQ(reach.Ancestors(0), Set({0, 1}));
  EXPECT_EQ(reach.Ancestors(2), Set({0, 1}));
  EXPECT_EQ(reach.Descendants(0), Set({0, 1, 2}));
}

// A chain of `n` nodes: node i reads what node i - 1 produces.
std::vector<DataFlow> LongChain(size_t n) {
  std::vector<DataFlow> nodes;
  for (size_t i = 0; i < n; ++i) {
    NodeSpec spec{.position = i, .produces = {i + 1}};
    if (i > 0) spec.reads = {i};
    nodes.push_back(Node(spec));
  }
  return nodes;
}

TEST(Reachability, SupportsMoreThan64Nodes) {
  const Dag dag(LongChain(70));
  std::vector<size_t> expected(70);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(dag.TopologicalOrder(), Seq(expected));
  const Reachability reach = dag.Reachability();
  EXPECT_TRUE(reach.CanContract(SubGraph::Single(68), SubGraph::Single(69)));
  EXPECT_FALSE(reach.CanContract(SubGraph::Single(0), SubGraph::Single(69)));
}

// --- ember: reachability ------------------------------------------------------------------

TEST(Reachability, SeventyNodeChainAncestorsSpillPastTheInlineWord) {
  const Reachability reach = Dag(LongChain(70)).Reachability();
  std::vector<size_t> before_last(69);
  std::iota(before_last.begin(), before_last.end(), 0);
  EXPECT_EQ(Indices(reach.Ancestors(69)), before_last);
  EXPECT_EQ(reach.Descendants(0).Size(), 69u);
  EXPECT_TRUE(reach.Descendants(0).Contains(69));
  EXPECT_TRUE(reach.Ancestors(0).Empty());
  EXPECT_TRUE(reach.Descendants(69).Empty());
  EXPECT_EQ(reach.Ancestors(65).Size(), 65u);
  // Contracting across the 64-bit boundary: legal only with everything between included.
  SubGraph low_to_high;
  for (size_t i = 60; i <= 66; ++i) low_to_high.Insert(i);
  EXPECT_TRUE(reach.CanContract(low_to_high, SubGraph::Single(67)));
  EXPECT_FALSE(reach.CanContract(SubGraph::Single(60), SubGraph::Single(66)));
  EXPECT_TRUE(reach.CanContract(SubGraph::Single(63), SubGraph::Single(64)));
}

TEST(Reachability, IndependentNodesCanAlwaysContract) {
  const std::vector<DataFlow> nodes = {
      Node({.position = 0, .produces = {1}}),
      Node({.position = 1, .produces = {2}}),
  };
  EXPECT_TRUE(Dag(nodes).Reachability().CanContract(SubGraph::Single(0), SubGraph::Single(1)));
}

// --- ember: random graphs -----------------------------------------------------------------

// `n` nodes with random read-after-write and write-after-read edges among them, all pointing
// forward in generation order, then shuffled (index order is not topological) and given
// random, possibly equal, positions.
std::vector<DataFlow> RandomAcyclicGraph(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<NodeSpec> specs(n);
  for (size_t k = 0; k < n; ++k) {
    specs[k].produces = {1000 + k};
    std::uniform_int_distribution<size_t> earlier(0, k == 0 ? 0 : k - 1);
    std::uniform_int_distribution<int> count(0, 3);
    for (int c = count(rng); k > 0 && c > 0; --c) {
      const size_t j = earlier(rng);
      if (rng() % 4 == 0) {
        // Write after read: node k frees an external id that node j reads.
        const TensorId external = 1'000'000 + k;
        specs[j].reads.push_back(external);
        specs[k].frees.push_back(external);
      } else {
        specs[k].reads.push_back(1000 + j);
      }
    }
  }
  std::vector<size_t> shuffle(n);
  std::iota(shuffle.begin(), shuffle.end(), 0);
  std::shuffle(shuffle.begin(), shuffle.end(), rng);
  std::uniform_int_distribution<size_t> position(0, n / 2);
  std::vector<DataFlow> nodes;
  for (size_t k : shuffle) {
    specs[k].position = position(rng);
    nodes.push_back(Node(specs[k]));
  }
  return nodes;
}

// Transitive ancestors by depth-first search over the direct edges.
std::vector<SubGraph> BruteForceAncestors(const Dag& dag) {
  std::vector<SubGraph> ancestors(dag.Size());
  for (size_t i = 0; i < dag.Size(); ++i) {
    std::vector<size_t> stack(dag.Dependencies(i).begin(), dag.Dependencies(i).end());
    while (!stack.empty()) {
      const size_t j = stack.back();
      stack.pop_back();
      if (ancestors[i].Contains(j)) continue;
      ancestors[i].Insert(j);
      for (size_t k : dag.Dependencies(j)) stack.push_back(k);
    }
  }
  return ancestors;
}

TEST(Dag, RandomAcyclicGraphOrderRespectsEveryEdge) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    const std::vector<DataFlow> nodes = RandomAcyclicGraph(500, seed);
    const Dag dag(nodes);
    const Order order = dag.TopologicalOrder();
    ASSERT_TRUE(order.has_value()) << "seed " << seed;
    ASSERT_EQ(order->size(), nodes.size());
    std::vector<size_t> rank(nodes.size(), nodes.size());
    for (size_t r = 0; r < order->size(); ++r) rank[(*order)[r]] = r;
    size_t edges = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
      ASSERT_LT(rank[i], nodes.size()) << "node " << i << " missing, seed " << seed;
      for (size_t j : dag.Dependencies(i)) {
        ++edges;
        EXPECT_LT(rank[j], rank[i]) << i << " depends on " << j << ", seed " << seed;
      }
    }
    EXPECT_GT(edges, nodes.size());  // the graph is not trivially sparse
  }
}

TEST(Dag, RandomAcyclicGraphPicksTheSmallestReadyNodeFirst) {
  const std::vector<DataFlow> nodes = RandomAcyclicGraph(200, 7);
  const Dag dag(nodes);
  const Order order = dag.TopologicalOrder();
  ASSERT_TRUE(order.has_value());
  // Replay: at each step the emitted node is the smallest (position, index) among the nodes
  // whose dependencies have all been emitted.
  SubGraph emitted;
  for (size_t next : *order) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (emitted.Contains(i)) continue;
      SubGraph missing = dag.Dependencies(i);
      missing.Subtract(emitted);
      if (!missing.Empty()) continue;
      const bool smaller = std::pair(nodes[i].position, i) < std::pair(nodes[next].position, next);
      EXPECT_FALSE(smaller) << "ready node " << i << " should precede " << next;
    }
    emitted.Insert(next);
  }
}

TEST(Reachability, RandomAcyclicGraphMatchesDepthFirstSearch) {
  const std::vector<DataFlow> nodes = RandomAcyclicGraph(150, 11);
  const Dag dag(nodes);
  const Reachability reach = dag.Reachability();
  const std::vector<SubGraph> expected = BruteForceAncestors(dag);
  for (size_t i = 0; i < nodes.size(); ++i) {
    EXPECT_EQ(reach.Ancestors(i), expected[i]) << "node " << i;
    for (size_t j : expected[i]) EXPECT_TRUE(reach.Descendants(j).Contains(i));
  }
}

TEST(Reachability, RandomCyclicGraphMatchesDepthFirstSearch) {
  std::vector<DataFlow> nodes = RandomAcyclicGraph(120, 13);
  // Close cycles: node 0 reads every id of the graph (so it depends on every other node), and
  // node 1 reads what node 0 produces.
  std::vector<TensorId> all;
  for (const DataFlow& node : nodes) {
    all.insert(all.end(), node.produced.begin(), node.produced.end());
  }
  nodes[0] = MakeDataFlow(nodes[0].produced, all, nodes[0].freed, nodes[0].position);
  std::vector<TensorId> reads_of_1 = nodes[1].read;
  reads_of_1.push_back(nodes[0].produced.front());
  nodes[1] = MakeDataFlow(nodes[1].produced, reads_of_1, nodes[1].freed, nodes[1].position);
  const Dag dag(nodes);
  ASSERT_FALSE(dag.IsAcyclic());
  const Reachability reach = dag.Reachability();
  const std::vector<SubGraph> expected = BruteForceAncestors(dag);
  for (size_t i = 0; i < nodes.size(); ++i) {
    EXPECT_EQ(reach.Ancestors(i), expected[i]) << "node " << i;
  }
}

}  // namespace
}  // namespace ember

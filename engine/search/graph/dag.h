// Dag: the dependency graph of a list of DataFlow nodes, and its transitive Reachability
// (burn's search/graph/dag.rs).
//
// The search builds one Dag over the blocks of an exploration (to emit them in a valid order and
// to guard merges) and one over the chunks of a composed strategy (to repair its order). Node i
// of the graph is nodes[i] of the span it was built from; edges follow Note [Block
// dependencies]. Despite the name the graph may have cycles: TopologicalOrder then returns
// nullopt, and Reachability still answers (it relaxes to a fixpoint).
//
// Building is O(n² · s) for n nodes of s ids each, as in burn; n is small (the block cap, or
// the number of top-level strategies).
//
// Immutable once built: const methods may be called from several threads. Dag keeps no
// reference to the DataFlows it was built from.
//
// Note [Block dependencies]
// Node i depends on node j (j must run first) when either
//   (read after write)  i reads an id that j produces, or
//   (write after read)  i frees an id that j reads.
// Pairs i == j are never tested, so no node depends on itself, even a block that reads and
// frees the same tensor. There is no write-after-write edge: an id is produced once.
// The first kind is the data flow. The second exists because freeing is a write: a ReadWrite
// input is the tensor's last use, so the op may overwrite its buffer in place and the handle is
// released after it. Two blocks that both read t, one ReadOnly and one ReadWrite, exchange no
// data, and without this edge the position tie-break could emit the freeing block first (after
// merging, a block's start position says little about its ops), leaving the other reader with a
// released or overwritten buffer. So a freeing block runs after every block that reads what it
// frees.
//
// Note [Merge guard]
// Merging blocks a and b contracts them into one node. That node must run after every ancestor
// of a ∪ b and before every descendant, so the contraction creates a cycle exactly when some
// node outside a ∪ b is both an ancestor and a descendant of a ∪ b (it sits between them).
// Reachability::CanContract answers this on the graph of the *original* blocks: each block
// carries its constituents (the original node indices it stands for), seeded with {i} before a
// merge round and unioned by every merge. An empty subgraph stands for no node of the graph
// (an unseeded block), so CanContract refuses it rather than guess.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "engine/search/graph/node.h"
#include "engine/search/graph/subgraph.h"

namespace ember {

// Transitive ancestors and descendants of every node of a Dag (from Dag::Reachability).
// Immutable; const methods may be called from several threads.
class Reachability {
 public:
  size_t Size() const { return ancestors_.size(); }
  // The nodes that must run before node i, directly or not. On a cycle this includes i.
  // REQUIRES: i < Size().
  const SubGraph& Ancestors(size_t i) const;
  // The nodes that must run after node i, directly or not (the transpose of Ancestors).
  // REQUIRES: i < Size().
  const SubGraph& Descendants(size_t i) const;

  // Whether contracting a ∪ b into one node keeps the graph acyclic (Note [Merge guard]).
  // False when a or b is empty.
  // REQUIRES: every node of a and b is < Size().
  bool CanContract(const SubGraph& a, const SubGraph& b) const;

 private:
  friend class Dag;
  Reachability(std::vector<SubGraph> ancestors, std::vector<SubGraph> descendants)
      : ancestors_(std::move(ancestors)), descendants_(std::move(descendants)) {}

  std::vector<SubGraph> ancestors_;
  std::vector<SubGraph> descendants_;
};

class Dag {
 public:
  // REQUIRES: IsCanonical(node) for every node (engine/search/graph/node.h).
  explicit Dag(std::span<const DataFlow> nodes);

  size_t Size() const { return dependencies_.size(); }

  // Whether node i depends directly on node j (j must run before i).
  // REQUIRES: i, j < Size().
  bool DependsOn(size_t i, size_t j) const;
  // The direct dependencies of node i, and the nodes that depend directly on node j.
  const SubGraph& Dependencies(size_t i) const;
  const SubGraph& Dependents(size_t j) const;

  // An order of all nodes in which every node follows its dependencies, or nullopt when the
  // graph has a cycle. Kahn's algorithm; among the ready nodes the smallest (position, index)
  // goes first, so a graph without edges comes out in position order.
  std::optional<std::vector<size_t>> TopologicalOrder() const;
  bool IsAcyclic() const { return TopologicalOrder().has_value(); }

  // Transitive closure of the edges. One pass in topological order; on a cycle, repeated
  // passes until nothing changes.
  ember::Reachability Reachability() const;

 private:
  std::vector<SubGraph> dependencies_;  // [i]: nodes i depends on directly
  std::vector<SubGraph> dependents_;    // [j]: nodes that depend directly on j
  std::vector<size_t> positions_;       // [i]: nodes[i].position, the tie-break
};

}  // namespace ember

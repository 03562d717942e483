#include "engine/search/graph/dag.h"

#include <functional>
#include <queue>
#include <utility>

#include "engine/core/check.h"

namespace ember {
namespace {

// Note [Block dependencies]: `node` must run after `other`.
bool MustFollow(const DataFlow& node, const DataFlow& other) {
  return SortedOverlap(node.read, other.produced) || SortedOverlap(node.freed, other.read);
}

}  // namespace

const SubGraph& Reachability::Ancestors(size_t i) const {
  EMBER_CHECK(i < ancestors_.size(), "node {} of {}", i, ancestors_.size());
  return ancestors_[i];
}

const SubGraph& Reachability::Descendants(size_t i) const {
  EMBER_CHECK(i < descendants_.size(), "node {} of {}", i, descendants_.size());
  return descendants_[i];
}

bool Reachability::CanContract(const SubGraph& a, const SubGraph& b) const {
  if (a.Empty() || b.Empty()) return false;

  SubGraph merged = a;
  merged.UnionWith(b);
  SubGraph before;  // ancestors of the merged node
  SubGraph after;   // descendants of the merged node
  for (size_t i : merged) {
    EMBER_CHECK(i < ancestors_.size(), "subgraph names node {} of a {}-node graph", i,
                ancestors_.size());
    before.UnionWith(ancestors_[i]);
    after.UnionWith(descendants_[i]);
  }
  // Nodes that would have to run both before and after the merged node.
  SubGraph trapped = std::move(before);
  trapped.IntersectWith(after);
  trapped.Subtract(merged);
  return trapped.Empty();
}

Dag::Dag(std::span<const DataFlow> nodes) : dependencies_(nodes.size()), dependents_(nodes.size()) {
  positions_.reserve(nodes.size());
  for (const DataFlow& node : nodes) {
    EMBER_DCHECK(IsCanonical(node), "DataFlow at position {} is not sorted and unique",
                 node.position);
    positions_.push_back(node.position);
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (size_t j = 0; j < nodes.size(); ++j) {
      if (i == j || !MustFollow(nodes[i], nodes[j])) continue;
      dependencies_[i].Insert(j);
      dependents_[j].Insert(i);
    }
  }
}

bool Dag::DependsOn(size_t i, size_t j) const { return Dependencies(i).Contains(j); }

const SubGraph& Dag::Dependencies(size_t i) const {
  EMBER_CHECK(i < dependencies_.size(), "node {} of {}", i, dependencies_.size());
  return dependencies_[i];
}

const SubGraph& Dag::Dependents(size_t j) const {
  EMBER_CHECK(j < dependents_.size(), "node {} of {}", j, dependents_.size());
  return dependents_[j];
}

std::optional<std::vector<size_t>> Dag::TopologicalOrder() const {
  const size_t n = Size();
  using Key = std::pair<size_t, size_t>;  // (position, index)
  std::priority_queue<Key, std::vector<Key>, std::greater<Key>> ready;
  std::vector<size_t> waiting_on(n);  // direct dependencies not yet emitted
  for (size_t i = 0; i < n; ++i) {
    waiting_on[i] = dependencies_[i].Size();
    if (waiting_on[i] == 0) ready.emplace(positions_[i], i);
  }

  std::vector<size_t> order;
  order.reserve(n);
  while (!ready.empty()) {
    const size_t i = ready.top().second;
    ready.pop();
    order.push_back(i);
    for (size_t dependent : dependents_[i]) {
      if (--waiting_on[dependent] == 0) ready.emplace(positions_[dependent], dependent);
    }
  }
  // Nodes on (or behind) a cycle never become ready.
  if (order.size() != n) return std::nullopt;
  return order;
}

ember::Reachability Dag::Reachability() const {
  const size_t n = Size();
  // No node depends on itself, so ancestors[i] and ancestors[j] below are distinct objects.
  std::vector<SubGraph> ancestors = dependencies_;

  if (std::optional<std::vector<size_t>> order = TopologicalOrder()) {
    // Dependencies come first in `order`, so their sets are already complete when read.
    for (size_t i : *order) {
      for (size_t j : dependencies_[i]) ancestors[i].UnionWith(ancestors[j]);
    }
  } else {
    // No linear pass exists; relax every edge until no set grows. Sets only grow, so a
    // size change is exactly a change.
    bool changed = true;
    while (changed) {
      changed = false;
      for (size_t i = 0; i < n; ++i) {
        const size_t before = ancestors[i].Size();
        for (size_t j : dependencies_[i]) ancestors[i].UnionWith(ancestors[j]);
        changed |= ancestors[i].Size() != before;
      }
    }
  }

  std::vector<SubGraph> descendants(n);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j : ancestors[i]) descendants[j].Insert(i);
  }
  return ember::Reachability(std::move(ancestors), std::move(descendants));
}

}  // namespace ember

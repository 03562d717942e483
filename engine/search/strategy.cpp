#include "engine/search/strategy.h"

#include <algorithm>
#include <numeric>

#include "engine/core/check.h"

namespace ember {

ExecutionStrategy ExecutionStrategy::Fused(std::shared_ptr<Optimization> opt,
                                           std::vector<size_t> ordering, uint64_t score) {
  ExecutionStrategy s;
  s.kind = Kind::kOptimization;
  s.optimization = std::move(opt);
  s.ordering = std::move(ordering);
  s.score = score;
  return s;
}

ExecutionStrategy ExecutionStrategy::Operations(std::vector<size_t> ordering) {
  ExecutionStrategy s;
  s.kind = Kind::kOperations;
  s.ordering = std::move(ordering);
  return s;
}

ExecutionStrategy ExecutionStrategy::Composed(std::vector<ExecutionStrategy> children) {
  ExecutionStrategy s;
  s.kind = Kind::kComposed;
  s.children = std::move(children);
  return s;
}

std::optional<size_t> ExecutionStrategy::MaxRelativeShapeId() const {
  switch (kind) {
    case Kind::kOptimization: return optimization->max_relative_shape_id();
    case Kind::kOperations: return std::nullopt;
    case Kind::kComposed: {
      std::optional<size_t> best;
      for (const ExecutionStrategy& child : children) {
        const std::optional<size_t> id = child.MaxRelativeShapeId();
        if (id && (!best || *id > *best)) best = id;
      }
      return best;
    }
  }
  return std::nullopt;
}

size_t ExecutionStrategy::NumLeaves() const {
  if (kind != Kind::kComposed) return 1;
  size_t n = 0;
  for (const ExecutionStrategy& child : children) n += child.NumLeaves();
  return n;
}

bool ExecutionStrategy::HasOptimization() const {
  if (kind == Kind::kOptimization) return true;
  for (const ExecutionStrategy& child : children) {
    if (child.HasOptimization()) return true;
  }
  return false;
}

std::vector<size_t> ExecutionStrategy::FlatOrdering() const {
  if (kind != Kind::kComposed) return ordering;
  std::vector<size_t> out;
  for (const ExecutionStrategy& child : children) {
    const std::vector<size_t> sub = child.FlatOrdering();
    out.insert(out.end(), sub.begin(), sub.end());
  }
  return out;
}

BlockOptimization BlockOptimization::Unfused(size_t n) {
  std::vector<size_t> ordering(n);
  std::iota(ordering.begin(), ordering.end(), size_t{0});
  return BlockOptimization{ExecutionStrategy::Operations(ordering), ordering};
}

void BlockOptimization::IncludeTrailing(size_t n) {
  if (ordering.size() >= n) return;
  std::vector<size_t> sorted = ordering;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    EMBER_DCHECK(sorted[i] == i, "covered positions are not a prefix");
  }
  std::vector<size_t> tail(n - ordering.size());
  std::iota(tail.begin(), tail.end(), ordering.size());
  ordering.insert(ordering.end(), tail.begin(), tail.end());
  if (strategy.kind == ExecutionStrategy::Kind::kComposed) {
    strategy.children.push_back(ExecutionStrategy::Operations(std::move(tail)));
  } else {
    strategy = ExecutionStrategy::Composed(
        {std::move(strategy), ExecutionStrategy::Operations(std::move(tail))});
  }
}

}  // namespace ember

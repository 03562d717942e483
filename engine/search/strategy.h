// ExecutionStrategy and BlockOptimization: how a run of queued ops executes (burn's
// ExecutionStrategy / BlockOptimization), plain data.
//
//   Optimization{opt, ordering, score}: one optimization (a fused kernel) over the listed queue
//       positions, in the order its fuser registered them;
//   Operations{ordering}: the listed positions run unfused, in that order;
//   Composed{children}: the children in sequence (may nest: hole strategies can be composed).
//
// A BlockOptimization pairs a strategy with `ordering`, the concatenation of its leaves'
// orderings in execution order; its length is the number of ops the plan covers, and the
// covered positions are always exactly 0..ordering.size() (holes before the last covered
// position are searched again until none is left: StreamOptimizer, stream_optimizer.h).
//
// Positions are relative to the queue head at the time the plan was built.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "engine/fuse/optimization.h"

namespace ember {

struct ExecutionStrategy {
  enum class Kind : uint8_t { kOptimization = 0, kOperations = 1, kComposed = 2 };

  Kind kind = Kind::kOperations;
  std::shared_ptr<Optimization> optimization;  // kOptimization
  std::vector<size_t> ordering;                // kOptimization, kOperations
  uint64_t score = 0;                          // kOptimization
  std::vector<ExecutionStrategy> children;     // kComposed

  static ExecutionStrategy Fused(std::shared_ptr<Optimization> opt, std::vector<size_t> ordering,
                                 uint64_t score);
  static ExecutionStrategy Operations(std::vector<size_t> ordering);
  static ExecutionStrategy Composed(std::vector<ExecutionStrategy> children);

  // The highest relative shape id any fused leaf names (nullopt for unfused-only strategies).
  std::optional<size_t> MaxRelativeShapeId() const;
  // Number of leaves, counted through nested Composed (1 for a leaf). Not burn's
  // strategy_len, which counts positions (order repair uses ordering sizes for that).
  size_t NumLeaves() const;
  // Whether any leaf is an optimization (fused code), through nested Composed.
  bool HasOptimization() const;
  // The leaves' orderings concatenated in execution order.
  std::vector<size_t> FlatOrdering() const;

  // Structural equality; fused leaves compare their optimization by identity.
  bool operator==(const ExecutionStrategy&) const = default;
};

struct BlockOptimization {
  ExecutionStrategy strategy;
  std::vector<size_t> ordering;

  // Operations over positions 0..n-1 in submission order: the always-legal unfused plan (the
  // exploration cap, fusion off, the shape-id fallback, a demoted plan).
  static BlockOptimization Unfused(size_t n);

  // At a sync the plan must cover the whole segment: appends Operations over the positions
  // ordering.size()..n (wrapping a single strategy into Composed). REQUIRES: the covered
  // positions are 0..ordering.size().
  void IncludeTrailing(size_t n);

  bool operator==(const BlockOptimization&) const = default;
};

}  // namespace ember

#include "engine/stream/explorer.h"

#include <fmt/format.h>

#include "engine/core/log.h"

namespace ember {
namespace {

std::vector<std::unique_ptr<OperationFuser>> CloneAll(
    const std::vector<std::unique_ptr<OperationFuser>>& fusers) {
  std::vector<std::unique_ptr<OperationFuser>> out;
  for (const auto& f : fusers) {
    out.push_back(f->Clone());
    out.back()->Reset();
  }
  return out;
}

// `s` with every position moved up by `offset` (a search over ops[offset..] numbers them from
// 0).
ExecutionStrategy Shifted(ExecutionStrategy s, size_t offset) {
  for (size_t& p : s.ordering) p += offset;
  for (ExecutionStrategy& child : s.children) child = Shifted(std::move(child), offset);
  return s;
}

}  // namespace

Explorer::Explorer(std::vector<std::unique_ptr<OperationFuser>> fusers,
                   std::optional<size_t> max_blocks, std::optional<size_t> max_explorations,
                   bool search_sync_tail)
    : max_blocks_(max_blocks),
      optimizer_(CloneAll(fusers), max_blocks),
      max_explorations_(max_explorations),
      search_sync_tail_(search_sync_tail) {
  prototypes_ = std::move(fusers);
}

Exploration Explorer::Explore(std::span<const OperationIr> ops, ExecutionMode mode,
                              bool budget_left) {
  LogFusion(LogLevel::kFull, [&] {
    return fmt::format("[explorer] explore ({}): {} deferred of {} queued", ExecutionModeName(mode),
                       num_deferred_, ops.size());
  });
  if (!budget_left || (max_explorations_ && num_explorations_ >= *max_explorations_)) {
    // The cap is reached: no registration, no search. The whole segment runs unfused and the
    // deferred ops count as consumed, so the processor stops looping.
    num_deferred_ = 0;
    still_optimizing_ = false;
    return {Exploration::Kind::kUnfused, BlockOptimization::Unfused(ops.size())};
  }
  Update(ops);
  if (mode == ExecutionMode::kLazy && still_optimizing_) return {};
  BlockOptimization optimization = optimizer_.Optimize(ops);
  ++num_explorations_;
  if (mode == ExecutionMode::kSync) CoverTail(ops, optimization);
  return {Exploration::Kind::kCompleted, std::move(optimization)};
}

// Note [Sync tail]
// A sync segment is final, so its plan must cover all of it: the next identical sync then hits
// the plan instead of exploring again. burn's rule, the default (include_trailing,
// crates/burn-fusion/src/stream/execution/explorer.rs and src/search/block.rs, since burn
// #5137): the positions the search left uncovered, always a trailing run, are appended in
// order as one unfused Operations leaf of the same plan, and nothing in them is searched again,
// though they may hold ops a fresh search would fuse (the cut-off rest of a block whose fusion
// was shorter than it, or ops never registered because every block had closed or max_blocks
// stopped the optimizer).
// With [fusion.search] search_sync_tail (EMBER_SEARCH_SYNC_TAIL=on), ember's own rule: the tail
// is searched again with fresh fusers, as many times as it takes, each result joining the plan,
// and what a search cannot cover is appended unfused. The rule is part of the environment
// fingerprint, so plans found under one are never served under the other (docs/FIDELITY.md,
// docs/BENCHMARKS.md for its gain).
void Explorer::CoverTail(std::span<const OperationIr> ops, BlockOptimization& optimization) const {
  while (search_sync_tail_ && optimization.ordering.size() < ops.size()) {
    const size_t covered = optimization.ordering.size();
    const std::span<const OperationIr> tail = ops.subspan(covered);
    StreamOptimizer search(CloneAll(prototypes_), max_blocks_);
    for (const OperationIr& op : tail) search.Register(op);
    BlockOptimization next = search.Optimize(tail);
    if (next.ordering.empty()) break;
    for (size_t& p : next.ordering) p += covered;
    ExecutionStrategy strategy = Shifted(std::move(next.strategy), covered);
    if (optimization.strategy.kind != ExecutionStrategy::Kind::kComposed) {
      optimization.strategy = ExecutionStrategy::Composed({std::move(optimization.strategy)});
    }
    optimization.strategy.children.push_back(std::move(strategy));
    optimization.ordering.insert(optimization.ordering.end(), next.ordering.begin(),
                                 next.ordering.end());
  }
  optimization.IncludeTrailing(ops.size());
}

void Explorer::Reset(std::span<const OperationIr> ops) {
  optimizer_.Reset();
  num_explored_ = 0;
  num_deferred_ = ops.size();
  still_optimizing_ = true;
}

void Explorer::Update(std::span<const OperationIr> ops) {
  const size_t start_explored = num_explored_;
  for (size_t i = num_deferred_; i-- > 0;) {
    if (!still_optimizing_) {
      LogFusion(LogLevel::kFull, [&] {
        return fmt::format(
            "[explorer] stopped optimizing after {} new op(s); {} deferred op(s) left "
            "unprocessed",
            num_explored_ - start_explored, i + 1);
      });
      break;
    }
    const OperationIr& op = ops[ops.size() - 1 - i];
    optimizer_.Register(op);
    ++num_explored_;
    const bool before = still_optimizing_;
    still_optimizing_ = optimizer_.StillOptimizing();
    if (before && !still_optimizing_) {
      LogFusion(LogLevel::kFull, [&] {
        return fmt::format("[explorer] still_optimizing → false after op {} (explored {} ops)",
                           OpName(op), num_explored_);
      });
    }
  }
  num_deferred_ = 0;
}

}  // namespace ember

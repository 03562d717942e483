#include "engine/stream/explorer.h"

#include <numeric>

#include <fmt/format.h>

#include "engine/core/log.h"

namespace ember {
namespace {

const char* ModeName(ExecutionMode mode) { return mode == ExecutionMode::kLazy ? "lazy" : "sync"; }

}  // namespace

Explorer::Explorer(std::vector<std::unique_ptr<OperationFuser>> fusers,
                   std::optional<size_t> max_blocks, std::optional<size_t> max_explorations)
    : optimizer_(std::move(fusers), max_blocks), max_explorations_(max_explorations) {}

Exploration Explorer::Explore(std::span<const OperationIr> ops, ExecutionMode mode) {
  LogFusion(LogLevel::kFull, [&] {
    return fmt::format("[explorer] explore ({}): {} deferred of {} queued", ModeName(mode),
                       num_deferred_, ops.size());
  });
  if (max_explorations_ && num_explorations_ >= *max_explorations_) {
    // The cap is reached: no registration, no search. The whole segment runs unfused and the
    // deferred ops count as consumed, so the processor stops looping.
    num_deferred_ = 0;
    still_optimizing_ = false;
    std::vector<size_t> ordering(ops.size());
    std::iota(ordering.begin(), ordering.end(), size_t{0});
    return {Exploration::Kind::kUnfused,
            BlockOptimization{ExecutionStrategy::Operations(ordering), ordering}};
  }
  Update(ops);
  if (mode == ExecutionMode::kLazy && still_optimizing_) return {};
  BlockOptimization optimization = optimizer_.Optimize(ops);
  ++num_explorations_;
  // A sync segment is final: the tail the search left for the next round joins the plan
  // unfused, so that the next identical sync hits the plan instead of exploring again.
  if (mode == ExecutionMode::kSync) optimization.IncludeTrailing(ops.size());
  return {Exploration::Kind::kCompleted, std::move(optimization)};
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

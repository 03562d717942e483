// Explorer: finds a new plan for a stream's segment when the policy has none (burn's Explorer).
//
// It feeds the deferred ops (queued but not yet registered) to a StreamOptimizer. In Lazy mode
// it waits (Continue) while any fuser of any block is still Open; once every block is closed,
// the optimizer stopped, or at a sync, it optimizes (Completed). At a sync the plan is extended
// to cover the whole segment, by burn's rule unless told otherwise (Note [Sync tail]).
// `max_explorations` caps the optimizations built: past it, every miss runs unfused in submission
// order and nothing is stored (Unfused); a cap of 0 disables exploration. Cache hits are unaffected
// by the cap.
//
// Threading: one per stream (inside its Processor).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "engine/fuse/fuser.h"
#include "engine/search/stream_optimizer.h"
#include "engine/stream/execution_mode.h"

namespace ember {

struct Exploration {
  enum class Kind { kCompleted, kContinue, kUnfused };
  Kind kind = Kind::kContinue;
  BlockOptimization optimization;  // kCompleted, kUnfused
};

class Explorer {
 public:
  // `search_sync_tail`: Note [Sync tail] (off: burn's rule).
  Explorer(std::vector<std::unique_ptr<OperationFuser>> fusers, std::optional<size_t> max_blocks,
           std::optional<size_t> max_explorations, bool search_sync_tail = false);

  void OnNewOperation() { ++num_deferred_; }
  bool IsUpToDate() const { return num_deferred_ == 0; }
  // `ops`: the segment's relative ops (the deferred ones are its last num_deferred).
  // `budget_left`: false when the workload's persisted exploration budget is spent
  // (PlanBacking), which caps like max_explorations.
  Exploration Explore(std::span<const OperationIr> ops, ExecutionMode mode,
                      bool budget_left = true);
  // After an execution: every remaining op is deferred again.
  void Reset(std::span<const OperationIr> ops);

  size_t num_explorations() const { return num_explorations_; }

 private:
  void Update(std::span<const OperationIr> ops);
  // Note [Sync tail]: covers ops[optimization.ordering.size()..], searching them again first
  // when search_sync_tail_ is set.
  void CoverTail(std::span<const OperationIr> ops, BlockOptimization& optimization) const;

  std::vector<std::unique_ptr<OperationFuser>> prototypes_;  // for the sync tail's searches
  std::optional<size_t> max_blocks_;
  StreamOptimizer optimizer_;
  size_t num_deferred_ = 0;
  size_t num_explored_ = 0;
  bool still_optimizing_ = true;
  size_t num_explorations_ = 0;
  std::optional<size_t> max_explorations_;
  bool search_sync_tail_ = false;
};

}  // namespace ember

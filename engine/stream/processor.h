// Processor: decides, for one stream, what to execute and when (burn's Processor): a Policy
// that matches cached plans and an Explorer that finds new ones.
//
// Process(Lazy) runs once per newly queued op and may leave ops queued (Defer, or an Explorer
// that keeps waiting while a fuser is open); Process(Sync) runs at a drain and consumes the
// whole segment. After every execution the remaining ops, re-relativized by the queue from the
// new head, are fed to the policy again and deferred again for the explorer.
//
// Plans found by exploration go into the device's store with a trigger: the ops that followed the
// plan (Lazy, OnOperations), Always (Lazy, nothing followed) or OnSync; a re-found plan identical
// to an available one keeps the stored plan (its optimization runs) and only gains the trigger
// (burn's Processor::on_exploration_completed, burn-fusion's stream/execution/processor.rs).
//
// Threading: one per stream; called under the device server's lock.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "engine/fuse/fuser.h"
#include "engine/stream/execution_mode.h"
#include "engine/stream/explorer.h"
#include "engine/stream/miss_explanation.h"
#include "engine/stream/miss_history.h"
#include "engine/stream/plan_store.h"
#include "engine/stream/policy.h"
#include "engine/stream/stream_segment.h"

namespace ember {

struct SearchSettings {
  std::optional<size_t> max_blocks = 5;    // nullopt: no cap (tests only)
  std::optional<size_t> max_explorations;  // nullopt: unlimited
  // false ([fusion] enabled = false, EMBER_FUSION=off): every op runs unfused as soon as it is
  // queued, with no search and no plans: the baseline for differential tests and benchmarks.
  bool fusion_enabled = true;
  // [fusion.search] search_sync_tail: search a sync segment's uncovered tail again instead of
  // running it unfused as burn does (Note [Sync tail], engine/stream/explorer.cpp).
  bool search_sync_tail = false;
};

// What a stream's processor did, for ember::GetStats (summed over a device's streams).
struct ProcessorCounters {
  uint64_t explorations = 0;  // optimizations built by the search
  uint64_t cache_hits = 0;    // stored plans executed by the policy
  // Segments that found no plan to run (explored, or unfused once the budget was spent), by
  // why the nearest stored plan did not fit (Note [Explaining a miss]).
  MissCounts misses{};

  void Add(const ProcessorCounters& other) {
    explorations += other.explorations;
    cache_hits += other.cache_hits;
    for (size_t i = 0; i < misses.size(); ++i) misses[i] += other.misses[i];
  }
};

class Processor {
 public:
  Processor(std::vector<std::unique_ptr<OperationFuser>> fusers, const SearchSettings& settings);

  // REQUIRES (Lazy): exactly one op was queued since the last call.
  void Process(StreamSegment& segment, ExecutionPlanStore& store, ExecutionMode mode);

  size_t num_explorations() const { return explorer_.num_explorations(); }
  const ProcessorCounters& counters() const { return counters_; }
  // Its last explained misses (ember::RecentMisses).
  const MissHistory& recent_misses() const { return recent_misses_; }

 private:
  void Explore(StreamSegment& segment, ExecutionPlanStore& store, ExecutionMode mode);
  // Finds why no stored plan fitted the segment, counts it, tells the backing, and logs it at
  // medium. Runs before the exploration's plan joins the store (it would be the nearest).
  void ExplainMiss(const StreamSegment& segment, ExecutionPlanStore& store, ExecutionMode mode,
                   bool unfused);
  void Reset(ExecutionPlanStore& store, std::span<const OperationIr> ops);
  // Runs plan `id` on the segment, between the backing's OnPlanRunning and OnPlanRan.
  static void RunPlan(StreamSegment& segment, ExecutionPlanStore& store, PlanId id);
  // Runs `execute` (an execution of the segment's head), then resets for the remaining ops,
  // also when the execution throws.
  // A template, not a std::function: the hit path's lambda captures three references, more
  // than std::function keeps inline, so it allocated once per executed plan (issue 41).
  template <typename Execute>
  void ExecuteThenReset(ExecutionPlanStore& store, StreamSegment& segment, Execute&& execute);
  PlanId OnExplorationCompleted(std::span<const OperationIr> ops, std::span<const int64_t> dims,
                                ExecutionPlanStore& store, BlockOptimization optimization,
                                ExecutionMode mode, double explore_ms) const;

  Policy policy_;
  Explorer explorer_;
  // Time spent in the explorer since the segment's last reset: a lazy exploration runs in
  // steps, one per op, until it completes.
  std::chrono::steady_clock::duration exploring_{};
  bool fusion_enabled_;
  bool uncapped_;  // no max_explorations: Note [Uncapped growth]
  ProcessorCounters counters_;
  MissHistory recent_misses_;
};

}  // namespace ember

#include "engine/stream/processor.h"

#include <optional>

#include <fmt/format.h>

#include "engine/core/check.h"
#include "engine/core/log.h"
#include "engine/ir/hash.h"
#include "engine/stream/uncapped_growth.h"

namespace ember {

Processor::Processor(std::vector<std::unique_ptr<OperationFuser>> fusers,
                     const SearchSettings& settings)
    : explorer_(std::move(fusers), settings.max_blocks, settings.max_explorations,
                settings.search_sync_tail),
      fusion_enabled_(settings.fusion_enabled),
      uncapped_(!settings.max_explorations.has_value()) {}

void Processor::Process(StreamSegment& segment, ExecutionPlanStore& store, ExecutionMode mode) {
  if (!fusion_enabled_) {
    // Fusion off: run whatever is queued, unfused, in submission order; nothing is stored.
    const size_t n = segment.operations().size();
    if (n == 0) return;
    segment.ExecuteUnfused(BlockOptimization::Unfused(n));
    return;
  }
  if (mode == ExecutionMode::kLazy) {
    EMBER_CHECK(!segment.operations().empty(), "Lazy processing without a new op");
    // A segment's first op is hashed once, for the database and the policy alike.
    std::optional<uint64_t> first_hash;
    if (segment.operations().size() == 1) {
      first_hash = HashOp(segment.operations().front());
      store.LoadStartingWith(segment.operations().front(), *first_hash);
    }
    policy_.Update(store, segment.operations().back(), first_hash);
    explorer_.OnNewOperation();
  }
  while (!segment.operations().empty()) {
    const Action action = policy_.GetAction(store, segment.operations(), mode);
    switch (action.kind) {
      case Action::Kind::kExplore:
        Explore(segment, store, mode);
        if (explorer_.IsUpToDate()) return;
        break;
      case Action::Kind::kDefer:
        EMBER_CHECK(mode == ExecutionMode::kLazy, "the policy deferred at a sync");
        return;
      case Action::Kind::kExecute: {
        LogFusion(LogLevel::kFull, [&] {
          return fmt::format("[plan] cache hit: execute plan #{} ({}, segment has {} ops)",
                             action.plan, ExecutionModeName(mode), segment.operations().size());
        });
        ++counters_.cache_hits;
        store.RecordHit(action.plan);
        if (mode == ExecutionMode::kSync) store.AddTrigger(action.plan, ExecutionTrigger::OnSync());
        ExecuteThenReset(store, segment, [&] { RunPlan(segment, store, action.plan); });
        break;
      }
    }
  }
}

void Processor::Explore(StreamSegment& segment, ExecutionPlanStore& store, ExecutionMode mode) {
  Exploration result;
  try {
    PlanBacking* backing = store.backing();
    const auto start = std::chrono::steady_clock::now();
    result = explorer_.Explore(segment.operations(), mode,
                               backing == nullptr || backing->ExplorationAllowed());
    exploring_ += std::chrono::steady_clock::now() - start;
  } catch (...) {
    // Nothing ran, but the optimizer may hold part of the deferred ops: start over, so they
    // are not registered twice next time.
    Reset(store, segment.operations());
    throw;
  }
  switch (result.kind) {
    case Exploration::Kind::kCompleted: {
      ++counters_.explorations;
      if (uncapped_) NoteUncappedExploration();  // Note [Uncapped growth]
      ExplainMiss(segment, store, mode, /*unfused=*/false);
      if (store.backing() != nullptr) store.backing()->OnExploration();
      const double explore_ms = std::chrono::duration<double, std::milli>(exploring_).count();
      const PlanId id = OnExplorationCompleted(segment.operations(), segment.dims(), store,
                                               std::move(result.optimization), mode, explore_ms);
      ExecuteThenReset(store, segment, [&] { RunPlan(segment, store, id); });
      return;
    }
    case Exploration::Kind::kContinue:
      EMBER_CHECK(mode == ExecutionMode::kLazy, "the explorer continued at a sync");
      return;
    case Exploration::Kind::kUnfused:
      // Exploration is capped: run unfused and leave the store alone, so a graph that never
      // repeats stops both re-exploring and growing the store.
      ExplainMiss(segment, store, mode, /*unfused=*/true);
      if (store.backing() != nullptr) store.backing()->OnUnfusedRun();
      ExecuteThenReset(store, segment,
                       [&] { segment.ExecuteUnfused(std::move(result.optimization)); });
      return;
  }
}

void Processor::ExplainMiss(const StreamSegment& segment, ExecutionPlanStore& store,
                            ExecutionMode mode, bool unfused) {
  const std::span<const OperationIr> ops = segment.operations();
  std::vector<MissCandidate> candidates;
  for (const PlanId id : store.PlansWithFirstKind(ops.front().kind)) {
    const ExecutionPlan& plan = store.Get(id);
    candidates.push_back({.label = fmt::format("#{}", id),
                          .operations = plan.operations,
                          .triggers = plan.triggers,
                          .found_dims = plan.found_dims});
  }
  std::vector<StoredPlanForMiss> stored;
  PlanBacking* backing = store.backing();
  if (backing != nullptr) backing->MissCandidates(ops.front(), &stored);
  for (const StoredPlanForMiss& plan : stored) {
    candidates.push_back({.label = plan.label,
                          .operations = plan.operations,
                          .triggers = plan.triggers,
                          .found_dims = plan.found_dims,
                          .environment_difference = plan.environment_difference});
  }
  const MissExplanation miss =
      ember::ExplainMiss({.operations = ops, .dims = segment.dims(), .mode = mode}, candidates);
  ++counters_.misses[static_cast<size_t>(miss.cause)];
  if (backing != nullptr) backing->OnMiss(miss);
  std::string line = miss.Line();
  if (unfused) line += " (exploration budget spent: runs unfused)";
  LogFusion(LogLevel::kMedium, [&] { return line; });
  recent_misses_.Add(std::move(line));
}

void Processor::RunPlan(StreamSegment& segment, ExecutionPlanStore& store, PlanId id) {
  PlanBacking* backing = store.backing();
  if (backing == nullptr) return segment.Execute(id, store);
  // The backing hears the end of the run also when it throws (its kernels are then the ones
  // that compiled before the failure).
  struct Ran {
    PlanBacking* backing;
    PlanId id;
    ~Ran() { backing->OnPlanRan(id); }
  };
  backing->OnPlanRunning(id);
  const Ran ran{backing, id};
  segment.Execute(id, store);
}

template <typename Execute>
void Processor::ExecuteThenReset(ExecutionPlanStore& store, StreamSegment& segment,
                                 Execute&& execute) {
  try {
    execute();
  } catch (...) {
    // A failed execution still drained what it covered (OperationQueue::ExecuteOptimization):
    // start over from the new head so the next op sees a consistent policy and explorer.
    Reset(store, segment.operations());
    throw;
  }
  Reset(store, segment.operations());
}

void Processor::Reset(ExecutionPlanStore& store, std::span<const OperationIr> ops) {
  explorer_.Reset(ops);
  exploring_ = {};
  policy_.Reset();
  if (ops.empty()) return;
  // The new head is hashed once, for the database and the policy alike (as in Process).
  const uint64_t first_hash = HashOp(ops.front());
  store.LoadStartingWith(ops.front(), first_hash);
  policy_.Update(store, ops.front(), first_hash);
  for (const OperationIr& op : ops.subspan(1)) policy_.Update(store, op);
}

PlanId Processor::OnExplorationCompleted(std::span<const OperationIr> ops,
                                         std::span<const int64_t> dims, ExecutionPlanStore& store,
                                         BlockOptimization optimization, ExecutionMode mode,
                                         double explore_ms) const {
  const size_t covered = optimization.ordering.size();
  EMBER_CHECK(covered >= 1 && covered <= ops.size(), "a plan covering {} of {} ops", covered,
              ops.size());
  LogFusion(LogLevel::kFull, [&] {
    return fmt::format("[plan] exploration completed: {}, {}/{} ops optimized",
                       ExecutionModeName(mode), covered, ops.size());
  });
  const std::span<const OperationIr> relative = ops.first(covered);
  ExecutionTrigger trigger = ExecutionTrigger::OnSync();
  if (mode == ExecutionMode::kLazy) {
    const std::span<const OperationIr> next = ops.subspan(covered);
    trigger = next.empty() ? ExecutionTrigger::Always()
                           : ExecutionTrigger::OnOperations({next.begin(), next.end()});
  }
  // A plan identical to one already available wins: it executes, and only gains the trigger.
  const Action existing = policy_.GetAction(store, relative, ExecutionMode::kSync);
  if (existing.kind == Action::Kind::kExecute) {
    store.AddTrigger(existing.plan, std::move(trigger));
    return existing.plan;
  }
  return store.Add(ExecutionPlan{.operations = {relative.begin(), relative.end()},
                                 .triggers = {std::move(trigger)},
                                 .optimization = std::move(optimization),
                                 .found_dims = {dims.begin(), dims.end()}},
                   explore_ms);
}

}  // namespace ember

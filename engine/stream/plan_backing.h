// PlanBacking: durable storage behind a device's ExecutionPlanStore (the plan database,
// store/persistent_plans.h). The in-memory store stays the only thing the policy reads; the
// backing fills it lazily and hears about everything new:
//   * the first time the store sees a first op, Load() hands over the stored plans that start
//     with it (each added through `add`, which returns the id it got; ids stay stable), and
//     Refresh() later hands over those published since by sibling processes;
//   * plans the search adds, triggers appended to any plan, and cache hits are reported as
//     they happen (the backing writes them behind, off the op path);
//   * the exploration budget of the workload (max_explorations across processes and runs).
//
// Threading: called under the device server's lock, like the store.
#pragma once

#include <cstdint>
#include <functional>

#include "engine/runtime/device_facts.h"
#include "engine/runtime/graph_recipe_store.h"
#include "engine/runtime/kernel_store.h"
#include "engine/stream/miss_explanation.h"
#include "engine/stream/plan.h"

namespace ember {

// For ember::Stats.
struct BackingCounters {
  uint64_t plans_loaded = 0;            // plans that joined the store from durable storage
  uint64_t plans_published = 0;         // new plans this process wrote
  uint64_t rows_quarantined = 0;        // stored plans refused (bad checksum, decode, validation)
  uint64_t load_ns = 0;                 // wall time spent in Load (lookup, decode, validate, add)
  uint64_t plans_loaded_from_shm = 0;   // of plans_loaded, those the shared-memory tier gave
  uint64_t plans_loaded_on_notify = 0;  // of plans_loaded, those read on a change feed's word
  uint64_t shm_publish_skipped = 0;     // plans the shared-memory tier could not take
  uint64_t hits_from_shm = 0;           // cache hits on plans loaded from the shared tier
  uint64_t hits_from_db = 0;            // cache hits on plans loaded from SQLite
};

// A stored plan that is not in the in-memory store, for explaining a miss.
struct StoredPlanForMiss {
  std::string label;  // "stored plan 17": what `ember-plans show` takes
  std::vector<OperationIr> operations;
  std::vector<ExecutionTrigger> triggers;
  std::vector<int64_t> found_dims;
  std::string environment_difference;  // set for a plan of another environment
};

class PlanBacking {
 public:
  virtual ~PlanBacking() = default;

  using AddPlan = std::function<PlanId(ExecutionPlan)>;
  // Stored plans whose first relative op equals `first`. Called once per distinct first op.
  virtual void Load(const OperationIr& first, const AddPlan& add) = 0;
  // A number that moves whenever plans may have appeared that an earlier Load did not see (a
  // sibling process published into the shared tier). Read on every segment start: cheap.
  virtual uint64_t Generation() { return 0; }
  // Appends a trigger to a plan of the store (deduplicated there, like the search's own).
  using AddTrigger = std::function<void(PlanId, ExecutionTrigger)>;
  // Called instead of Load for a first op already loaded, once Generation() has moved since:
  // adds the plans starting with `first` that the store does not have yet, and the triggers
  // siblings gave to the ones it has.
  virtual void Refresh(const OperationIr& /*first*/, const AddPlan& /*add*/,
                       const AddTrigger& /*add_trigger*/) {}
  // A plan the search found, after `explore_ms` of exploring (what the plan is worth keeping:
  // ember-plans gc weighs it).
  virtual void OnPlanAdded(PlanId id, const ExecutionPlan& plan, double explore_ms) = 0;
  // `plan` (plan `id`) has gained `trigger`, now its last one.
  virtual void OnTriggerAdded(PlanId id, const ExecutionPlan& plan,
                              const ExecutionTrigger& trigger) = 0;
  virtual void OnHit(PlanId id) = 0;

  // The store of compiled kernels, for a backend that compiles them (Backend::UseKernelStore),
  // or null. Asking for it says that plans' runs compile kernels: from then on a new plan is
  // published (to the shared tier and the database) when its first run ends, with the kernels
  // that run compiled, in one transaction.
  virtual KernelStore* AttachKernels() { return nullptr; }
  // The store of what the backend measured about the device (Backend::UseFactStore), scoped
  // to this environment, or null.
  virtual DeviceFactStore* AttachFacts() { return nullptr; }
  // The store of launch-window recipes (Backend::UseRecipeStore, engine/runtime/
  // graph_recipe_store.h), scoped to this environment and workload, or null.
  virtual GraphRecipeStore* AttachRecipes() { return nullptr; }
  // Plan `id` starts / ended a run (also one that threw); kernels compiled in between were
  // compiled for it.
  virtual void OnPlanRunning(PlanId /*id*/) {}
  virtual void OnPlanRan(PlanId /*id*/) {}

  // A segment starting with `first` found no plan to run (Note [Explaining a miss]): the
  // stored plans that could be the nearest one and are not in the store (same environment,
  // first op of the same kind), and, where this environment stores none for `first`, the
  // plans of other environments that start with it. Called once per exploration, never on a
  // cache hit; bounded, so a large database costs a miss a bounded read.
  virtual void MissCandidates(const OperationIr& /*first*/,
                              std::vector<StoredPlanForMiss>* /*out*/) {}
  // Why that segment missed, for the workload's record (`ember-plans explain`).
  virtual void OnMiss(const MissExplanation& /*miss*/) {}

  // Whether the workload may explore once more, and that it did.
  virtual bool ExplorationAllowed() = 0;
  virtual void OnExploration() = 0;
  // A segment ran unfused because the budget was spent.
  virtual void OnUnfusedRun() = 0;

  // Waits until everything reported so far is durable.
  virtual void Flush() = 0;
  // What ember::Sync waits for: the plans, triggers and exploration budget reported so far are
  // durable; hit and unfused-run counters may still be on their way (they are statistics, and
  // waiting for their write would cost every synchronizing step a database commit). On a
  // database server, nothing is waited for (PlanRepository::SyncWaitsForWrites).
  virtual void FlushForSync() { Flush(); }
  // The process is exiting: Flush, and leave the storage self-contained.
  virtual void Close() { Flush(); }
  virtual BackingCounters counters() const = 0;
};

}  // namespace ember

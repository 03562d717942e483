// PersistentPlans: the plan database behind a device's plan store (engine/stream/plan_backing.h):
// SQLite as the durable tier, read on the op path the first time a first op is seen, written
// behind by a PlanWriter (Note [Write-behind]). Plans are scoped to an environment (Note
// [Environment fingerprint]) and exploration budgets to a workload.
//
// With the shared-memory tier (shared_plan_tier.h, Note [Shared plan segment]) between them:
// a first op is looked up there before SQLite; plans found by exploring, and plans read from
// SQLite, are published there at once; a first op nobody has a plan for is claimed before this
// process explores it, or waited for when a sibling holds the claim. Plans read from the
// segment also go to the writer, which finds them in SQLite (binding their rows for hits and
// triggers) or stores them if their finder died before its write-behind committed.
//
// Every loaded row has its keys checked against its ops, then is decoded and validated
// (DecodeStoredPlan, store/repository/plan_row_check.h) before it joins the store; a row that
// fails is quarantined and counted, and the segment explores or runs unfused instead; at most
// kMaxPlansPerFirstOp plans of one first op are loaded (Note [Plans per first op]). Nothing the
// database does stops the program: a database that cannot be opened leaves the engine memory-only
// with one message (Open), and a failure later makes the writer stop with one message.
//
// The class keeps the order of the tiers and the one path by which a tier's plans join the
// store (Admit, persistent_plans_admit.cpp); what this process finds goes out through
// persistent_plans_publish.cpp. Each tier is a class of its own: SharedTierClient
// (shared_tier_client.h: the segment, reopened when it breaks), DatabaseReader
// (database_reader.h: the reading connection, its backoff and the change listener); beside them
// ExplorationBudget (exploration_budget.h) and MissCandidateCache (miss_candidate_cache.h); the
// backend's stores beside the plans are PersistentKernels, PersistentFacts and PersistentRecipes.
//
// Threading: the PlanBacking methods run under the device server's lock; the writer has its
// own thread and its own connection.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/core/status.h"
#include "engine/stream/plan_backing.h"
#include "store/codec/environment_fingerprint.h"
#include "store/database_reader.h"
#include "store/exploration_budget.h"
#include "store/miss_candidate_cache.h"
#include "store/persistent_facts.h"
#include "store/persistent_kernels.h"
#include "store/persistent_recipes.h"
#include "store/repository/plan_repository.h"
#include "store/repository/plan_writer.h"
#include "store/shared_tier_client.h"
#include "store/shm/shared_plan_tier.h"

namespace ember {

// Note [Plans per first op]
//   A stored row joins the in-memory store only when its plan_key, first_op_hash and num_ops are
//   those of its own ops (DecodeStoredPlan, plan_row_check.h); a row that is not is quarantined
//   like a row that fails its checksum, so copies of one plan under made-up keys are set aside
//   once instead of being loaded, and put in the shared segment, by every run. Plans whose keys
//   are right are still bounded: at most kMaxPlansPerFirstOp of one first op are loaded by a
//   process, from the database and the segment together, in publication order; the rows past
//   it are left unread (a database read asks for the bound and one row more, LIMIT) and said
//   once per first op at `basic`. A workload whose shapes settle
//   has a few plans per first op; one past the bound has shapes that change every step, whose
//   later plans would hardly be hit again (`ember-plans explain` says so).
inline constexpr size_t kMaxPlansPerFirstOp = 1024;

struct PersistentPlansOptions {
  std::string path;
  EnvironmentFingerprint environment;
  std::string workload;
  // The workload's cap when its row sets none ([fusion.search] max_explorations).
  std::optional<size_t> max_explorations;
  bool allow_shared_writable = false;
  // The shared-memory tier ([store] shm); off when false. Its segment's database path and
  // environment are filled in by Open.
  bool shm = false;
  uint64_t shm_bytes = uint64_t{64} << 20;
  uint32_t shm_wait_ms = 1000;
  // At most this many stored plans of one first op join the store (Note [Plans per first op]);
  // tests lower it.
  size_t max_plans_per_first_op = kMaxPlansPerFirstOp;
  // Read the kernels the workload's plans used at open (Note [Prefetched kernels],
  // persistent_kernels.h): for a backend that compiles kernels.
  bool prefetch_kernels = false;
};

class PersistentPlans final : public PlanBacking {
 public:
  static Status Open(const PersistentPlansOptions& options, std::unique_ptr<PersistentPlans>* out);
  ~PersistentPlans() override;

  void Load(const OperationIr& first, const AddPlan& add) override;
  uint64_t Generation() override;
  void Refresh(const OperationIr& first, const AddPlan& add,
               const AddTrigger& add_trigger) override;
  void OnPlanAdded(PlanId id, const ExecutionPlan& plan, double explore_ms) override;
  void OnTriggerAdded(PlanId id, const ExecutionPlan& plan,
                      const ExecutionTrigger& trigger) override;
  void OnHit(PlanId id) override;
  KernelStore* AttachKernels() override;
  DeviceFactStore* AttachFacts() override;
  GraphRecipeStore* AttachRecipes() override;
  void OnPlanRunning(PlanId id) override;
  void OnPlanRan(PlanId id) override;
  bool ExplorationAllowed() override;
  void OnExploration() override;
  void OnUnfusedRun() override;
  void MissCandidates(const OperationIr& first, std::vector<StoredPlanForMiss>* out) override;
  void OnMiss(const MissExplanation& miss) override;
  void Flush() override;
  void FlushForSync() override;
  void Close() override;
  BackingCounters counters() const override;

  // The shared tier, or null when it is off or was given up (tests).
  SharedPlanTier* shared_tier() { return shm_.tier(); }

 private:
  PersistentPlans() = default;

  // --- Admitting stored plans (persistent_plans_admit.cpp) ---
  // Where each plan of the in-memory store came from (plans this process explored are
  // kExplored), for the cache-hit counters by tier.
  enum class Tier : uint8_t { kExplored, kShm, kDatabase };
  // The plans one tier offers for a first op, in publication order: the segment's entries
  // (kShm) or the database's rows (kDatabase).
  struct Offered {
    Tier tier;
    std::span<const SharedPlanTier::Entry> entries;
    std::span<const StoredPlan> rows;
    size_t size() const { return tier == Tier::kShm ? entries.size() : rows.size(); }
    const Hash128& key(size_t i) const {
      return tier == Tier::kShm ? entries[i].key : rows[i].plan_key;
    }
  };
  // The one admit path: the offered plans of `first` that the store lacks join it, within the
  // bound (Note [Plans per first op]); with add_trigger, the triggers others gave to those it
  // has are merged. Returns how many plans joined.
  size_t Admit(const OperationIr& first, uint64_t hash, const Offered& offered, const AddPlan& add,
               const AddTrigger* add_trigger);
  // The segment's plans for `first` published since the last look, through Admit.
  size_t AdmitShared(const OperationIr& first, uint64_t hash, const AddPlan& add,
                     const AddTrigger* add_trigger);
  // The database's rows of `loaded`, through Admit.
  size_t AdmitStored(const OperationIr& first, uint64_t hash, const LoadedPlans& loaded,
                     const AddPlan& add, const AddTrigger* add_trigger);
  // The i-th offered plan, when it is usable and one of `first`'s; a database row that is not
  // usable is quarantined.
  bool Decode(const Offered& offered, size_t i, const OperationIr& first, uint64_t hash,
              ExecutionPlan* plan);
  // Adds the i-th offered plan to the store and tells the writer and the tiers of it.
  PlanId Join(const Offered& offered, size_t i, uint64_t hash, ExecutionPlan plan,
              const AddPlan& add);
  // Merges the triggers of `plan`, another process's newer version of the store's plan `id`,
  // into the store: they are stored already, so OnTriggerAdded does not write them again.
  void AddOthersTriggers(PlanId id, ExecutionPlan& plan, const AddTrigger& add_trigger);
  // Says (once per first op) that plans of `where` were left out at the bound.
  void SayCut(uint64_t hash, std::string_view where);
  void SetTier(PlanId id, Tier tier);
  // Whether the in-memory store has the plan of `key`.
  std::function<bool(const Hash128&)> Known() const;

  // --- Publishing what this process found (persistent_plans_publish.cpp) ---
  // A plan as the writer stores it.
  static PublishItem ItemFor(const ExecutionPlan& plan);
  // A compiled kernel (PersistentKernels' `keep`): into the pending plan's publication when
  // its first run compiled it, else to the writer, linked to the running plan if any.
  void KeepKernel(NewKernel kernel);
  // A kernel compiled before ran in this run (PersistentKernels::Link).
  void LinkKernel(const KernelBinaryKey& key);
  // Publishes the pending plan (shared tier, claim released, writer), if there is one.
  void PublishPending();

  // The tiers (a first op is looked up in the segment, then in the database) and the writer.
  // Destroyed in reverse: the shared tier before the writer, so that this process's claims are
  // released at once, not after the writer has applied what is queued; the reader last.
  DatabaseReader db_;
  std::unique_ptr<PlanWriter> writer_;
  // PlanRepository::SyncWaitsForWrites of the writer's database.
  bool sync_waits_ = true;
  ExplorationBudget budget_;
  MissCandidateCache misses_;
  SharedTierClient shm_;

  // Every plan in the in-memory store by key: a tier's plans join only when it lacks them.
  struct KeyHash {
    size_t operator()(const Hash128& key) const { return key.low ^ (key.high << 1); }
  };
  std::unordered_map<Hash128, PlanId, KeyHash> known_;
  // Indexed by PlanId.
  std::vector<Tier> tier_of_plan_;
  // Note [Plans per first op]: the bound, plans loaded so far per first-op hash, and the first
  // ops whose cut was said.
  size_t max_plans_per_first_op_ = kMaxPlansPerFirstOp;
  std::unordered_map<uint64_t, size_t> loaded_per_first_op_;
  std::set<uint64_t> cut_said_;
  // Set while triggers read from another process's plan are added to the store: they are
  // published and written by it already.
  bool applying_others_ = false;

  std::atomic<uint64_t> loaded_{0};
  std::atomic<uint64_t> loaded_from_shm_{0};
  std::atomic<uint64_t> loaded_on_notify_{0};
  std::atomic<uint64_t> quarantined_{0};
  std::atomic<uint64_t> load_ns_{0};
  std::atomic<uint64_t> hits_from_shm_{0};
  std::atomic<uint64_t> hits_from_db_{0};

  // Compiled kernels (Note [Stored kernels], persistent_kernels.h); attached once a backend
  // that compiles kernels asked for them.
  std::unique_ptr<PersistentKernels> kernels_;
  bool kernels_attached_ = false;
  // With kernels attached, a new plan waits here until its first run ends, gathering the
  // kernels that run compiles, then is published whole: siblings waiting on its claim get the
  // plan and its binaries together, and the database gets both in one transaction.
  struct PendingPlan {
    PlanId id = 0;
    PublishItem item;
    std::vector<uint8_t> encoded;  // EncodePlan of its latest version, for the shared tier
    std::set<uint64_t> linked;     // key hashes already in item.used_kernels
  };
  std::optional<PendingPlan> pending_;
  std::optional<PlanId> running_;

  // What the backend measured about the device (Note [Device facts], persistent_facts.h).
  std::unique_ptr<PersistentFacts> facts_;
  // The tapes of launch windows that repeated (Note [Graph recipes], persistent_recipes.h).
  std::unique_ptr<PersistentRecipes> recipes_;
};

// The executable's file name (the default workload name, EMBER_WORKLOAD unset).
std::string ExecutableName();

}  // namespace ember

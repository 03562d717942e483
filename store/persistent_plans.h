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
// Threading: the PlanBacking methods run under the device server's lock; the writer has its
// own thread and its own connection.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/core/status.h"
#include "engine/stream/plan_backing.h"
#include "store/codec/environment_fingerprint.h"
#include "store/persistent_kernels.h"
#include "store/plan_change_listener.h"
#include "store/repository/plan_repository.h"
#include "store/repository/plan_writer.h"
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
  SharedPlanTier* shared_tier() { return tier_.get(); }

 private:
  PersistentPlans() = default;

  // Adds the segment's plans for `first` published since the last look that the store lacks,
  // and (with add_trigger) the triggers siblings gave to those it has; returns how many plans.
  size_t LoadShared(const OperationIr& first, uint64_t hash, const AddPlan& add,
                    const AddTrigger* add_trigger);
  void PublishShared(uint64_t hash, const Hash128& key, const ExecutionPlan& plan);
  void PublishShared(uint64_t hash, const Hash128& key, std::span<const uint8_t> encoded);
  // A compiled kernel (PersistentKernels' `keep`): into the pending plan's publication when
  // its first run compiled it, else to the writer, linked to the running plan if any.
  void KeepKernel(NewKernel kernel);
  // A kernel compiled before ran in this run (PersistentKernels::Link).
  void LinkKernel(const KernelBinaryKey& key);
  // Publishes the pending plan (shared tier, claim released, writer), if there is one.
  void PublishPending();
  // The segment was found inconsistent or unusable: reopen it (a bounded number of times),
  // else go on without it.
  void OnSharedFailure(const Status& status);
  // The stored rows of `loaded` for `first` that the store lacks: added (and put in the shared
  // tier); with add_trigger, the triggers of those it has are merged too. Returns how many
  // plans were added.
  size_t AddStoredPlans(const OperationIr& first, uint64_t hash, const LoadedPlans& loaded,
                        const AddPlan& add, const AddTrigger* add_trigger);
  // Merges the triggers of `plan`, another process's newer version of the store's plan `id`,
  // into the store: they are stored already, so OnTriggerAdded does not write them again.
  void AddOthersTriggers(PlanId id, ExecutionPlan& plan, const AddTrigger& add_trigger);
  // Reads `first`'s plans from the database again when the change feed says other hosts
  // published something for it that the store lacks.
  void RefreshFromDatabase(const OperationIr& first, uint64_t hash, const AddPlan& add,
                           const AddTrigger& add_trigger);
  // A read of the database failed with `s`: reads pause (a server out of reach) or stop.
  void OnReadFailure(const Status& s);
  // Whether a single-flight claim lets this process explore `first` now (waiting for a
  // sibling's plan first when one holds the claim); loads that plan when it comes.
  size_t ClaimOrWait(const OperationIr& first, uint64_t hash, const AddPlan& add);

  std::unique_ptr<PlanRepository> reader_;
  std::unique_ptr<PlanWriter> writer_;
  // PlanRepository::SyncWaitsForWrites of the writer's database.
  bool sync_waits_ = true;
  EnvironmentRowId environment_ = 0;
  WorkloadRowId workload_ = 0;
  int64_t explorations_at_open_ = 0;
  std::optional<int64_t> cap_;
  int64_t explored_here_ = 0;
  // The configured cap (the workload row's own wins in the database too).
  std::optional<int64_t> configured_cap_;
  // An exploration the database granted (TryReserveExploration) and not yet spent: the budget
  // is spent in the database at once, so that processes (on a server, hosts) running together
  // never explore more than the cap between them. Local counting is the fallback when the
  // database cannot answer.
  bool reserved_ = false;
  bool reads_failed_ = false;
  // A server out of reach (PlanRepository::IsTransient): reads are skipped until reader_retry_at_,
  // then the reader reconnects; the pause doubles up to PlanWriter::kMaxRetry.
  bool reader_down_ = false;
  std::chrono::steady_clock::time_point reader_retry_at_;
  std::chrono::milliseconds reader_backoff_{0};
  // Whether the reader can be used now (reconnecting when its pause is over).
  bool ReaderUp();
  std::atomic<uint64_t> loaded_{0};
  std::atomic<uint64_t> quarantined_{0};
  // Note [Plans per first op]: the bound, plans loaded so far per first-op hash, and the first
  // ops whose cut was said.
  size_t max_plans_per_first_op_ = kMaxPlansPerFirstOp;
  std::unordered_map<uint64_t, size_t> loaded_per_first_op_;
  std::set<uint64_t> cut_said_;
  // Says (once per first op) that plans of `where` were left out at the bound.
  void SayCut(uint64_t hash, std::string_view where);
  // How many rows of one first op a database read asks for: the bound and one more, so that a
  // row past it is seen (and said) without the read costing the whole flood.
  size_t RowsToRead() const { return max_plans_per_first_op_ + 1; }
  std::atomic<uint64_t> load_ns_{0};
  // Where each plan of the in-memory store came from (indexed by PlanId; plans this process
  // explored are kExplored), for the cache-hit counters by tier.
  enum class Tier : uint8_t { kExplored, kShm, kDatabase };
  std::vector<Tier> tier_of_plan_;
  void SetTier(PlanId id, Tier tier);
  std::atomic<uint64_t> hits_from_shm_{0};
  std::atomic<uint64_t> hits_from_db_{0};

  // What other hosts publish (null where the database cannot tell: SQLite), and per first op
  // loaded, the listener's epoch of the last complete read of it.
  std::unique_ptr<PlanChangeListener> listener_;
  std::unordered_map<uint64_t, uint64_t> db_synced_;
  std::atomic<uint64_t> loaded_by_notify_{0};

  // The shared-memory tier (null when off).
  std::unique_ptr<SharedPlanTier> tier_;
  SharedSegmentOptions shm_options_;
  uint32_t shm_wait_ms_ = 0;
  // Times the segment was given up and reopened (each `ember-plans shm invalidate` costs one);
  // past kMaxShmReopens the process keeps to SQLite rather than chase a segment that keeps
  // breaking.
  static constexpr int kMaxShmReopens = 8;
  int shm_reopens_ = 0;
  bool shm_full_logged_ = false;
  struct KeyHash {
    size_t operator()(const Hash128& key) const { return key.low ^ (key.high << 1); }
  };
  // Every plan in the in-memory store by key: a refresh adds only the others.
  std::unordered_map<Hash128, PlanId, KeyHash> known_;
  // Per first-op hash, the segment's chain head at the last look (Lookup's `since`).
  std::unordered_map<uint64_t, uint64_t> shm_heads_;
  // Set while triggers read from the segment are added to the store: they are a sibling's,
  // already published and written by it.
  bool applying_shared_ = false;
  std::atomic<uint64_t> loaded_from_shm_{0};
  std::atomic<uint64_t> shm_skipped_{0};

  // Compiled kernels (Note [Stored kernels], persistent_kernels.h); attached once a backend
  // that compiles kernels asked for them.
  std::unique_ptr<PersistentKernels> kernels_;
  bool kernels_attached_ = false;
  // With kernels attached, a new plan waits here until its first run ends, gathering the
  // kernels that run compiles, then is published whole: siblings waiting on its claim get the
  // plan and its binaries together, and SQLite gets both in one transaction.
  struct PendingPlan {
    PlanId id = 0;
    PublishItem item;
    std::vector<uint8_t> encoded;  // EncodePlan of its latest version, for the shared tier
    std::set<uint64_t> linked;     // key hashes already in item.used_kernels
  };
  std::optional<PendingPlan> pending_;
  std::optional<PlanId> running_;

  // The stored plans a miss is compared with (Note [Explaining a miss]), per first op kind:
  // read at most once per kMissCandidateAge, so that a workload past its exploration budget,
  // whose every segment misses, does not read the database every step.
  static constexpr size_t kMaxMissCandidates = 32;
  static constexpr size_t kMaxOtherEnvironmentCandidates = 8;
  static constexpr std::chrono::seconds kMissCandidateAge{2};
  struct MissCandidate {
    Hash128 key;
    StoredPlanForMiss plan;
  };
  struct MissCandidateCache {
    std::chrono::steady_clock::time_point read_at;
    std::vector<MissCandidate> plans;
  };
  std::unordered_map<int, MissCandidateCache> miss_candidates_;
  std::string environment_text_;  // CanonicalEnvironmentText of this process's environment
  // Decodes the rows of `loaded` into `out`; `difference` is set for another environment's.
  static void AddMissCandidates(const LoadedPlans& loaded, const std::string& difference,
                                std::vector<MissCandidate>* out);
};

// The executable's file name (the default workload name, EMBER_WORKLOAD unset).
std::string ExecutableName();

}  // namespace ember

// PlanRepository: the SQLite tier of the plan store — environments, plans and their triggers,
// workloads and their exploration ledger, plan use per workload, compiled kernels
// (docs/PLAN_DATABASE.md; the schema is migrations/0001_plan_store.sql).
//
// Every method returns a Status and never throws or aborts on a database problem (Note [SQLite
// errors]): the engine then degrades to memory-only. Writes run in short BEGIN IMMEDIATE
// transactions with busy retries (Note [Busy handling]); a write on a read-only database
// returns Unavailable with the reason (plan_database.h) and changes nothing.
//
// Cross-process rules:
//   * "Existing plan wins": plans are unique per (environment, plan_key). A publication that
//     finds the key taken gets the existing row's id back (InsertOutcome::kExisting) and its
//     triggers are merged into that row; the bytes already stored are never replaced, except a
//     quarantined row, which a fresh publication repairs. A different ops_blob under the same
//     key is a hash collision (or an EMBER_HASH_ZERO build): nothing is stored, kKeyCollision.
//   * Triggers are append-only and deduplicated on (plan, kind, ops_blob): positions 0, 1, ...
//     follow the order in which distinct triggers were first appended, by any process.
//   * Workload counters are updated in the database (x = x + n), never read-modify-written in
//     memory, so every process's contribution counts.
//   * A Publish batch — plans, their triggers, their kernels, extra triggers and kernels — is
//     one transaction: after a crash it is all there or not at all.
//
// Loading verifies each plan's checksum (Note [Row checksums]); a mismatching row is
// quarantined, logged once at `basic`, counted in LoadedPlans::quarantined, and not returned.
// Decoding and validating the blobs is the caller's job, which reports a bad row with
// Quarantine().
//
// Threading: one thread at a time (one SQLite connection). Open one repository per thread that
// needs one and one per process; never carry one across fork().
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string_view>
#include <utility>

#include "engine/core/status.h"
#include "store/codec/environment_fingerprint.h"
#include "store/database/open_options.h"
#include "store/database/plan_database.h"
#include "store/repository/plan_rows.h"

namespace ember {

class SqliteStatement;

class PlanRepository {
 public:
  // Opens (and creates or migrates) the database of `options` (PlanDatabase::Open).
  static Status Open(const PlanDbOptions& options, std::unique_ptr<PlanRepository>* out);

  PlanDatabase& database() { return *database_; }
  bool writable() const { return database_->writable(); }

  // --- Environments ---------------------------------------------------------------------------
  // The row id of `fingerprint`'s environment, inserting it when new. NotFound on a read-only
  // database that does not know it; Corruption when the stored description of the same stable
  // id differs.
  Status EnsureEnvironment(const EnvironmentFingerprint& fingerprint, EnvironmentRowId* id);

  // --- Plans and triggers ---------------------------------------------------------------------
  // The 'ok' plans of `environment` whose first op hashes to `first_op_hash`, by id, each with
  // its triggers in order. An empty result is OK.
  Status LoadPlansByFirstOp(EnvironmentRowId environment, uint64_t first_op_hash, LoadedPlans* out);
  // The id of the plan of `environment` with this key (any status), or nullopt.
  Status FindPlanByKey(EnvironmentRowId environment, const Hash128& plan_key,
                       std::optional<PlanRowId>* id);
  // Stores `plan` (see "existing plan wins" above).
  Status InsertPlan(EnvironmentRowId environment, const NewPlan& plan, InsertResult* result);
  // Appends the triggers that `plan` does not have yet, in order. *added (optional) gets how
  // many were new. InvalidArgument when the plan does not exist.
  Status AppendTriggers(PlanRowId plan, std::span<const TriggerRow> triggers,
                        size_t* added = nullptr);
  // Commits the whole batch in one transaction (see above).
  Status Publish(const PublishBatch& batch, PublishResult* result);
  // Counts one hit per entry of `plans` (an id may repeat) and sets last_hit; with a workload,
  // also its plan_usage rows. Ids of plans that no longer exist are skipped.
  Status RecordHits(std::span<const PlanRowId> plans, std::optional<WorkloadRowId> workload);
  // The same with each plan once and its number of hits.
  Status RecordHitCounts(std::span<const std::pair<PlanRowId, int64_t>> counts,
                         std::optional<WorkloadRowId> workload);
  // Marks a plan 'quarantined' with `reason`: it is no longer loaded. NotFound when absent.
  Status Quarantine(PlanRowId plan, std::string_view reason);

  // --- Workloads (the exploration ledger) ----------------------------------------------------
  // The workload `name` of `environment`, created with no explorations and no cap when new; its
  // last_seen is refreshed. On a read-only database an unknown workload is Unavailable.
  Status GetOrCreateWorkload(EnvironmentRowId environment, std::string_view name, WorkloadRow* out);
  // The workload `name` of `environment` without creating it (a read): *found says whether it
  // exists.
  Status FindWorkload(EnvironmentRowId environment, std::string_view name, bool* found,
                      WorkloadRow* out);
  Status GetWorkload(WorkloadRowId workload, WorkloadRow* out);
  // explorations += n, atomically across processes; *count gets the new persisted value.
  Status AddExplorations(WorkloadRowId workload, int64_t n, int64_t* count);
  // Takes one exploration from the budget if any is left (explorations < max_explorations, or
  // no cap): *granted says whether it did; *count gets the persisted count afterwards. Two
  // processes can never both take the last one.
  Status TryReserveExploration(WorkloadRowId workload, bool* granted, int64_t* count);
  // Sets max_explorations (nullopt: unlimited). InvalidArgument when negative.
  Status SetCap(WorkloadRowId workload, std::optional<int64_t> max_explorations);
  Status ResetExplorations(WorkloadRowId workload);
  // hits += counters.hits, misses += ..., unfused_runs += ...
  Status AddCounters(WorkloadRowId workload, const WorkloadCounters& counters);

  // --- Compiled kernels ------------------------------------------------------------------------
  // Stores a kernel; an existing row with the same key wins (its id is returned, added false).
  Status PutKernel(EnvironmentRowId environment, const NewKernel& kernel, KernelRowId* id,
                   bool* added = nullptr);
  // The kernel with exactly this key. NotFound when there is none; Corruption when its checksum
  // does not match — the row is then deleted (when writable) and logged, and never returned.
  Status GetKernel(EnvironmentRowId environment, const KernelKey& key, StoredKernel* out);

  // Called inside Publish's transaction after each plan item, with its index (tests use it to
  // kill a process mid-transaction).
  void SetPublishHookForTesting(std::function<void(size_t)> hook) {
    publish_hook_ = std::move(hook);
  }

 private:
  explicit PlanRepository(std::unique_ptr<PlanDatabase> database)
      : database_(std::move(database)) {}

  SqliteDatabase& db() { return database_->sqlite(); }
  Status UpdateWorkload(WorkloadRowId workload, std::string_view what, std::string_view sql,
                        const std::function<void(SqliteStatement&)>& bind);
  // In one write transaction: runs `insert_sql` (an INSERT … ON CONFLICT that keeps or updates
  // an existing row) with the values `bind` gives it, then `find`, which must see the row; a row
  // it does not see is Corruption naming `row` ("environment env-…", "workload 'train'").
  // `what` names the step ("adding an environment").
  Status InsertThenFind(std::string_view what, std::string_view insert_sql,
                        const std::function<void(SqliteStatement&)>& bind,
                        const std::function<Status(bool* found)>& find, std::string_view row);

  std::unique_ptr<PlanDatabase> database_;
  std::function<void(size_t)> publish_hook_;
  // Bad rows already logged (a read-only database cannot quarantine them): logged once each.
  std::set<PlanRowId> reported_bad_plans_;
};

}  // namespace ember

// PlanRepository: the durable tier of the plan store — environments, plans and their triggers,
// workloads and their exploration ledger, plan use per workload, compiled kernels, device facts,
// graph recipes (docs/PLAN_DATABASE.md). One interface, one implementation per database: SQLite
// (store/sqlite/, a file) and PostgreSQL (store/postgres/, a server shared across hosts), both
// SqlPlanRepository (sql_plan_repository.h: the SQL written once) with what is their own.
// PlanRepository::Open picks one from the location (store/plan_repository_open.cpp); the
// engine, the writer, the shared tier and the tools see only this interface, so a third
// database joins by implementing it and naming its scheme there (docs/ARCHITECTURE.md, "Adding
// a plan-database backend").
//
// Every method returns a Status and never throws or aborts on a database problem: the engine
// then degrades to memory-only. Writes run in short transactions, retried when the database is
// busy; a write on a read-only database returns Unavailable with the reason and changes nothing.
// Every implementation keeps the rules below across processes (and, for a server, hosts).
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
// Threading: one thread at a time (one connection). Open one repository per thread that needs
// one and one per process; never carry one across fork().
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/core/status.h"
#include "store/codec/environment_fingerprint.h"
#include "store/repository/open_options.h"
#include "store/repository/plan_change_feed.h"
#include "store/repository/plan_rows.h"
#include "store/repository/sql_session.h"

namespace ember {

class PlanRepository {
 public:
  // Opens (and creates or migrates) the plan database at `options.path`: a libpq connection URI
  // (postgresql://… or postgres://…) opens the PostgreSQL implementation, anything else is a
  // SQLite file (SqlitePlanRepository::Open). Defined in store/plan_repository_open.cpp.
  static Status Open(const PlanDbOptions& options, std::unique_ptr<PlanRepository>* out);

  virtual ~PlanRepository() = default;

  // "sqlite" or "postgresql".
  virtual std::string_view backend() const = 0;
  // Where the plans live, for messages: the file's path, or the server's URI without its
  // password.
  virtual const std::string& location() const = 0;
  virtual bool writable() const = 0;
  // Why the database is read-only ("" when writable).
  virtual std::string read_only_reason() const = 0;
  // OK when writable; otherwise Unavailable, "plan database <location>: refusing <what>:
  // <reason>" — the one wording every refused write uses, on either backend.
  Status CheckWritable(std::string_view what) const;
  // The newest schema migration recorded in the database (after this open's migrations).
  virtual int schema_version() const = 0;
  // Plain SQL on this repository's connection, for the maintenance code and the tools
  // (sql_session.h, store/admin/); the engine never uses it. Valid until the next Reconnect.
  virtual SqlSession& sql() = 0;

  // --- Upkeep the background writer asks for (PlanWriter) -------------------------------------
  // Before a batch of writes: an error when writing now would store nothing anyone reads (a
  // SQLite file moved away from its path), after doing what can be done for what was written.
  virtual Status CheckBeforeWriting() = 0;
  // After a batch that asked for it (a sync): let the database fold what it wrote into place
  // (SQLite: a passive WAL checkpoint). OK where there is nothing to do.
  virtual Status Checkpoint() = 0;
  // Whether `status`, which this repository returned, means the database is out of reach for
  // now (a server that went away) rather than a refusal: the writer then holds its writes and
  // retries them (Note [Write-behind]). A file is never out of reach in that sense.
  virtual bool IsTransient(const Status& status) const {
    (void)status;
    return false;
  }
  // Whether ember::Sync waits until the writes enqueued before it are done (PlanBacking::
  // FlushForSync). A file: yes — a local commit, and the next process to open the file then
  // finds the plans. A server: no — it would cost every synchronizing step a round trip, and a
  // slow or locked server would stall computing; running hosts hear of the plans by NOTIFY
  // when they commit, and the writer still drains everything at exit.
  virtual bool SyncWaitsForWrites() const { return true; }
  // After a transient failure: tries to reach the database again; OK once it can be used.
  virtual Status Reconnect() {
    return Status::Unavailable(location() + " cannot be reached again");
  }

  // A feed of the plans and triggers any connection commits from now on, on a connection of its
  // own (plan_change_feed.h); *out stays null where the database cannot push changes (a SQLite
  // file: the shared-memory tier tells a host's processes instead). Uses only the location, so
  // it may be called from any thread.
  virtual Status OpenChangeFeed(std::unique_ptr<PlanChangeFeed>* out) {
    out->reset();
    return Status::Ok();
  }

  // --- Environments ---------------------------------------------------------------------------
  // The row id of `fingerprint`'s environment, inserting it when new. NotFound on a read-only
  // database that does not know it; Corruption when the stored description of the same stable
  // id differs.
  Status EnsureEnvironment(const EnvironmentFingerprint& fingerprint, EnvironmentRowId* id);
  // The same by the environment's stable id and canonical text (EnvironmentStableId,
  // CanonicalEnvironmentText), as another database stores them (`ember-plans copy`).
  virtual Status EnsureEnvironmentText(std::string_view stable_id, std::string_view description,
                                       EnvironmentRowId* id) = 0;
  // Every environment, by id.
  virtual Status ListEnvironments(std::vector<EnvironmentRow>* out) = 0;

  // --- Plans and triggers ---------------------------------------------------------------------
  // The 'ok' plans of `environment` whose first op hashes to `first_op_hash`, by id, each with
  // its triggers in order; at most `limit` rows are read (damaged ones included), so that a
  // first op with a flood of rows costs a bounded read (Note [Plans per first op],
  // store/persistent_plans.h). An empty result is OK.
  virtual Status LoadPlansByFirstOp(EnvironmentRowId environment, uint64_t first_op_hash,
                                    LoadedPlans* out, size_t limit = kAllRows) = 0;
  static constexpr size_t kAllRows = static_cast<size_t>(-1);
  // Every 'ok' plan of `environment`, by id, each with its triggers (checksums verified as
  // above): what `ember-plans copy` moves.
  virtual Status LoadAllPlans(EnvironmentRowId environment, LoadedPlans* out) = 0;
  // The id of the plan of `environment` with this key (any status), or nullopt.
  virtual Status FindPlanByKey(EnvironmentRowId environment, const Hash128& plan_key,
                               std::optional<PlanRowId>* id) = 0;
  // Stores `plan` (see "existing plan wins" above).
  virtual Status InsertPlan(EnvironmentRowId environment, const NewPlan& plan,
                            InsertResult* result) = 0;
  // Appends the triggers that `plan` does not have yet, in order. *added (optional) gets how
  // many were new. NotFound when the plan does not exist.
  virtual Status AppendTriggers(PlanRowId plan, std::span<const TriggerRow> triggers,
                                size_t* added = nullptr) = 0;
  // Commits the whole batch in one transaction (see above).
  virtual Status Publish(const PublishBatch& batch, PublishResult* result) = 0;
  // Counts one hit per entry of `plans` (an id may repeat) and sets last_hit; with a workload,
  // also its plan_usage rows. Ids of plans that no longer exist are skipped.
  Status RecordHits(std::span<const PlanRowId> plans, std::optional<WorkloadRowId> workload);
  // The same with each plan once and its number of hits.
  virtual Status RecordHitCounts(std::span<const std::pair<PlanRowId, int64_t>> counts,
                                 std::optional<WorkloadRowId> workload) = 0;
  // Marks a plan 'quarantined' with `reason`: it is no longer loaded. NotFound when absent.
  virtual Status Quarantine(PlanRowId plan, std::string_view reason) = 0;
  // The 'ok' plan of row `plan` as a PublishItem (its plan columns and every trigger, no
  // kernels), what stores it again should it be removed; nullopt when there is no such row.
  // A read (Note [Plans gc removed], plan_writer.h).
  Status ReadPlanItem(PlanRowId plan, std::optional<PublishItem>* out);

  // --- Workloads (the exploration ledger) ----------------------------------------------------
  // The workload `name` of `environment`, created with no explorations and no cap when new; its
  // last_seen is refreshed. On a read-only database an unknown workload is Unavailable.
  virtual Status GetOrCreateWorkload(EnvironmentRowId environment, std::string_view name,
                                     WorkloadRow* out) = 0;
  // The workload `name` of `environment` without creating it (a read): *found says whether it
  // exists.
  virtual Status FindWorkload(EnvironmentRowId environment, std::string_view name, bool* found,
                              WorkloadRow* out) = 0;
  virtual Status GetWorkload(WorkloadRowId workload, WorkloadRow* out) = 0;
  // explorations += n, atomically across processes; *count gets the new persisted value.
  virtual Status AddExplorations(WorkloadRowId workload, int64_t n, int64_t* count) = 0;
  // Takes one exploration from the budget if any is left (explorations < max_explorations, or
  // no cap): *granted says whether it did; *count gets the persisted count afterwards. Two
  // processes can never both take the last one.
  // `cap_if_unset` is the cap when the row stores none (the configured max_explorations; the
  // stored cap wins, as everywhere); nullopt: unlimited then.
  virtual Status TryReserveExploration(WorkloadRowId workload, std::optional<int64_t> cap_if_unset,
                                       bool* granted, int64_t* count) = 0;
  // Sets max_explorations (nullopt: unlimited). InvalidArgument when negative.
  virtual Status SetCap(WorkloadRowId workload, std::optional<int64_t> max_explorations) = 0;
  virtual Status ResetExplorations(WorkloadRowId workload) = 0;
  // hits += counters.hits, misses += ..., unfused_runs += ...
  virtual Status AddCounters(WorkloadRowId workload, const WorkloadCounters& counters) = 0;

  // --- Explaining misses (Note [Explaining a miss]) ------------------------------------------
  // Implemented once, on sql(), for every database (store/repository/plan_repository_misses.cpp).
  // The newest `limit` 'ok' plans of `environment` whose first op has kind `first_op_kind`
  // (OpKind's stored number), newest first, each with its triggers and found_dims: the stored
  // plans a miss is compared with. Rows written before schema 3 have no kind and are not
  // returned; damaged rows are reported as by every load.
  Status LoadPlansByFirstKind(EnvironmentRowId environment, int first_op_kind, size_t limit,
                              LoadedPlans* out);
  // Adds each pattern's count to the workload's row for it (created when new), keeps its
  // latest detail and merges its seen values, in one transaction.
  Status RecordMisses(WorkloadRowId workload, std::span<const WorkloadMiss> misses);
  // The misses of one workload (or, nullopt, of all), most frequent first.
  Status ListMisses(std::optional<WorkloadRowId> workload, std::vector<WorkloadMiss>* out);
  // Sets plans.first_op_kind and found_dims of the row `plan` just written for `written`
  // (the kind decoded from its ops_blob when `written` does not say). Called in the write
  // transaction of every plan row a publication or an import writes.
  Status WriteMissColumns(PlanRowId plan, const NewPlan& written);

  // --- Compiled kernels ------------------------------------------------------------------------
  // Stores a kernel; an existing row with the same key wins (its id is returned, added false).
  virtual Status PutKernel(EnvironmentRowId environment, const NewKernel& kernel, KernelRowId* id,
                           bool* added = nullptr) = 0;
  // The kernel with exactly this key. NotFound when there is none; Corruption when its checksum
  // does not match — the row is then deleted (when writable) and logged, and never returned.
  virtual Status GetKernel(EnvironmentRowId environment, const KernelKey& key,
                           StoredKernel* out) = 0;
  // The kernels of `environment` that plans `workload` ran use (plan_usage, plan_kernels), in
  // one query, for a warm start to hold before its first op asks (Note [Prefetched kernels],
  // store/persistent_kernels.h); rows whose checksum fails are left out (the lookup that later
  // asks for them deletes them). Stops adding once `max_bytes` of binaries are read.
  virtual Status LoadWorkloadKernels(EnvironmentRowId environment, WorkloadRowId workload,
                                     size_t max_bytes, std::vector<StoredKernel>* out) = 0;

  // --- Device facts (Note [Device facts], store/persistent_facts.h) --------------------------
  // Every fact of `environment`, in one query, by name. A row whose checksum (Note [Row
  // checksums]) does not match is counted in out->damaged and never returned; it stays until a
  // new value of its name replaces it. An empty result is OK.
  virtual Status LoadDeviceFacts(EnvironmentRowId environment, LoadedDeviceFacts* out) = 0;
  // Stores `fact` for `environment`, replacing the value its name had (a last writer wins: a
  // fact only chooses between correct paths). InvalidArgument, and nothing written, for a fact
  // CheckDeviceFact refuses.
  virtual Status PutDeviceFact(EnvironmentRowId environment, const DeviceFact& fact) = 0;
  // OK when both databases can store `name` and `value` as they are: at most
  // DeviceFactStore::kMaxNameBytes and kMaxValueBytes (engine/runtime/device_facts.h), a name
  // that is not empty, valid UTF-8 without NUL (PostgreSQL's text refuses both); otherwise
  // InvalidArgument saying which.
  static Status CheckDeviceFact(std::string_view name, std::string_view value);

  // --- Graph recipes (Note [Graph recipes], store/persistent_recipes.h) ----------------------
  // Every recipe of `workload` in `environment`, in one query, by key. A row whose kernel list
  // does not parse or whose checksum (Note [Row checksums]) does not match is counted in
  // out->damaged, one that CheckGraphRecipe refuses (a forged or foreign body) in
  // out->refused; neither is returned, and both stay until a recipe of their key replaces them
  // (`ember-plans verify` names them). An empty result is OK.
  virtual Status LoadGraphRecipes(EnvironmentRowId environment, std::string_view workload,
                                  LoadedGraphRecipes* out) = 0;
  // Stores `recipe` of `workload`, replacing the one with its key. InvalidArgument, and nothing
  // written, for a recipe CheckGraphRecipe refuses.
  virtual Status PutGraphRecipe(EnvironmentRowId environment, std::string_view workload,
                                const GraphRecipe& recipe) = 0;
  // OK when `recipe` is one a store keeps and a process may use: a body of at most
  // GraphRecipeStore::kMaxBodyBytes that DecodeTape reads (engine/runtime/graph_tape.h), `key`
  // its TapeHash and `kernels` its TapeKernels; and a workload name both databases can store
  // (UTF-8 without NUL). Otherwise InvalidArgument saying which.
  static Status CheckGraphRecipe(std::string_view workload, const GraphRecipe& recipe);

  // Called inside Publish's transaction after each plan item, with its index (tests use it to
  // kill a process mid-transaction).
  void SetPublishHookForTesting(std::function<void(size_t)> hook) {
    publish_hook_ = std::move(hook);
  }

  // --- Row writes ----------------------------------------------------------------------------
  // The row writes a publication is made of, each inside the caller's write transaction (the
  // rules of the header comment hold for each). Publish uses them; so does a bundle import,
  // which runs them inside sql().WriteTransaction.
  virtual Status WritePlanRow(EnvironmentRowId environment, const NewPlan& plan, int64_t now,
                              InsertResult* result) = 0;
  // REQUIRES: the plan exists (NotFound otherwise). *added counts the new rows.
  virtual Status WriteTriggerRows(PlanRowId plan, std::span<const TriggerRow> triggers,
                                  size_t* added) = 0;
  virtual Status WriteKernelRow(EnvironmentRowId environment, const NewKernel& kernel,
                                std::optional<PlanRowId> plan_id, int64_t now, KernelRowId* id,
                                bool* added) = 0;
  virtual Status WriteKernelLink(EnvironmentRowId environment, const KernelKey& key, PlanRowId plan,
                                 bool* linked) = 0;

 protected:
  PlanRepository() = default;

  // A whole batch with those: the body of every implementation's Publish transaction.
  Status WriteBatch(const PublishBatch& batch, int64_t now, PublishResult* result);

  // Inside a write transaction: the row `append` is for (by its key when it has one, else by
  // its id), locked on a server until the commit so that a concurrent gc waits; nullopt when
  // it is gone.
  Status ResolvePlanRow(EnvironmentRowId environment, const TriggerAppend& append,
                        std::optional<PlanRowId>* out);
  // Inside the write transaction that just repaired the quarantined row `plan` with `written`:
  // deletes its trigger rows that do not validate with the new plan (plan_row_check.h), each
  // judged with the ones kept before it, so that the repaired row loads; all are kept when the
  // plan alone does not validate (the load then quarantines it, as before).
  Status DropInvalidTriggers(PlanRowId plan, const NewPlan& written);

  // What every load does with its bad rows: counts them in `out`, and quarantines each (or,
  // on a read-only database, logs it) once per repository.
  void ReportBadRows(std::span<const BadPlanRow> bad, LoadedPlans* out);

  std::function<void(size_t)> publish_hook_;

 private:
  // Bad rows already reported (a read-only database cannot quarantine them): once each.
  std::set<PlanRowId> reported_bad_plans_;
};

}  // namespace ember

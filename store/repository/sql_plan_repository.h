// SqlPlanRepository: the plan repository (plan_repository.h, whose rules it keeps) written once,
// on SqlSession's shared dialect (sql_session.h), for every database that speaks it:
// environments, loads and plan lookup, row writes (plans under "existing plan wins", triggers in
// append order, kernels and their links), the checksum checks (plan_row_check.h), hits,
// quarantine, the workload ledger, device facts and graph recipes. A database joins by deriving
// from it with what is its own: the connection behind sql(), its upkeep (checkpoints, transient
// errors, reconnection, a change feed) and the hooks below. SqlitePlanRepository (store/sqlite/, a
// file) and PostgresPlanRepository (store/postgres/, a server) do; docs/ARCHITECTURE.md, "Adding a
// plan-database backend", says what a third writes.
//
// Transactions: a read of one statement runs through sql().ReadStatement, a change of one
// statement through sql().WriteStatement, anything that must commit together in
// sql().WriteTransaction; so a SQLite file retries each while it is busy, and a server pays one
// round trip per statement.
//
// Threading: one thread at a time (one connection).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/core/status.h"
#include "store/repository/plan_repository.h"

namespace ember {

class SqlPlanRepository : public PlanRepository {
 public:
  Status EnsureEnvironmentText(std::string_view stable_id, std::string_view description,
                               EnvironmentRowId* id) final;
  Status ListEnvironments(std::vector<EnvironmentRow>* out) final;
  Status LoadAllPlans(EnvironmentRowId environment, LoadedPlans* out) final;
  Status LoadPlansByFirstOp(EnvironmentRowId environment, uint64_t first_op_hash, LoadedPlans* out,
                            size_t limit = kAllRows) final;
  Status FindPlanByKey(EnvironmentRowId environment, const Hash128& plan_key,
                       std::optional<PlanRowId>* id) final;
  Status InsertPlan(EnvironmentRowId environment, const NewPlan& plan, InsertResult* result) final;
  Status AppendTriggers(PlanRowId plan, std::span<const TriggerRow> triggers,
                        size_t* added = nullptr) final;
  Status Publish(const PublishBatch& batch, PublishResult* result) final;
  Status RecordHitCounts(std::span<const std::pair<PlanRowId, int64_t>> counts,
                         std::optional<WorkloadRowId> workload) final;
  Status Quarantine(PlanRowId plan, std::string_view reason) final;
  Status GetOrCreateWorkload(EnvironmentRowId environment, std::string_view name,
                             WorkloadRow* out) final;
  Status FindWorkload(EnvironmentRowId environment, std::string_view name, bool* found,
                      WorkloadRow* out) final;
  Status GetWorkload(WorkloadRowId workload, WorkloadRow* out) final;
  Status AddExplorations(WorkloadRowId workload, int64_t n, int64_t* count) final;
  Status TryReserveExploration(WorkloadRowId workload, std::optional<int64_t> cap_if_unset,
                               bool* granted, int64_t* count) final;
  Status SetCap(WorkloadRowId workload, std::optional<int64_t> max_explorations) final;
  Status ResetExplorations(WorkloadRowId workload) final;
  Status AddCounters(WorkloadRowId workload, const WorkloadCounters& counters) final;
  Status PutKernel(EnvironmentRowId environment, const NewKernel& kernel, KernelRowId* id,
                   bool* added = nullptr) final;
  Status GetKernel(EnvironmentRowId environment, const KernelKey& key, StoredKernel* out) final;
  Status LoadWorkloadKernels(EnvironmentRowId environment, WorkloadRowId workload, size_t max_bytes,
                             std::vector<StoredKernel>* out) final;
  Status LoadDeviceFacts(EnvironmentRowId environment, LoadedDeviceFacts* out) final;
  Status PutDeviceFact(EnvironmentRowId environment, const DeviceFact& fact) final;
  Status LoadGraphRecipes(EnvironmentRowId environment, std::string_view workload,
                          LoadedGraphRecipes* out) final;
  Status PutGraphRecipe(EnvironmentRowId environment, std::string_view workload,
                        const GraphRecipe& recipe) final;

  Status WritePlanRow(EnvironmentRowId environment, const NewPlan& plan, int64_t now,
                      InsertResult* result) final;
  Status WriteTriggerRows(PlanRowId plan, std::span<const TriggerRow> triggers,
                          size_t* added) final;
  Status WriteKernelRow(EnvironmentRowId environment, const NewKernel& kernel,
                        std::optional<PlanRowId> plan_id, int64_t now, KernelRowId* id,
                        bool* added) final;
  Status WriteKernelLink(EnvironmentRowId environment, const KernelKey& key, PlanRowId plan,
                         bool* linked) final;

 protected:
  SqlPlanRepository() = default;

  // --- Where the databases differ ------------------------------------------------------------
  // Inside RecordHitCounts' write transaction: hits += count and last_hit = max(last_hit, now)
  // for each plan of `counts` that still exists, and, with a workload, its plan_usage rows the
  // same way (saturating_sql.h). SQLite: one statement per plan; a server: arrays, two
  // statements in all.
  virtual Status WriteHitCounts(std::span<const std::pair<PlanRowId, int64_t>> counts,
                                std::optional<WorkloadRowId> workload, int64_t now) = 0;
  // Before LoadPlansByFirstOp reads: an error (returned as is) when reading now could mix in
  // what is not this database's (a SQLite file whose write-ahead log is no longer at its path).
  virtual Status CheckBeforeReading() { return Status::Ok(); }
  // The statement that stores a new plan row: `insert` (an INSERT … ON CONFLICT DO NOTHING
  // RETURNING id, environment_id, first_op_hash, plan_key), or one that also announces the row
  // (a server's NOTIFY, in the same round trip), returning its id first.
  virtual std::string AnnouncingPlanInsert(std::string insert) const { return insert; }
  // Inside the write transaction that repaired plan `plan` ('p') or appended triggers to it
  // ('t'): tells the database's change feed, where it has one (plan_change_feed.h).
  virtual Status Announce(char kind, PlanRowId plan, EnvironmentRowId environment,
                          uint64_t first_op_hash, std::span<const uint8_t> plan_key) {
    (void)kind, (void)plan, (void)environment, (void)first_op_hash, (void)plan_key;
    return Status::Ok();
  }

 private:
  // The 'ok' plans of `environment` (of one first-op hash, or all) with their triggers: at most
  // `limit` plan rows (kAllRows: every one), good or bad, each with all its triggers.
  Status LoadPlans(EnvironmentRowId environment, std::optional<uint64_t> first_op_hash,
                   size_t limit, LoadedPlans* out);
  // One UPDATE of workload ?1 (more values from `args`, ?2 on); NotFound when it has no row.
  Status UpdateWorkload(WorkloadRowId workload, std::string_view what, std::string_view sql,
                        std::vector<SqlValue> args);
};

}  // namespace ember

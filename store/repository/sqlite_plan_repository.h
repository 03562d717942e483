// SqlitePlanRepository: the plan repository (plan_repository.h, whose rules it keeps) in a
// SQLite file (the schema is migrations/0001_plan_store.sql and what follows it).
//
// Every method returns a Status and never throws or aborts on a database problem (Note [SQLite
// errors]). Writes run in short BEGIN IMMEDIATE transactions with busy retries (Note [Busy
// handling]); a write on a read-only database returns Unavailable with the reason
// (plan_database.h) and changes nothing. The file's own checks (trust, header, WAL binding)
// happen when it opens (PlanDatabase::Open).
//
// Threading: one thread at a time (one SQLite connection).
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

#include "engine/core/status.h"
#include "store/database/plan_database.h"
#include "store/repository/sql_plan_repository.h"
#include "store/repository/sqlite_sql_session.h"

namespace ember {

class SqliteStatement;

class SqlitePlanRepository final : public SqlPlanRepository {
 public:
  // Opens (and creates or migrates) the database file of `options` (PlanDatabase::Open).
  static Status Open(const PlanDbOptions& options, std::unique_ptr<SqlitePlanRepository>* out);

  // The file and its connection, for the tests and tools that need SQLite itself.
  PlanDatabase& database() { return *database_; }

  std::string_view backend() const override;
  const std::string& location() const override;
  bool writable() const override;
  std::string read_only_reason() const override;
  int schema_version() const override { return database_->schema_version(); }
  SqlSession& sql() override { return sql_; }
  Status CheckBeforeWriting() override;
  Status Checkpoint() override;
  // A lock that another connection held past the busy timeout and its retries (a long
  // `ember-plans` command, a backup, another program's transaction) ends: the writer holds
  // what it could not write and tries again (Note [Write-behind]) instead of storing nothing
  // more for the rest of the run. Read-only, full or damaged files are refusals, not this.
  bool IsTransient(const Status& status) const override;
  // The same connection serves again once the lock is gone: nothing to reopen.
  Status Reconnect() override { return Status::Ok(); }
  Status EnsureEnvironmentText(std::string_view stable_id, std::string_view description,
                               EnvironmentRowId* id) override;
  Status ListEnvironments(std::vector<EnvironmentRow>* out) override;
  Status LoadAllPlans(EnvironmentRowId environment, LoadedPlans* out) override;
  Status LoadPlansByFirstOp(EnvironmentRowId environment, uint64_t first_op_hash, LoadedPlans* out,
                            size_t limit = kAllRows) override;
  Status FindPlanByKey(EnvironmentRowId environment, const Hash128& plan_key,
                       std::optional<PlanRowId>* id) override;
  Status InsertPlan(EnvironmentRowId environment, const NewPlan& plan,
                    InsertResult* result) override;
  Status AppendTriggers(PlanRowId plan, std::span<const TriggerRow> triggers,
                        size_t* added = nullptr) override;
  Status Publish(const PublishBatch& batch, PublishResult* result) override;
  Status RecordHitCounts(std::span<const std::pair<PlanRowId, int64_t>> counts,
                         std::optional<WorkloadRowId> workload) override;
  Status Quarantine(PlanRowId plan, std::string_view reason) override;
  Status PutKernel(EnvironmentRowId environment, const NewKernel& kernel, KernelRowId* id,
                   bool* added = nullptr) override;
  Status GetKernel(EnvironmentRowId environment, const KernelKey& key, StoredKernel* out) override;

  Status WritePlanRow(EnvironmentRowId environment, const NewPlan& plan, int64_t now,
                      InsertResult* result) override;
  Status WriteTriggerRows(PlanRowId plan, std::span<const TriggerRow> triggers,
                          size_t* added) override;
  Status WriteKernelRow(EnvironmentRowId environment, const NewKernel& kernel,
                        std::optional<PlanRowId> plan_id, int64_t now, KernelRowId* id,
                        bool* added) override;
  Status WriteKernelLink(EnvironmentRowId environment, const KernelKey& key, PlanRowId plan,
                         bool* linked) override;

 private:
  explicit SqlitePlanRepository(std::unique_ptr<PlanDatabase> database)
      : database_(std::move(database)), sql_(database_->sqlite()) {}

  SqliteDatabase& db() { return database_->sqlite(); }
  // In one write transaction: runs `insert_sql` (an INSERT … ON CONFLICT that keeps or updates
  // an existing row) with the values `bind` gives it, then `find`, which must see the row; a row
  // it does not see is Corruption naming `row` ("environment env-…", "workload 'train'").
  // `what` names the step ("adding an environment").
  Status InsertThenFind(std::string_view what, std::string_view insert_sql,
                        const std::function<void(SqliteStatement&)>& bind,
                        const std::function<Status(bool* found)>& find, std::string_view row);

  std::unique_ptr<PlanDatabase> database_;
  SqliteSqlSession sql_;
};

}  // namespace ember

// SqlitePlanRepository: the plan repository (plan_repository.h, whose rules it keeps) in a
// SQLite file (the schema is migrations/0001_plan_store.sql and what follows it). Its SQL is
// SqlPlanRepository's (sql_plan_repository.h); what is the file's own is here: opening it
// (PlanDatabase::Open: trust, header, WAL binding, migrations), the checks before reading and
// writing, checkpoints, busy locks as transient errors, and hits written one plan at a time.
//
// Every method returns a Status and never throws or aborts on a database problem (Note [SQLite
// errors]). Writes run in short BEGIN IMMEDIATE transactions with busy retries (Note [Busy
// handling]); a write on a read-only database returns Unavailable with the reason
// (plan_database.h) and changes nothing.
//
// Threading: one thread at a time (one SQLite connection).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "engine/core/status.h"
#include "store/repository/sql_plan_repository.h"
#include "store/sqlite/plan_database.h"
#include "store/sqlite/sqlite_sql_session.h"

namespace ember {

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

 protected:
  // One UPDATE per plan (and one upsert of its plan_usage row), each prepared once.
  Status WriteHitCounts(std::span<const std::pair<PlanRowId, int64_t>> counts,
                        std::optional<WorkloadRowId> workload, int64_t now) override;
  // Reads through a log that is no longer the path's could mix its pages with another's:
  // NotFound then.
  Status CheckBeforeReading() override;

 private:
  explicit SqlitePlanRepository(std::unique_ptr<PlanDatabase> database)
      : database_(std::move(database)), sql_(database_->sqlite()) {}

  SqliteDatabase& db() { return database_->sqlite(); }

  std::unique_ptr<PlanDatabase> database_;
  SqliteSqlSession sql_;
};

}  // namespace ember

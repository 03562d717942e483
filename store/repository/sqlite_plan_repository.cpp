// SqlitePlanRepository: opening, environments, hits and quarantine. Loading, publication and
// kernels live in sqlite_plan_repository_{load,publish,kernels}.cpp; the workload ledger is
// SqlPlanRepository's (sql_plan_repository_workloads.cpp).
#include "store/repository/sqlite_plan_repository.h"

#include <fmt/format.h>

#include <map>
#include <utility>

#include "engine/core/clock.h"
#include "engine/core/log.h"
#include "store/repository/saturating_sql.h"
#include "store/sqlite/sqlite_error.h"
#include "store/sqlite/sqlite_statement.h"
#include "store/sqlite/sqlite_transaction.h"

namespace ember {

Status SqlitePlanRepository::Open(const PlanDbOptions& options,
                                  std::unique_ptr<SqlitePlanRepository>* out) {
  out->reset();
  std::unique_ptr<PlanDatabase> database;
  if (Status s = PlanDatabase::Open(options, &database); !s.ok()) return s;
  out->reset(new SqlitePlanRepository(std::move(database)));
  return Status::Ok();
}

std::string_view SqlitePlanRepository::backend() const { return "sqlite"; }
const std::string& SqlitePlanRepository::location() const { return database_->path(); }
bool SqlitePlanRepository::writable() const { return database_->writable(); }
std::string SqlitePlanRepository::read_only_reason() const { return database_->read_only_reason(); }

Status SqlitePlanRepository::CheckBeforeWriting() {
  // Writing into a file that is no longer at its path would store nothing anyone reads. Its
  // log, though, is still at the path, beside whatever is there now: copy it into the file it
  // belongs to and empty it, so that no SQLite program replays it onto the newcomer (Note
  // [Write-ahead log binding]), and a moved file keeps every plan committed to it.
  Status moved = database_->CheckStillAtPath();
  if (!moved.ok()) db().Exec("PRAGMA wal_checkpoint(TRUNCATE)", "emptying the write-ahead log");
  return moved;
}

bool SqlitePlanRepository::IsTransient(const Status& status) const {
  // SqliteError makes a busy or locked result Unavailable, as it does a read-only file; the
  // connection's last result code tells them apart.
  return status.code() == Status::Code::kUnavailable &&
         IsSqliteBusy(database_->sqlite().last_error_code());
}

Status SqlitePlanRepository::Checkpoint() {
  return db().Exec("PRAGMA wal_checkpoint(PASSIVE)", "checkpointing the write-ahead log");
}

namespace {

// *found is false when `stable_id` has no row; otherwise *id is set and the description checked.
Status FindEnvironment(SqliteDatabase& db, const std::string& stable_id,
                       const std::string& description, bool* found, EnvironmentRowId* id) {
  SqliteStatement select;
  if (Status s = db.Prepare("SELECT id, description FROM environments WHERE fingerprint = ?1",
                            "looking up the environment", &select);
      !s.ok()) {
    return s;
  }
  select.BindText(1, stable_id);
  if (Status s = select.Step(found); !s.ok() || !*found) return s;
  if (select.ColumnText(1) != description) {
    return Status::Corruption(
        fmt::format("plan database {}: environment {} is stored as {} but should be {}", db.path(),
                    stable_id, select.ColumnText(1), description));
  }
  *id = select.ColumnInt64(0);
  return Status::Ok();
}

}  // namespace

Status SqlitePlanRepository::ListEnvironments(std::vector<EnvironmentRow>* out) {
  out->clear();
  return RunTransaction(db(), TransactionKind::kRead, "listing environments", [&]() -> Status {
    out->clear();
    SqliteStatement select;
    if (Status s = db().Prepare("SELECT id, fingerprint, description FROM environments ORDER BY id",
                                "listing environments", &select);
        !s.ok()) {
      return s;
    }
    for (;;) {
      bool row = false;
      if (Status s = select.Step(&row); !s.ok()) return s;
      if (!row) return Status::Ok();
      out->push_back({select.ColumnInt64(0), select.ColumnText(1), select.ColumnText(2)});
    }
  });
}

Status SqlitePlanRepository::EnsureEnvironmentText(std::string_view stable_id_text,
                                                   std::string_view description_text,
                                                   EnvironmentRowId* id) {
  const std::string stable_id(stable_id_text);
  const std::string description(description_text);
  bool found = false;
  Status s = RunWithBusyRetry(db(), "looking up the environment", [&] {
    return FindEnvironment(db(), stable_id, description, &found, id);
  });
  if (!s.ok() || found) return s;
  if (!writable()) {
    return Status::NotFound(fmt::format("plan database {} has no plans for environment {} ({})",
                                        database_->path(), stable_id, description));
  }
  return InsertThenFind(
      "adding an environment",
      "INSERT INTO environments (fingerprint, description, created) VALUES (?1, ?2, ?3) "
      "ON CONFLICT (fingerprint) DO NOTHING",
      [&](SqliteStatement& insert) {
        insert.BindText(1, stable_id);
        insert.BindText(2, description);
        insert.BindInt64(3, NowUnixMillis());
      },
      [&](bool* found_now) { return FindEnvironment(db(), stable_id, description, found_now, id); },
      fmt::format("environment {}", stable_id));
}

Status SqlitePlanRepository::InsertThenFind(std::string_view what, std::string_view insert_sql,
                                            const std::function<void(SqliteStatement&)>& bind,
                                            const std::function<Status(bool* found)>& find,
                                            std::string_view row) {
  return RunTransaction(db(), TransactionKind::kWrite, what, [&]() -> Status {
    SqliteStatement insert;
    if (Status r = db().Prepare(insert_sql, what, &insert); !r.ok()) return r;
    bind(insert);
    if (Status r = insert.Run(); !r.ok()) return r;
    bool found = false;
    if (Status r = find(&found); !r.ok()) return r;
    if (!found) {
      return Status::Corruption(
          fmt::format("plan database {}: {} vanished after its insert", database_->path(), row));
    }
    return Status::Ok();
  });
}

Status SqlitePlanRepository::RecordHitCounts(std::span<const std::pair<PlanRowId, int64_t>> counts,
                                             std::optional<WorkloadRowId> workload) {
  if (counts.empty()) return Status::Ok();
  if (Status s = database_->CheckWritable("recording hits"); !s.ok()) return s;
  return RunTransaction(db(), TransactionKind::kWrite, "recording hits", [&]() -> Status {
    const int64_t now = NowUnixMillis();
    SqliteStatement hit;
    if (Status r = db().Prepare("UPDATE plans SET hits = " + SaturatingAdd("hits", "?2") +
                                    ", last_hit = MAX(COALESCE(last_hit, ?3), ?3) WHERE id = ?1",
                                "recording hits", &hit);
        !r.ok()) {
      return r;
    }
    SqliteStatement usage;
    if (workload.has_value()) {
      if (Status r = db().Prepare(
              "INSERT INTO plan_usage (workload_id, plan_id, hits, last_hit) "
              "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (workload_id, plan_id) DO UPDATE SET "
              "hits = " +
                  SaturatingAdd("hits", "excluded.hits") +
                  ", last_hit = MAX(last_hit, excluded.last_hit)",
              "recording plan use", &usage);
          !r.ok()) {
        return r;
      }
    }
    for (const auto& [id, count] : counts) {
      hit.Reset();
      hit.BindInt64(1, id);
      hit.BindInt64(2, NonNegative(count));
      hit.BindInt64(3, now);
      if (Status r = hit.Run(); !r.ok()) return r;
      if (db().changes() == 0 || !workload.has_value()) continue;  // Plan gone, or no workload.
      usage.Reset();
      usage.BindInt64(1, *workload);
      usage.BindInt64(2, id);
      usage.BindInt64(3, NonNegative(count));
      usage.BindInt64(4, now);
      if (Status r = usage.Run(); !r.ok()) return r;
    }
    return Status::Ok();
  });
}

Status SqlitePlanRepository::Quarantine(PlanRowId plan, std::string_view reason) {
  if (Status s = database_->CheckWritable("quarantining a plan"); !s.ok()) return s;
  bool found = false;
  Status s = RunTransaction(db(), TransactionKind::kWrite, "quarantining a plan", [&]() -> Status {
    SqliteStatement update;
    if (Status r = db().Prepare(
            "UPDATE plans SET status = 'quarantined', quarantine_reason = ?2 WHERE id = ?1",
            "quarantining a plan", &update);
        !r.ok()) {
      return r;
    }
    update.BindInt64(1, plan);
    update.BindText(2, reason);
    if (Status r = update.Run(); !r.ok()) return r;
    found = db().changes() == 1;
    return Status::Ok();
  });
  if (!s.ok()) return s;
  if (!found) {
    return Status::NotFound(
        fmt::format("plan database {} has no plan {} to quarantine", database_->path(), plan));
  }
  LogFusion(LogLevel::kBasic, [&] {
    return fmt::format("[store] quarantined plan {} in {}: {}", plan, database_->path(), reason);
  });
  return Status::Ok();
}

}  // namespace ember

// SqlitePlanRepository: opening, the file's checks and upkeep, and hits. Everything else is
// SqlPlanRepository's (sql_plan_repository*.cpp).
#include "store/sqlite/sqlite_plan_repository.h"

#include <fmt/format.h>

#include <utility>

#include "store/repository/saturating_sql.h"
#include "store/sqlite/sqlite_error.h"
#include "store/sqlite/sqlite_statement.h"

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

Status SqlitePlanRepository::CheckBeforeReading() {
  if (Status gone = database_->CheckWalStillAtPath(); !gone.ok()) {
    return Status::NotFound(fmt::format("plan database {}: {}", location(), gone.message()));
  }
  return Status::Ok();
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

Status SqlitePlanRepository::WriteHitCounts(std::span<const std::pair<PlanRowId, int64_t>> counts,
                                            std::optional<WorkloadRowId> workload, int64_t now) {
  SqliteStatement hit;
  if (Status r = db().Prepare("UPDATE plans SET hits = " + SaturatingAdd("hits", "?2") +
                                  ", last_hit = MAX(COALESCE(last_hit, ?3), ?3) WHERE id = ?1",
                              "recording hits", &hit);
      !r.ok()) {
    return r;
  }
  SqliteStatement usage;
  if (workload.has_value()) {
    if (Status r =
            db().Prepare("INSERT INTO plan_usage (workload_id, plan_id, hits, last_hit) "
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
}

}  // namespace ember

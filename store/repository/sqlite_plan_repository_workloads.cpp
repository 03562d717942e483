// SqlitePlanRepository's workload ledger: per-workload exploration counts and counters, persisted
// so that a budget spent yesterday is spent today (max_explorations per workload:
// docs/PLAN_DATABASE.md, "Budgets"; test SqliteWorkloads.BudgetSpentYesterdayIsSpentToday).
#include <fmt/format.h>

#include "engine/core/clock.h"
#include "store/repository/saturating_sql.h"
#include "store/repository/sqlite_plan_repository.h"
#include "store/sqlite/sqlite_statement.h"
#include "store/sqlite/sqlite_transaction.h"

namespace ember {

namespace {

constexpr std::string_view kWorkloadColumns =
    "id, environment_id, name, explorations, max_explorations, hits, misses, unfused_runs, "
    "last_seen";

void ReadWorkloadRow(const SqliteStatement& select, WorkloadRow* out) {
  out->id = select.ColumnInt64(0);
  out->environment_id = select.ColumnInt64(1);
  out->name = select.ColumnText(2);
  out->explorations = select.ColumnInt64(3);
  out->max_explorations =
      select.ColumnIsNull(4) ? std::nullopt : std::optional<int64_t>(select.ColumnInt64(4));
  out->hits = select.ColumnInt64(5);
  out->misses = select.ColumnInt64(6);
  out->unfused_runs = select.ColumnInt64(7);
  out->last_seen = select.ColumnInt64(8);
}

Status SelectWorkloadByName(SqliteDatabase& db, EnvironmentRowId environment, std::string_view name,
                            bool* found, WorkloadRow* out) {
  SqliteStatement select;
  if (Status s =
          db.Prepare(fmt::format("SELECT {} FROM workloads WHERE environment_id = ?1 AND name = ?2",
                                 kWorkloadColumns),
                     "reading a workload", &select);
      !s.ok()) {
    return s;
  }
  select.BindInt64(1, environment);
  select.BindText(2, name);
  if (Status s = select.Step(found); !s.ok() || !*found) return s;
  ReadWorkloadRow(select, out);
  return Status::Ok();
}

Status SelectWorkload(SqliteDatabase& db, WorkloadRowId workload, WorkloadRow* out) {
  SqliteStatement select;
  if (Status s = db.Prepare(fmt::format("SELECT {} FROM workloads WHERE id = ?1", kWorkloadColumns),
                            "reading a workload", &select);
      !s.ok()) {
    return s;
  }
  select.BindInt64(1, workload);
  bool found = false;
  if (Status s = select.Step(&found); !s.ok()) return s;
  if (!found) {
    return Status::NotFound(
        fmt::format("plan database {} has no workload {}", db.path(), workload));
  }
  ReadWorkloadRow(select, out);
  return Status::Ok();
}

}  // namespace

Status SqlitePlanRepository::GetOrCreateWorkload(EnvironmentRowId environment,
                                                 std::string_view name, WorkloadRow* out) {
  if (!writable()) {
    bool found = false;
    if (Status s = FindWorkload(environment, name, &found, out); !s.ok() || found) return s;
    return database_->CheckWritable(fmt::format("creating workload '{}'", name));
  }
  return InsertThenFind(
      "creating a workload",
      "INSERT INTO workloads (environment_id, name, last_seen) VALUES (?1, ?2, ?3) "
      "ON CONFLICT (environment_id, name) DO UPDATE SET last_seen = excluded.last_seen",
      [&](SqliteStatement& upsert) {
        upsert.BindInt64(1, environment);
        upsert.BindText(2, name);
        upsert.BindInt64(3, NowUnixMillis());
      },
      [&](bool* found) { return SelectWorkloadByName(db(), environment, name, found, out); },
      fmt::format("workload '{}'", name));
}

Status SqlitePlanRepository::FindWorkload(EnvironmentRowId environment, std::string_view name,
                                          bool* found, WorkloadRow* out) {
  *found = false;
  return RunWithBusyRetry(db(), "reading a workload", [&] {
    return SelectWorkloadByName(db(), environment, name, found, out);
  });
}

Status SqlitePlanRepository::GetWorkload(WorkloadRowId workload, WorkloadRow* out) {
  return RunWithBusyRetry(db(), "reading a workload",
                          [&] { return SelectWorkload(db(), workload, out); });
}

Status SqlitePlanRepository::UpdateWorkload(WorkloadRowId workload, std::string_view what,
                                            std::string_view sql,
                                            const std::function<void(SqliteStatement&)>& bind) {
  if (Status s = database_->CheckWritable(what); !s.ok()) return s;
  bool found = false;
  Status s = RunTransaction(db(), TransactionKind::kWrite, what, [&]() -> Status {
    SqliteStatement update;
    if (Status r = db().Prepare(sql, what, &update); !r.ok()) return r;
    update.BindInt64(1, workload);
    bind(update);
    if (Status r = update.Run(); !r.ok()) return r;
    found = db().changes() == 1;
    return Status::Ok();
  });
  if (!s.ok()) return s;
  if (!found) {
    return Status::NotFound(
        fmt::format("plan database {} has no workload {}", database_->path(), workload));
  }
  return Status::Ok();
}

Status SqlitePlanRepository::AddExplorations(WorkloadRowId workload, int64_t n, int64_t* count) {
  if (n < 0) {
    return Status::InvalidArgument(fmt::format("AddExplorations: n must be >= 0, got {}", n));
  }
  if (Status s = database_->CheckWritable("counting explorations"); !s.ok()) return s;
  return RunTransaction(db(), TransactionKind::kWrite, "counting explorations", [&]() -> Status {
    SqliteStatement update;
    if (Status r = db().Prepare(
            "UPDATE workloads SET explorations = " + SaturatingAdd("explorations", "?2") +
                ", last_seen = ?3 WHERE id = ?1",
            "counting explorations", &update);
        !r.ok()) {
      return r;
    }
    update.BindInt64(1, workload);
    update.BindInt64(2, n);
    update.BindInt64(3, NowUnixMillis());
    if (Status r = update.Run(); !r.ok()) return r;
    WorkloadRow row;
    if (Status r = SelectWorkload(db(), workload, &row); !r.ok()) return r;
    *count = row.explorations;
    return Status::Ok();
  });
}

Status SqlitePlanRepository::TryReserveExploration(WorkloadRowId workload,
                                                   std::optional<int64_t> cap_if_unset,
                                                   bool* granted, int64_t* count) {
  if (Status s = database_->CheckWritable("reserving an exploration"); !s.ok()) return s;
  return RunTransaction(db(), TransactionKind::kWrite, "reserving an exploration", [&]() -> Status {
    SqliteStatement update;
    if (Status r = db().Prepare(
            "UPDATE workloads SET explorations = " + SaturatingAdd("explorations", "1") +
                ", last_seen = ?2 WHERE id = ?1 AND (COALESCE(max_explorations, ?3) IS NULL OR "
                "explorations < COALESCE(max_explorations, ?3))",
            "reserving an exploration", &update);
        !r.ok()) {
      return r;
    }
    update.BindInt64(1, workload);
    update.BindInt64(2, NowUnixMillis());
    if (cap_if_unset.has_value()) {
      update.BindInt64(3, *cap_if_unset);
    } else {
      update.BindNull(3);
    }
    if (Status r = update.Run(); !r.ok()) return r;
    *granted = db().changes() == 1;
    WorkloadRow row;
    if (Status r = SelectWorkload(db(), workload, &row); !r.ok()) return r;
    *count = row.explorations;
    return Status::Ok();
  });
}

Status SqlitePlanRepository::SetCap(WorkloadRowId workload,
                                    std::optional<int64_t> max_explorations) {
  if (max_explorations.has_value() && *max_explorations < 0) {
    return Status::InvalidArgument(
        fmt::format("max_explorations must be >= 0 or unlimited, got {}", *max_explorations));
  }
  return UpdateWorkload(workload, "setting max_explorations",
                        "UPDATE workloads SET max_explorations = ?2 WHERE id = ?1",
                        [&](SqliteStatement& update) {
                          if (max_explorations.has_value()) {
                            update.BindInt64(2, *max_explorations);
                          } else {
                            update.BindNull(2);
                          }
                        });
}

Status SqlitePlanRepository::ResetExplorations(WorkloadRowId workload) {
  return UpdateWorkload(workload, "resetting explorations",
                        "UPDATE workloads SET explorations = 0 WHERE id = ?1",
                        [](SqliteStatement&) {});
}

Status SqlitePlanRepository::AddCounters(WorkloadRowId workload, const WorkloadCounters& counters) {
  if (counters.hits < 0 || counters.misses < 0 || counters.unfused_runs < 0) {
    return Status::InvalidArgument("workload counters only grow: negative increment");
  }
  return UpdateWorkload(workload, "counting workload hits and misses",
                        "UPDATE workloads SET hits = " + SaturatingAdd("hits", "?2") +
                            ", misses = " + SaturatingAdd("misses", "?3") + ", unfused_runs = " +
                            SaturatingAdd("unfused_runs", "?4") + ", last_seen = ?5 WHERE id = ?1",
                        [&](SqliteStatement& update) {
                          update.BindInt64(2, counters.hits);
                          update.BindInt64(3, counters.misses);
                          update.BindInt64(4, counters.unfused_runs);
                          update.BindInt64(5, NowUnixMillis());
                        });
}

}  // namespace ember

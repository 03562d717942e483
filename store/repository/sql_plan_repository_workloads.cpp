// SqlPlanRepository's workload ledger: per-workload exploration counts and counters, persisted
// so that a budget spent yesterday is spent today (max_explorations per workload:
// docs/PLAN_DATABASE.md, "Budgets"; test SqliteWorkloads.BudgetSpentYesterdayIsSpentToday). On a
// server the budget is one row for the whole fleet: every change is a single UPDATE there,
// never a read-modify-write on a host.
#include <fmt/format.h>

#include <utility>
#include <vector>

#include "engine/core/clock.h"
#include "store/repository/saturating_sql.h"
#include "store/repository/sql_plan_repository.h"

namespace ember {

namespace {

constexpr std::string_view kWorkloadColumns =
    "id, environment_id, name, explorations, max_explorations, hits, misses, unfused_runs, "
    "last_seen";

WorkloadRow ReadWorkloadRow(const SqlRow& row) {
  return {.id = row.Int64(0),
          .environment_id = row.Int64(1),
          .name = row.Text(2),
          .explorations = row.Int64(3),
          .max_explorations = row.IsNull(4) ? std::nullopt : std::optional<int64_t>(row.Int64(4)),
          .hits = row.Int64(5),
          .misses = row.Int64(6),
          .unfused_runs = row.Int64(7),
          .last_seen = row.Int64(8)};
}

SqlValue OptionalValue(std::optional<int64_t> value) {
  return value.has_value() ? SqlValue(*value) : SqlValue();
}

// The workload `name` of `environment`: *found says whether it exists.
Status SelectWorkload(SqlSession& sql, EnvironmentRowId environment, std::string_view name,
                      bool* found, WorkloadRow* out) {
  *found = false;
  return sql.Query(fmt::format("SELECT {} FROM workloads WHERE environment_id = ?1 AND name = ?2",
                               kWorkloadColumns),
                   {SqlValue(int64_t{environment}), SqlValue(std::string(name))},
                   "reading a workload", [&](const SqlRow& row) {
                     *out = ReadWorkloadRow(row);
                     *found = true;
                   });
}

}  // namespace

Status SqlPlanRepository::GetOrCreateWorkload(EnvironmentRowId environment, std::string_view name,
                                              WorkloadRow* out) {
  if (!writable()) {
    bool found = false;
    if (Status s = FindWorkload(environment, name, &found, out); !s.ok() || found) return s;
    return CheckWritable(fmt::format("creating workload '{}'", name));
  }
  // The row is read again after the upsert, in the same transaction: one that is not there
  // then (a trigger of the file's own deleted it) is corruption, named.
  return sql().WriteTransaction("creating a workload", [&]() -> Status {
    if (Status s = sql().Exec(
            "INSERT INTO workloads (environment_id, name, last_seen) VALUES (?1, ?2, ?3) "
            "ON CONFLICT (environment_id, name) DO UPDATE SET last_seen = excluded.last_seen",
            {SqlValue(int64_t{environment}), SqlValue(std::string(name)),
             SqlValue(NowUnixMillis())},
            "creating a workload");
        !s.ok()) {
      return s;
    }
    bool found = false;
    if (Status s = SelectWorkload(sql(), environment, name, &found, out); !s.ok() || found) {
      return s;
    }
    return Status::Corruption(
        fmt::format("plan database {}: workload '{}' vanished after its insert", location(), name));
  });
}

Status SqlPlanRepository::FindWorkload(EnvironmentRowId environment, std::string_view name,
                                       bool* found, WorkloadRow* out) {
  return sql().ReadStatement("reading a workload",
                             [&] { return SelectWorkload(sql(), environment, name, found, out); });
}

Status SqlPlanRepository::GetWorkload(WorkloadRowId workload, WorkloadRow* out) {
  const std::string select =
      fmt::format("SELECT {} FROM workloads WHERE id = ?1", kWorkloadColumns);
  bool found = false;
  Status s = sql().ReadStatement("reading a workload", [&] {
    found = false;
    return sql().Query(select, {SqlValue(int64_t{workload})}, "reading a workload",
                       [&](const SqlRow& row) {
                         *out = ReadWorkloadRow(row);
                         found = true;
                       });
  });
  if (!s.ok() || found) return s;
  return Status::NotFound(fmt::format("plan database {} has no workload {}", location(), workload));
}

Status SqlPlanRepository::UpdateWorkload(WorkloadRowId workload, std::string_view what,
                                         std::string_view statement, std::vector<SqlValue> args) {
  if (Status s = CheckWritable(what); !s.ok()) return s;
  args.insert(args.begin(), SqlValue(int64_t{workload}));
  int64_t changed = 0;
  if (Status s = sql().WriteStatement(
          what, [&] { return sql().Exec(statement, std::span(args), what, &changed); });
      !s.ok()) {
    return s;
  }
  if (changed == 1) return Status::Ok();
  return Status::NotFound(fmt::format("plan database {} has no workload {}", location(), workload));
}

Status SqlPlanRepository::AddExplorations(WorkloadRowId workload, int64_t n, int64_t* count) {
  if (n < 0) {
    return Status::InvalidArgument(fmt::format("AddExplorations: n must be >= 0, got {}", n));
  }
  if (Status s = CheckWritable("counting explorations"); !s.ok()) return s;
  bool found = false;
  Status s = sql().WriteStatement("counting explorations", [&] {
    found = false;
    return sql().Query(
        "UPDATE workloads SET explorations = " + SaturatingAdd("explorations", "?2") +
            ", last_seen = ?3 WHERE id = ?1 RETURNING explorations",
        {SqlValue(int64_t{workload}), SqlValue(n), SqlValue(NowUnixMillis())},
        "counting explorations", [&](const SqlRow& row) {
          *count = row.Int64(0);
          found = true;
        });
  });
  if (!s.ok() || found) return s;
  return Status::NotFound(fmt::format("plan database {} has no workload {}", location(), workload));
}

Status SqlPlanRepository::TryReserveExploration(WorkloadRowId workload,
                                                std::optional<int64_t> cap_if_unset, bool* granted,
                                                int64_t* count) {
  if (Status s = CheckWritable("reserving an exploration"); !s.ok()) return s;
  // After waiting on a concurrent update of the row, PostgreSQL evaluates the WHERE clause
  // again on the newest version (READ COMMITTED's rule for UPDATE), and a SQLite write
  // transaction has the file to itself: two processes can never both take the last one.
  return sql().WriteStatement("reserving an exploration", [&]() -> Status {
    *granted = false;
    Status s = sql().Query(
        "UPDATE workloads SET explorations = " + SaturatingAdd("explorations", "1") +
            ", last_seen = ?2 WHERE id = ?1 AND (COALESCE(max_explorations, ?3) IS NULL OR "
            "explorations < COALESCE(max_explorations, ?3)) RETURNING explorations",
        {SqlValue(int64_t{workload}), SqlValue(NowUnixMillis()), OptionalValue(cap_if_unset)},
        "reserving an exploration", [&](const SqlRow& row) {
          *count = row.Int64(0);
          *granted = true;
        });
    if (!s.ok() || *granted) return s;
    WorkloadRow row;
    if (Status r = GetWorkload(workload, &row); !r.ok()) return r;
    *count = row.explorations;
    return Status::Ok();
  });
}

Status SqlPlanRepository::SetCap(WorkloadRowId workload, std::optional<int64_t> max_explorations) {
  if (max_explorations.has_value() && *max_explorations < 0) {
    return Status::InvalidArgument(
        fmt::format("max_explorations must be >= 0 or unlimited, got {}", *max_explorations));
  }
  return UpdateWorkload(workload, "setting max_explorations",
                        "UPDATE workloads SET max_explorations = ?2 WHERE id = ?1",
                        {OptionalValue(max_explorations)});
}

Status SqlPlanRepository::ResetExplorations(WorkloadRowId workload) {
  return UpdateWorkload(workload, "resetting explorations",
                        "UPDATE workloads SET explorations = 0 WHERE id = ?1", {});
}

Status SqlPlanRepository::AddCounters(WorkloadRowId workload, const WorkloadCounters& counters) {
  if (counters.hits < 0 || counters.misses < 0 || counters.unfused_runs < 0) {
    return Status::InvalidArgument("workload counters only grow: negative increment");
  }
  return UpdateWorkload(workload, "counting workload hits and misses",
                        "UPDATE workloads SET hits = " + SaturatingAdd("hits", "?2") +
                            ", misses = " + SaturatingAdd("misses", "?3") + ", unfused_runs = " +
                            SaturatingAdd("unfused_runs", "?4") + ", last_seen = ?5 WHERE id = ?1",
                        {SqlValue(counters.hits), SqlValue(counters.misses),
                         SqlValue(counters.unfused_runs), SqlValue(NowUnixMillis())});
}

}  // namespace ember

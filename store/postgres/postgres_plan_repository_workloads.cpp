// PostgresPlanRepository's workload ledger. The exploration budget is one row for the whole
// fleet: every change is a single UPDATE on the server, never a read-modify-write on a host.
#include <fmt/format.h>

#include "engine/core/clock.h"
#include "store/postgres/postgres_plan_repository.h"
#include "store/repository/saturating_sql.h"

namespace ember {
namespace {

constexpr std::string_view kWorkloadColumns =
    "id, environment_id, name, explorations, max_explorations, hits, misses, unfused_runs, "
    "last_seen";

Status ReadWorkloadRow(const pg::Result& r, WorkloadRow* out) {
  out->id = r.Int64(0, 0);
  out->environment_id = r.Int64(0, 1);
  out->name = r.Text(0, 2);
  out->explorations = r.Int64(0, 3);
  out->max_explorations = r.IsNull(0, 4) ? std::nullopt : std::optional<int64_t>(r.Int64(0, 4));
  out->hits = r.Int64(0, 5);
  out->misses = r.Int64(0, 6);
  out->unfused_runs = r.Int64(0, 7);
  out->last_seen = r.Int64(0, 8);
  return r.CheckTypes();
}

}  // namespace

Status PostgresPlanRepository::GetOrCreateWorkload(EnvironmentRowId environment,
                                                   std::string_view name, WorkloadRow* out) {
  if (!writable()) {
    bool found = false;
    if (Status s = FindWorkload(environment, name, &found, out); !s.ok() || found) return s;
    return CheckWritable(fmt::format("creating workload '{}'", name));
  }
  pg::Result r;
  if (Status s = conn_->Exec(
          fmt::format("INSERT INTO workloads (environment_id, name, last_seen) VALUES ($1, $2, $3) "
                      "ON CONFLICT (environment_id, name) DO UPDATE SET last_seen = "
                      "excluded.last_seen RETURNING {}",
                      kWorkloadColumns),
          pg::Params().Int64(environment).Text(name).Int64(NowUnixMillis()), "creating a workload",
          &r);
      !s.ok()) {
    return s;
  }
  if (r.rows() != 1) {
    return Status::Corruption(
        fmt::format("plan database {}: workload '{}' vanished after its insert", location(), name));
  }
  return ReadWorkloadRow(r, out);
}

Status PostgresPlanRepository::FindWorkload(EnvironmentRowId environment, std::string_view name,
                                            bool* found, WorkloadRow* out) {
  pg::Result r;
  if (Status s = conn_->Exec(
          fmt::format("SELECT {} FROM workloads WHERE environment_id = $1 AND name = $2",
                      kWorkloadColumns),
          pg::Params().Int64(environment).Text(name), "reading a workload", &r);
      !s.ok()) {
    return s;
  }
  *found = r.rows() == 1;
  return *found ? ReadWorkloadRow(r, out) : Status::Ok();
}

Status PostgresPlanRepository::GetWorkload(WorkloadRowId workload, WorkloadRow* out) {
  pg::Result r;
  if (Status s =
          conn_->Exec(fmt::format("SELECT {} FROM workloads WHERE id = $1", kWorkloadColumns),
                      pg::Params().Int64(workload), "reading a workload", &r);
      !s.ok()) {
    return s;
  }
  if (r.rows() != 1) {
    return Status::NotFound(
        fmt::format("plan database {} has no workload {}", location(), workload));
  }
  return ReadWorkloadRow(r, out);
}

Status PostgresPlanRepository::UpdateWorkload(WorkloadRowId workload, std::string_view what,
                                              std::string_view sql, pg::Params params) {
  if (Status s = CheckWritable(what); !s.ok()) return s;
  pg::Result r;
  if (Status s = conn_->Exec(sql, params, what, &r); !s.ok()) return s;
  if (r.affected() != 1) {
    return Status::NotFound(
        fmt::format("plan database {} has no workload {}", location(), workload));
  }
  return Status::Ok();
}

Status PostgresPlanRepository::AddExplorations(WorkloadRowId workload, int64_t n, int64_t* count) {
  if (n < 0) {
    return Status::InvalidArgument(fmt::format("AddExplorations: n must be >= 0, got {}", n));
  }
  if (Status s = CheckWritable("counting explorations"); !s.ok()) return s;
  pg::Result r;
  if (Status s =
          conn_->Exec("UPDATE workloads SET explorations = " + SaturatingAdd("explorations", "$2") +
                          ", last_seen = $3 WHERE id = $1 RETURNING explorations",
                      pg::Params().Int64(workload).Int64(n).Int64(NowUnixMillis()),
                      "counting explorations", &r);
      !s.ok()) {
    return s;
  }
  if (r.rows() != 1) {
    return Status::NotFound(
        fmt::format("plan database {} has no workload {}", location(), workload));
  }
  *count = r.Int64(0, 0);
  return r.CheckTypes();
}

Status PostgresPlanRepository::TryReserveExploration(WorkloadRowId workload,
                                                     std::optional<int64_t> cap_if_unset,
                                                     bool* granted, int64_t* count) {
  if (Status s = CheckWritable("reserving an exploration"); !s.ok()) return s;
  pg::Result r;
  // After waiting on a concurrent update of the row, PostgreSQL evaluates the WHERE clause
  // again on the newest version (READ COMMITTED's rule for UPDATE): two hosts can never both
  // take the last exploration.
  if (Status s = conn_->Exec(
          "UPDATE workloads SET explorations = " + SaturatingAdd("explorations", "1") +
              ", last_seen = $2 WHERE id = $1 AND (COALESCE(max_explorations, $3) IS NULL OR "
              "explorations < COALESCE(max_explorations, $3)) RETURNING explorations",
          [&] {
            pg::Params p;
            p.Int64(workload).Int64(NowUnixMillis());
            if (cap_if_unset.has_value()) {
              p.Int64(*cap_if_unset);
            } else {
              p.NullInt64();
            }
            return p;
          }(),
          "reserving an exploration", &r);
      !s.ok()) {
    return s;
  }
  *granted = r.rows() == 1;
  if (*granted) {
    *count = r.Int64(0, 0);
    return r.CheckTypes();
  }
  WorkloadRow row;
  if (Status s = GetWorkload(workload, &row); !s.ok()) return s;
  *count = row.explorations;
  return Status::Ok();
}

Status PostgresPlanRepository::SetCap(WorkloadRowId workload,
                                      std::optional<int64_t> max_explorations) {
  if (max_explorations.has_value() && *max_explorations < 0) {
    return Status::InvalidArgument(
        fmt::format("max_explorations must be >= 0 or unlimited, got {}", *max_explorations));
  }
  pg::Params p;
  p.Int64(workload);
  if (max_explorations.has_value()) {
    p.Int64(*max_explorations);
  } else {
    p.NullInt64();
  }
  return UpdateWorkload(workload, "setting max_explorations",
                        "UPDATE workloads SET max_explorations = $2 WHERE id = $1", std::move(p));
}

Status PostgresPlanRepository::ResetExplorations(WorkloadRowId workload) {
  return UpdateWorkload(workload, "resetting explorations",
                        "UPDATE workloads SET explorations = 0 WHERE id = $1",
                        pg::Params().Int64(workload));
}

Status PostgresPlanRepository::AddCounters(WorkloadRowId workload,
                                           const WorkloadCounters& counters) {
  if (counters.hits < 0 || counters.misses < 0 || counters.unfused_runs < 0) {
    return Status::InvalidArgument("workload counters only grow: negative increment");
  }
  return UpdateWorkload(workload, "counting workload hits and misses",
                        "UPDATE workloads SET hits = " + SaturatingAdd("hits", "$2") +
                            ", misses = " + SaturatingAdd("misses", "$3") + ", unfused_runs = " +
                            SaturatingAdd("unfused_runs", "$4") + ", last_seen = $5 WHERE id = $1",
                        pg::Params()
                            .Int64(workload)
                            .Int64(counters.hits)
                            .Int64(counters.misses)
                            .Int64(counters.unfused_runs)
                            .Int64(NowUnixMillis()));
}

}  // namespace ember

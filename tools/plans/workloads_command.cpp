// ember-plans workloads / reset-explorations / set-cap: the exploration ledger per workload.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "engine/core/clock.h"
#include "engine/core/printable.h"
#include "store/admin/plan_inventory.h"
#include "store/repository/plan_repository.h"
#include "tools/plans/commands.h"
#include "tools/plans/human_units.h"
#include "tools/plans/json_output.h"
#include "tools/plans/text_table.h"

namespace ember::plans {

namespace {

// The workload rows named `name` (one per environment), narrowed by `environment`.
Status FindWorkloads(SqlSession& db, const std::string& name,
                     const std::optional<std::string>& environment,
                     std::vector<WorkloadRecord>* out) {
  std::optional<EnvironmentRowId> env;
  if (Status s = ResolveEnvironment(db, environment, &env); !s.ok()) return s;
  std::vector<WorkloadRecord> all;
  if (Status s = ListWorkloads(db, env, &all); !s.ok()) return s;
  out->clear();
  for (WorkloadRecord& w : all) {
    if (w.row.name == name) out->push_back(std::move(w));
  }
  if (out->empty()) {
    return Status::NotFound(fmt::format("plan database {} has no workload '{}'{}", db.location(),
                                        name,
                                        environment.has_value() ? " in that environment" : ""));
  }
  return Status::Ok();
}

// Opens for writing, finds the workload rows, and applies `change` to each.
int ChangeWorkloads(const GlobalOptions& global, const std::string& name,
                    const std::optional<std::string>& environment, const std::string& done,
                    const std::function<Status(PlanRepository&, WorkloadRowId)>& change) {
  std::unique_ptr<PlanRepository> repo;
  // A file or a server: the workload's counter is one row either way, changed atomically.
  if (Status s = OpenRepositoryForWriting(global, &repo); !s.ok()) {
    return ReportOpenFailure(global, s);
  }
  std::vector<WorkloadRecord> rows;
  if (Status s = FindWorkloads(repo->sql(), name, environment, &rows); !s.ok()) {
    return ReportFailure(s);
  }
  for (const WorkloadRecord& w : rows) {
    if (Status s = change(*repo, w.row.id); !s.ok()) return ReportFailure(s);
    std::cout << fmt::format("workload '{}' (environment {}): {}\n", ShownText(name),
                             w.row.environment_id, done);
  }
  return kExitOk;
}

// Each workload's misses by cause, from workload_misses (schema 3 on; an older read-only file
// has none to give).
Status MissesByCause(PlanRepository& db,
                     std::map<WorkloadRowId, std::map<std::string, int64_t>>* out) {
  out->clear();
  if (db.schema_version() < 3) return Status::Ok();
  std::vector<WorkloadMiss> misses;
  if (Status s = db.ListMisses(std::nullopt, &misses); !s.ok()) return s;
  for (const WorkloadMiss& m : misses) (*out)[m.workload_id][m.cause] += m.count;
  return Status::Ok();
}

// "shape 12, attribute 3": most first.
std::string CausesText(const std::map<std::string, int64_t>& causes) {
  std::vector<std::pair<std::string, int64_t>> sorted(causes.begin(), causes.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> parts;
  for (const auto& [cause, n] : sorted) parts.push_back(fmt::format("{} {}", cause, n));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

int RunWorkloads(const GlobalOptions& global, const std::optional<std::string>& environment) {
  std::unique_ptr<PlanRepository> db;
  if (Status s = OpenRepositoryForReading(global, &db); !s.ok()) {
    return ReportOpenFailure(global, s);
  }
  std::optional<EnvironmentRowId> env;
  if (Status s = ResolveEnvironment(db->sql(), environment, &env); !s.ok()) return ReportFailure(s);
  std::vector<WorkloadRecord> rows;
  if (Status s = ListWorkloads(db->sql(), env, &rows); !s.ok()) return ReportFailure(s);
  std::map<WorkloadRowId, std::map<std::string, int64_t>> causes;
  if (Status s = MissesByCause(*db, &causes); !s.ok()) return ReportFailure(s);
  if (global.json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const WorkloadRecord& w : rows) {
      out.push_back({{"name", w.row.name},
                     {"environment_id", w.row.environment_id},
                     {"environment", w.environment},
                     {"explorations", w.row.explorations},
                     {"max_explorations", w.row.max_explorations.has_value()
                                              ? nlohmann::ordered_json(*w.row.max_explorations)
                                              : nullptr},
                     {"exhausted", w.row.max_explorations.has_value() &&
                                       w.row.explorations >= *w.row.max_explorations},
                     {"hits", w.row.hits},
                     {"misses", w.row.misses},
                     {"misses_by_cause", causes[w.row.id]},
                     {"unfused_runs", w.row.unfused_runs},
                     {"plans_used", w.plans_used},
                     {"last_seen", w.row.last_seen}});
    }
    std::cout << JsonText(out) << "\n";
    return kExitOk;
  }
  if (rows.empty()) {
    std::cout << "no workloads\n";
    return kExitOk;
  }
  const int64_t now = NowUnixMillis();
  TextTable table({{"workload", false, true, 10},
                   {"env", true},
                   {"explorations", true},
                   {"hits", true},
                   {"misses", true},
                   {"unfused", true},
                   {"plans", true},
                   {"last seen", false},
                   {"miss causes", false, true, 8}});
  for (const WorkloadRecord& w : rows) {
    const bool exhausted =
        w.row.max_explorations.has_value() && w.row.explorations >= *w.row.max_explorations;
    const std::string used = fmt::format(
        "{} / {}", w.row.explorations,
        w.row.max_explorations.has_value() ? std::to_string(*w.row.max_explorations) : "∞");
    table.AddRow({w.row.name, std::to_string(w.row.environment_id),
                  Cell(used, exhausted ? Style::kWarn : Style::kPlain), std::to_string(w.row.hits),
                  std::to_string(w.row.misses), std::to_string(w.row.unfused_runs),
                  std::to_string(w.plans_used), FormatAge(w.row.last_seen, now),
                  CausesText(causes[w.row.id])});
  }
  std::cout << table.Render();
  return kExitOk;
}

int RunResetExplorations(const GlobalOptions& global, const std::string& workload,
                         const std::optional<std::string>& environment) {
  return ChangeWorkloads(
      global, workload, environment, "explorations reset to 0",
      [](PlanRepository& repo, WorkloadRowId id) { return repo.ResetExplorations(id); });
}

int RunSetCap(const GlobalOptions& global, const std::string& workload, const std::string& cap,
              const std::optional<std::string>& environment) {
  std::optional<int64_t> value;
  if (cap != "unlimited") {
    int64_t n = -1;
    const auto [end, ec] = std::from_chars(cap.data(), cap.data() + cap.size(), n);
    if (ec != std::errc() || end != cap.data() + cap.size() || n < 0) {
      std::cerr << "ember-plans: set-cap: N must be a non-negative integer or 'unlimited', got '"
                << cap << "'\n";
      return kExitUsage;
    }
    value = n;
  }
  return ChangeWorkloads(
      global, workload, environment,
      value.has_value() ? fmt::format("max_explorations set to {}", *value)
                        : "max_explorations set to unlimited",
      [&](PlanRepository& repo, WorkloadRowId id) { return repo.SetCap(id, value); });
}

}  // namespace ember::plans

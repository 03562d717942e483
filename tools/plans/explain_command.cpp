// ember-plans explain: why segments explored although plans were stored, per workload, from
// the database's workload_misses rows or from a recorded EMBER_LOG=medium log (Note
// [Explaining a miss], engine/stream/miss_explanation.h; docs/ember-plans.md, "explain").
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>

#include "engine/core/printable.h"
#include "store/admin/plan_inventory.h"
#include "store/repository/plan_repository.h"
#include "tools/plans/commands.h"
#include "tools/plans/json_output.h"
#include "tools/plans/miss_log.h"
#include "tools/plans/miss_report.h"

namespace ember::plans {

namespace {

// The first schema with workload_misses (migrations/0003_miss_explanation.sql).
constexpr int kMissSchema = 3;

// `left_out`: what a log's reading left out (MissLogReading::LeftOut), "" for a database.
int Print(const GlobalOptions& global, const std::vector<MissReport>& reports,
          const std::string& source, size_t limit, const std::string& left_out = "") {
  if (limit == 0) limit = std::numeric_limits<size_t>::max();  // --limit 0: every pattern
  if (global.json) {
    nlohmann::ordered_json out = MissReportsJson(reports, source, limit);
    if (!left_out.empty()) out["left_out"] = left_out;
    std::cout << JsonText(out) << "\n";
  } else {
    std::cout << RenderMissReports(reports, limit);
    if (!left_out.empty()) std::cout << "note: " << left_out << "\n";
  }
  return kExitOk;
}

int ExplainLog(const GlobalOptions& global, const ExplainOptions& options) {
  std::ifstream log(*options.log);
  if (!log) {
    return ReportFailure(
        global, Status::NotFound(fmt::format("cannot read the log {}: no such file or not readable",
                                             *options.log)));
  }
  const MissLogLimits limits;
  MissLogReading reading = ReadMissLog(log, limits);
  const std::string left_out = reading.LeftOut(limits);
  if (reading.miss_lines == 0 && !global.json) {
    std::cout << fmt::format(
        "{}: no miss lines ([plan] miss (...)); they are logged at EMBER_LOG=medium\n",
        ShownText(*options.log));
    if (!left_out.empty()) std::cout << "note: " << left_out << "\n";
    return kExitOk;
  }
  MissReport report{.name = *options.log, .groups = std::move(reading.groups)};
  return Print(global, {report}, "log", options.limit, left_out);
}

}  // namespace

int RunExplain(const GlobalOptions& global, const ExplainOptions& options) {
  if (options.log.has_value()) return ExplainLog(global, options);
  std::unique_ptr<PlanRepository> db;
  if (Status s = OpenRepositoryForReading(global, &db); !s.ok()) {
    return ReportOpenFailure(global, s);
  }
  if (db->schema_version() < kMissSchema) {
    return ReportFailure(
        global, Status::InvalidArgument(fmt::format(
                    "{} has schema {}: misses are recorded from schema {} on; run `ember-plans "
                    "migrate` (the engine migrates it when it next opens it), or explain a "
                    "recorded log with --log",
                    db->sql().location(), db->schema_version(), kMissSchema)));
  }
  std::optional<EnvironmentRowId> env;
  if (Status s = ResolveEnvironment(db->sql(), options.environment, &env); !s.ok()) {
    return ReportFailure(global, s);
  }
  std::vector<WorkloadRecord> workloads;
  if (Status s = ListWorkloads(db->sql(), env, &workloads); !s.ok()) {
    return ReportFailure(global, s);
  }
  std::vector<WorkloadMiss> misses;
  if (Status s = db->ListMisses(std::nullopt, &misses); !s.ok()) return ReportFailure(global, s);
  std::map<WorkloadRowId, std::vector<MissGroup>> by_workload;
  for (const WorkloadMiss& m : misses) {
    by_workload[m.workload_id].push_back(FromWorkloadMiss(m));  // already most frequent first
  }
  std::vector<MissReport> reports;
  for (const WorkloadRecord& w : workloads) {
    if (options.workload.has_value() && w.row.name != *options.workload) continue;
    std::vector<MissGroup>& groups = by_workload[w.row.id];
    // Without --workload, only the workloads that missed.
    if (groups.empty() && !options.workload.has_value()) continue;
    reports.push_back(
        {.name = w.row.name, .environment_id = w.row.environment_id, .groups = std::move(groups)});
  }
  if (options.workload.has_value() && reports.empty()) {
    return ReportFailure(
        global, Status::NotFound(fmt::format("plan database {} has no workload '{}'{}",
                                             db->sql().location(), *options.workload,
                                             env.has_value() ? " in that environment" : "")));
  }
  std::stable_sort(reports.begin(), reports.end(),
                   [](const MissReport& a, const MissReport& b) { return a.total() > b.total(); });
  return Print(global, reports, "database", options.limit);
}

}  // namespace ember::plans

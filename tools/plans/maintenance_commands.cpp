// ember-plans migrate / vacuum / quarantine ls|clear.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "engine/core/plan_db_location.h"
#include "store/admin/plan_inventory.h"
#include "store/admin/plan_maintenance.h"
#include "store/sqlite/migrations.h"
#include "tools/plans/commands.h"
#include "tools/plans/human_units.h"
#include "tools/plans/json_output.h"
#include "tools/plans/text_table.h"

namespace ember::plans {

int RunMigrate(const GlobalOptions& global) {
  std::string path;
  if (Status s = DatabasePath(global, &path); !s.ok()) return ReportOpenFailure(global, s);
  int before = 0;
  {
    std::unique_ptr<PlanRepository> db;
    const Status s = OpenRepositoryForReading(global, &db);
    // A server's database without ember's tables yet is where `migrate` creates them (an
    // administrator's first step, docs/CONFIGURATION.md); a missing file stays an error.
    const bool empty_server = s.code() == Status::Code::kNotFound && IsPostgresUri(path);
    if (!s.ok() && !empty_server) return ReportOpenFailure(global, s);
    before = s.ok() ? db->schema_version() : 0;
  }
  // A file or a server: opening it writable applies what it lacks, as the engine does.
  std::unique_ptr<PlanRepository> db;
  if (Status s = OpenRepositoryForWriting(global, &db); !s.ok()) {
    return ReportOpenFailure(global, s);
  }
  const int after = db->schema_version();
  std::cout << fmt::format(
      "{}: schema version {} -> {} ({} migration(s) applied; this binary "
      "knows up to {})\n",
      db->location(), before, after, after - before, LatestSchemaVersion());
  return kExitOk;
}

int RunVacuum(const GlobalOptions& global) {
  std::string path;
  if (Status s = DatabasePath(global, &path); !s.ok()) return ReportOpenFailure(global, s);
  if (IsPostgresUri(path)) {
    // A server reclaims the space of deleted rows itself; giving it back to the operating system
    // locks the tables, which is the administrator's call, not a plan tool's.
    return ReportFailure(global, Status::InvalidArgument(fmt::format(
                                     "vacuum compacts SQLite files; {} is a PostgreSQL server, "
                                     "which reuses the space of deleted rows itself "
                                     "(autovacuum). To return it to the operating system, run "
                                     "VACUUM FULL on ember's tables as their owner (psql)",
                                     RedactedUri(path))));
  }
  std::unique_ptr<PlanDatabase> db;
  if (Status s = OpenForWriting(global, /*create=*/false, &db); !s.ok()) {
    return ReportOpenFailure(global, s);
  }
  int64_t before = 0;
  int64_t after = 0;
  if (Status s = Vacuum(*db, &before, &after); !s.ok()) return ReportFailure(s);
  std::cout << fmt::format("{}: {} -> {}\n", db->path(), FormatBytes(before), FormatBytes(after));
  return kExitOk;
}

int RunQuarantineList(const GlobalOptions& global) {
  std::unique_ptr<PlanRepository> db;
  if (Status s = OpenRepositoryForReading(global, &db); !s.ok()) {
    return ReportOpenFailure(global, s);
  }
  std::vector<PlanRecord> rows;
  PlanFilter filter{.status = "quarantined", .metadata_only = true};
  if (Status s = ListPlans(db->sql(), filter, &rows); !s.ok()) return ReportFailure(s);
  if (global.json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const PlanRecord& r : rows) {
      out.push_back({{"id", r.id},
                     {"environment_id", r.environment_id},
                     {"num_ops", r.num_ops},
                     {"origin", r.origin},
                     {"created", r.created},
                     {"reason", r.quarantine_reason}});
    }
    std::cout << JsonText(out) << "\n";
    return kExitOk;
  }
  if (rows.empty()) {
    std::cout << "no quarantined plans\n";
    return kExitOk;
  }
  TextTable table({{"id", true},
                   {"env", true},
                   {"ops", true},
                   {"origin", false, true, 8, /*shrink_rank=*/1},
                   {"reason", false, true, 20}});
  for (const PlanRecord& r : rows) {
    table.AddRow({std::to_string(r.id), std::to_string(r.environment_id), std::to_string(r.num_ops),
                  r.origin, Cell(r.quarantine_reason, Style::kWarn)});
  }
  std::cout << table.Render();
  return kExitOk;
}

int RunQuarantineClear(const GlobalOptions& global) {
  std::unique_ptr<PlanRepository> db;
  if (Status s = OpenRepositoryForWriting(global, &db); !s.ok()) {
    return ReportOpenFailure(global, s);
  }
  int64_t deleted = 0;
  if (Status s = ClearQuarantined(*db, &deleted); !s.ok()) return ReportFailure(s);
  std::cout << fmt::format("deleted {} quarantined plan(s)\n", deleted);
  return kExitOk;
}

}  // namespace ember::plans

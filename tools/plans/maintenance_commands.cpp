// ember-plans migrate / vacuum / quarantine ls|clear.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "store/database/migrations.h"
#include "store/admin/plan_inventory.h"
#include "store/admin/plan_maintenance.h"
#include "tools/plans/commands.h"
#include "tools/plans/human_units.h"
#include "tools/plans/text_table.h"

namespace ember::plans {

int RunMigrate(const GlobalOptions& global) {
  int before = 0;
  {
    std::unique_ptr<PlanDatabase> db;
    if (Status s = OpenForReading(global, &db); !s.ok()) return ReportOpenFailure(global, s);
    before = db->schema_version();
  }
  std::unique_ptr<PlanDatabase> db;
  if (Status s = OpenForWriting(global, /*create=*/false, &db); !s.ok()) {
    return ReportOpenFailure(global, s);
  }
  const int after = db->schema_version();
  std::cout << fmt::format(
      "{}: schema version {} -> {} ({} migration(s) applied; this binary "
      "knows up to {})\n",
      db->path(), before, after, db->migrations_applied(), LatestSchemaVersion());
  return kExitOk;
}

int RunVacuum(const GlobalOptions& global) {
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
  std::unique_ptr<PlanDatabase> db;
  if (Status s = OpenForReading(global, &db); !s.ok()) return ReportOpenFailure(global, s);
  std::vector<PlanRecord> rows;
  PlanFilter filter{.status = "quarantined", .metadata_only = true};
  if (Status s = ListPlans(db->sqlite(), filter, &rows); !s.ok()) return ReportFailure(s);
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
    std::cout << out.dump(2) << "\n";
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
  std::unique_ptr<PlanDatabase> db;
  if (Status s = OpenForWriting(global, /*create=*/false, &db); !s.ok()) {
    return ReportOpenFailure(global, s);
  }
  int64_t deleted = 0;
  if (Status s = ClearQuarantined(*db, &deleted); !s.ok()) return ReportFailure(s);
  std::cout << fmt::format("deleted {} quarantined plan(s)\n", deleted);
  return kExitOk;
}

}  // namespace ember::plans

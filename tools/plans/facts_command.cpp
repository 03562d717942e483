// ember-plans facts: what backends measured about their devices (Note [Device facts],
// store/persistent_facts.h), per environment: name, value, when it was last written, and
// whether its row is damaged (the engine ignores such a row and measures again).
#include <fmt/format.h>

#include <iostream>

#include <nlohmann/json.hpp>

#include "engine/core/clock.h"
#include "store/admin/plan_inventory.h"
#include "tools/plans/commands.h"
#include "tools/plans/human_units.h"
#include "tools/plans/json_output.h"
#include "tools/plans/text_table.h"

namespace ember::plans {

int RunFacts(const GlobalOptions& global, const std::optional<std::string>& environment) {
  std::unique_ptr<PlanRepository> db;
  if (Status s = OpenRepositoryForReading(global, &db); !s.ok()) {
    return ReportOpenFailure(global, s);
  }
  std::optional<EnvironmentRowId> env;
  if (Status s = ResolveEnvironment(db->sql(), environment, &env); !s.ok()) return ReportFailure(s);
  // A file of an older schema (opened read-only, not migrated) has no facts to list.
  std::vector<DeviceFactRecord> facts;
  if (db->schema_version() >= kDeviceFactsSchema) {
    if (Status s = ListDeviceFacts(db->sql(), env, &facts); !s.ok()) return ReportFailure(s);
  }
  if (global.json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const DeviceFactRecord& f : facts) {
      out.push_back({{"environment_id", f.environment_id},
                     {"environment", f.environment},
                     {"name", f.name},
                     {"value", f.value},
                     {"updated", f.updated},
                     {"damaged", !f.checksum_ok}});
    }
    std::cout << JsonText(out) << "\n";
    return kExitOk;
  }
  if (facts.empty()) {
    std::cout << "no device facts\n";
    return kExitOk;
  }
  const int64_t now = NowUnixMillis();
  TextTable table({{"env", true},
                   {"name", false, true, 16},
                   {"value", false, true, 12, /*shrink_rank=*/1},
                   {"updated", false}});
  for (const DeviceFactRecord& f : facts) {
    table.AddRow({std::to_string(f.environment_id), f.name,
                  f.checksum_ok ? Cell(f.value) : Cell("damaged: " + f.value, Style::kBad),
                  FormatAge(f.updated, now)});
  }
  std::cout << table.Render();
  return kExitOk;
}

}  // namespace ember::plans

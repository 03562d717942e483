// ember-plans stats: counts, sizes and hit totals of the whole database.
#include <fmt/format.h>

#include <iostream>

#include <nlohmann/json.hpp>

#include "store/admin/plan_inventory.h"
#include "store/sqlite/migrations.h"
#include "tools/plans/commands.h"
#include "tools/plans/human_units.h"
#include "tools/plans/json_output.h"
#include "tools/plans/text_table.h"

namespace ember::plans {

int RunStats(const GlobalOptions& global) {
  std::unique_ptr<PlanRepository> db;
  if (Status s = OpenRepositoryForReading(global, &db); !s.ok()) {
    return ReportOpenFailure(global, s);
  }
  DatabaseSummary sum;
  if (Status s = ReadSummary(db->sql(), db->schema_version(), &sum); !s.ok()) {
    return ReportFailure(s);
  }
  if (global.json) {
    nlohmann::ordered_json by_arch = nlohmann::ordered_json::array();
    for (const KernelArchCount& k : sum.kernels_by_arch) {
      by_arch.push_back({{"arch", k.arch},
                         {"compiler_version", k.compiler_version},
                         {"kernels", k.kernels},
                         {"bytes", k.bytes}});
    }
    const nlohmann::ordered_json out = {
        {"path", db->location()},
        {"backend", db->backend()},
        {"schema_version", sum.schema_version},
        {"binary_schema_version", LatestSchemaVersion()},
        {"plans", sum.plans},
        {"quarantined", sum.quarantined},
        {"triggers", sum.triggers},
        {"workloads", sum.workloads},
        {"environments", sum.environments},
        {"kernels", sum.kernels},
        {"plan_bytes", sum.plan_bytes},
        {"kernel_bytes", sum.kernel_bytes},
        {"file_bytes", sum.file_bytes},
        {"plan_hits", sum.plan_hits},
        {"workload_hits", sum.workload_hits},
        {"workload_misses", sum.workload_misses},
        {"unfused_runs", sum.unfused_runs},
        {"explorations", sum.explorations},
        {"device_facts", sum.device_facts},
        {"graph_recipes", sum.graph_recipes},
        {"kernels_by_arch", by_arch},
    };
    std::cout << JsonText(out) << "\n";
    return kExitOk;
  }
  TextTable table({{"", false}, {"value", true}, {"", false, true, 10}});
  auto count = [](int64_t n) { return std::to_string(n); };
  table.AddRow({"database", "", {db->location()}});
  table.AddRow({"schema version", count(sum.schema_version),
                fmt::format("this binary: {}", LatestSchemaVersion())});
  table.AddRow({"plans", count(sum.plans), FormatBytes(sum.plan_bytes)});
  table.AddRow({"quarantined",
                {count(sum.quarantined), sum.quarantined > 0 ? Style::kWarn : Style::kPlain},
                sum.quarantined > 0 ? "see: ember-plans quarantine ls" : ""});
  table.AddRow({"triggers", count(sum.triggers), ""});
  table.AddRow({"environments", count(sum.environments), ""});
  table.AddRow({"workloads", count(sum.workloads),
                fmt::format("{} exploration(s) spent", sum.explorations)});
  table.AddRow({"kernels", count(sum.kernels), FormatBytes(sum.kernel_bytes)});
  table.AddRow({"device facts", count(sum.device_facts), "see: ember-plans facts"});
  table.AddRow({"graph recipes", count(sum.graph_recipes), "see: ember-plans recipes"});
  table.AddRow({"plan hits", count(sum.plan_hits), ""});
  table.AddRow(
      {"workload hits", count(sum.workload_hits),
       fmt::format("{} miss(es), {} unfused run(s)", sum.workload_misses, sum.unfused_runs)});
  table.AddRow({db->backend() == "sqlite" ? "file size" : "table size", count(sum.file_bytes),
                FormatBytes(sum.file_bytes)});
  std::cout << table.Render();
  if (sum.kernels_by_arch.empty()) return kExitOk;
  TextTable kernels(
      {{"arch", false}, {"compiler", false, true, 10}, {"kernels", true}, {"bytes", true}});
  for (const KernelArchCount& k : sum.kernels_by_arch) {
    kernels.AddRow({k.arch, k.compiler_version, count(k.kernels), FormatBytes(k.bytes)});
  }
  std::cout << "\n" << kernels.Render();
  return kExitOk;
}

}  // namespace ember::plans

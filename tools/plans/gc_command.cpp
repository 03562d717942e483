// ember-plans gc: evicts the least valuable plans (Note [Plan value], store/admin/plan_gc.h).
#include <fmt/format.h>

#include <iostream>

#include <nlohmann/json.hpp>

#include "store/admin/plan_gc.h"
#include "store/admin/plan_inventory.h"
#include "store/shm/shared_plan_tier.h"
#include "tools/plans/commands.h"
#include "tools/plans/human_units.h"
#include "tools/plans/json_output.h"
#include "tools/plans/text_table.h"

namespace ember::plans {

namespace {

// The keys the live shared-memory segment of (this database, an environment) holds (Note
// [Plans in use by a live segment]); no segment (NotFound) protects nothing.
ProtectedPlanKeys LiveSegmentKeys(const std::string& database_path, bool allow_shared_writable) {
  return [database_path, allow_shared_writable](const std::string& environment,
                                                std::vector<Hash128>* keys) -> Status {
    const Status s =
        SharedPlanTier::ListKeys(database_path, environment, keys, allow_shared_writable);
    if (s.code() == Status::Code::kNotFound) {
      keys->clear();
      return Status::Ok();
    }
    if (s.ok()) return s;
    return Status::Unavailable(fmt::format(
        "gc cannot tell which plans the live shared segment of environment {} holds, so it "
        "evicts nothing: {}",
        environment, s.message()));
  };
}

}  // namespace

int RunGc(const GlobalOptions& global, const GcCommandOptions& options) {
  GcOptions gc{.dry_run = options.dry_run};
  if (options.older_than.has_value()) {
    gc.older_than = ParseDuration(*options.older_than);
    if (!gc.older_than.has_value()) {
      std::cerr << "ember-plans: gc: --older-than takes a duration such as 30d, 12h, 90m, 45s; "
                   "got '"
                << *options.older_than << "'\n";
      return kExitUsage;
    }
  }
  if (options.max_bytes.has_value()) {
    gc.max_bytes = ParseByteSize(*options.max_bytes);
    if (!gc.max_bytes.has_value()) {
      std::cerr << "ember-plans: gc: --max-bytes takes a size such as 1048576, 512K, 64M, 2G; "
                   "got '"
                << *options.max_bytes << "'\n";
      return kExitUsage;
    }
  }
  // A file or a server (the same rows, store/admin/plan_gc.h).
  std::unique_ptr<PlanRepository> db;
  const Status opened = options.dry_run ? OpenRepositoryForReading(global, &db)
                                        : OpenRepositoryForWriting(global, &db);
  if (!opened.ok()) return ReportOpenFailure(global, opened);
  if (options.environment.has_value()) {
    EnvironmentRowId env = 0;
    if (Status s = ResolveEnvironment(db->sql(), *options.environment, &env); !s.ok()) {
      return ReportFailure(s);
    }
    gc.environment = env;
  }
  // On a server, the segments of this host only: the other hosts' are out of reach.
  gc.protected_plan_keys = LiveSegmentKeys(db->location(), global.allow_shared_writable);
  GcReport report;
  if (Status s = CollectGarbage(*db, gc, &report); !s.ok()) return ReportFailure(s);

  if (global.json) {
    nlohmann::ordered_json evicted = nlohmann::ordered_json::array();
    for (const GcEviction& e : report.evicted) {
      evicted.push_back({{"id", e.plan.id},
                         {"environment_id", e.plan.environment_id},
                         {"num_ops", e.plan.num_ops},
                         {"hits", e.plan.hits},
                         {"bytes", e.plan.bytes},
                         {"explore_ms", e.plan.explore_ms},
                         {"value", e.value},
                         {"last_use", e.plan.last_use},
                         {"reason", e.reason}});
    }
    nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
    for (const GcKernelRemoval& k : report.kernels_removed) {
      kernels.push_back({{"id", k.id},
                         {"environment_id", k.environment_id},
                         {"name", k.name},
                         {"arch", k.arch},
                         {"compiler_version", k.compiler_version},
                         {"bytes", k.bytes}});
    }
    const nlohmann::ordered_json out = {{"dry_run", report.dry_run},
                                        {"candidates", report.candidates},
                                        {"protected", report.protected_plans},
                                        {"bytes_before", report.bytes_before},
                                        {"bytes_after", report.bytes_after},
                                        {"max_bytes_unreached", report.max_bytes_unreached},
                                        {"evicted", evicted},
                                        {"kernels_removed", report.kernels_removed.size()},
                                        {"kernel_bytes_removed", report.kernel_bytes_removed},
                                        {"facts_removed", report.facts_removed},
                                        {"recipes_removed", report.recipes_removed},
                                        {"removed_kernels", kernels}};
    std::cout << JsonText(out) << "\n";
    return kExitOk;
  }
  if (!report.evicted.empty()) {
    TextTable table({{"id", true},
                     {"env", true},
                     {"ops", true},
                     {"hits", true},
                     {"bytes", true},
                     {"value", true},
                     {"reason", false, true, 12}});
    for (const GcEviction& e : report.evicted) {
      table.AddRow({std::to_string(e.plan.id), std::to_string(e.plan.environment_id),
                    std::to_string(e.plan.num_ops), std::to_string(e.plan.hits),
                    std::to_string(e.plan.bytes), fmt::format("{:.4g}", e.value), e.reason});
    }
    std::cout << table.Render();
  }
  std::cout << fmt::format(
      "{} {} of {} plan(s); plan bytes {} -> {}{}\n", report.dry_run ? "would evict" : "evicted",
      report.evicted.size(), report.candidates, FormatBytes(report.bytes_before),
      FormatBytes(report.bytes_after),
      report.protected_plans > 0
          ? fmt::format(" ({} kept: in use by a live shared segment)", report.protected_plans)
          : "");
  std::cout << fmt::format("{} {} kernel(s) no plan uses ({})\n",
                           report.dry_run ? "would remove" : "removed",
                           report.kernels_removed.size(), FormatBytes(report.kernel_bytes_removed));
  if (report.recipes_removed > 0) {
    std::cout << fmt::format("{} {} graph recipe(s) whose kernels are no longer stored\n",
                             report.dry_run ? "would remove" : "removed", report.recipes_removed);
  }
  if (report.facts_removed > 0) {
    std::cout << fmt::format("{} {} device fact(s) of environments that no longer exist\n",
                             report.dry_run ? "would remove" : "removed", report.facts_removed);
  }
  if (report.max_bytes_unreached) {
    std::cout << "note: protected plans alone exceed --max-bytes\n";
  }
  return kExitOk;
}

}  // namespace ember::plans

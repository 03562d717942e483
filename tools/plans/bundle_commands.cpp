// ember-plans export / import: plan bundles (Note [Plan bundles], store/admin/plan_bundle.h).
#include <fmt/format.h>

#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "engine/core/printable.h"
#include "store/admin/plan_bundle.h"
#include "store/shm/shared_segment.h"
#include "tools/plans/commands.h"
#include "tools/plans/json_output.h"
#include "tools/plans/text_table.h"

namespace ember::plans {

int RunExport(const GlobalOptions& global, const std::string& file,
              const std::optional<std::string>& workload) {
  // A file or a server: the bundle is a SQLite file either way (Note [Plan bundles]).
  std::unique_ptr<PlanRepository> db;
  if (Status s = OpenRepositoryForReading(global, &db); !s.ok()) {
    return ReportOpenFailure(global, s);
  }
  ExportResult result;
  const ExportOptions options{.bundle_path = file,
                              .workload = workload,
                              .engine_version = EMBER_VERSION,
                              .allow_shared_writable = global.allow_shared_writable};
  if (Status s = ExportBundle(*db, options, &result); !s.ok()) return ReportFailure(global, s);
  const BundleManifest& m = result.manifest;
  if (global.json) {
    const nlohmann::ordered_json out = {{"bundle", file},
                                        {"plans", m.plans},
                                        {"environments", m.environments},
                                        {"kernels", m.kernels},
                                        {"skipped_damaged", result.skipped_damaged},
                                        {"engine_version", m.engine_version},
                                        {"schema_version", m.schema_version},
                                        {"workload", m.workload},
                                        {"kernels_skipped_damaged", result.kernels_skipped_damaged},
                                        {"recipes", m.recipes},
                                        {"recipes_skipped", result.recipes_skipped}};
    std::cout << JsonText(out) << "\n";
  } else {
    std::cout << fmt::format(
        "exported {} plan(s){} to {}\n", m.plans,
        m.workload.empty() ? "" : fmt::format(" used by '{}'", ShownText(m.workload)),
        ShownText(file));
    std::cout << fmt::format(
        "{} environment(s), {} kernel(s), {} graph recipe(s); ember {}, "
        "schema {}\n",
        m.environments, m.kernels, m.recipes, ShownText(m.engine_version), m.schema_version);
    if (result.skipped_damaged > 0) {
      std::cout << fmt::format("left out {} damaged plan(s) (ember-plans verify lists them)\n",
                               result.skipped_damaged);
    }
    if (result.kernels_skipped_damaged > 0) {
      std::cout << fmt::format("left out {} damaged kernel(s) (ember-plans verify lists them)\n",
                               result.kernels_skipped_damaged);
    }
    if (result.recipes_skipped > 0) {
      std::cout << fmt::format(
          "left out {} graph recipe(s): damaged, unusable, or launching a kernel the bundle "
          "does not carry\n",
          result.recipes_skipped);
    }
  }
  return kExitOk;
}

namespace {

// The import's kernel line (Note [Bundle kernels are code]); empty when the bundle had none.
std::string KernelSummary(const ImportResult& r) {
  if (r.kernels_untrusted > 0) {
    return fmt::format(
        "{} kernel(s) not imported: compiled code comes only from a trusted sender "
        "(--trust-kernels);\nthe engine compiles them again on first use\n",
        r.kernels_untrusted);
  }
  if (r.kernels_added + r.kernels_existing + r.kernels_refused == 0) return "";
  return fmt::format("kernels: {} imported, {} existing (local binary kept), {} refused\n",
                     r.kernels_added, r.kernels_existing, r.kernels_refused);
}

}  // namespace

int RunImport(const GlobalOptions& global, const std::string& file, bool trust_kernels) {
  std::unique_ptr<PlanRepository> db;
  if (Status s = OpenRepositoryForWriting(global, &db, /*create=*/true); !s.ok()) {
    return ReportOpenFailure(global, s);
  }
  ImportResult result;
  const ImportOptions options{.bundle_path = file,
                              .allow_shared_writable = global.allow_shared_writable,
                              .trust_kernels = trust_kernels};
  // An unreadable bundle, a newer one, one that disagrees with its manifest (issue 13, part 7:
  // --json printed nothing).
  if (Status s = ImportBundle(*db, options, &result); !s.ok()) return ReportFailure(global, s);
  // Live workers' shared segments answer for SQLite on the first ops they know (Note [Shared
  // plan segment]); marking them broken makes the workers start fresh ones that see the import.
  // A server announces the imported rows itself (NOTIFY, as any publication): every host's
  // listener brings them into its memory and its segment, so nothing is invalidated there.
  size_t invalidated = 0;
  const bool announced = db->backend() == "postgresql";
  if (!announced && (result.inserted > 0 || result.triggers_added > 0)) {
    if (Status s = SharedSegment::InvalidateAll(db->location(), &invalidated); !s.ok()) {
      std::fprintf(stderr,
                   "ember-plans: warning: live workers may not see the imported plans until "
                   "they restart: %s\n",
                   PrintableLines(s.message()).c_str());
    }
  }
  if (global.json) {
    nlohmann::ordered_json refusals = nlohmann::ordered_json::array();
    for (const ImportRefusal& r : result.refusals) {
      refusals.push_back({{"row", r.row}, {"reason", r.reason}});
    }
    const nlohmann::ordered_json out = {{"bundle", file},
                                        {"engine_version", result.manifest.engine_version},
                                        {"schema_version", result.manifest.schema_version},
                                        {"inserted", result.inserted},
                                        {"existing", result.existing},
                                        {"refused", result.refused},
                                        {"triggers_added", result.triggers_added},
                                        {"kernels_added", result.kernels_added},
                                        {"segments_invalidated", invalidated},
                                        {"refusals", refusals},
                                        {"trust_kernels", trust_kernels},
                                        {"kernels_existing", result.kernels_existing},
                                        {"kernels_skipped_untrusted", result.kernels_untrusted},
                                        {"kernels_refused", result.kernels_refused},
                                        {"recipes_added", result.recipes_added},
                                        {"recipes_existing", result.recipes_existing},
                                        {"recipes_skipped", result.recipes_skipped}};
    std::cout << JsonText(out) << "\n";
  } else {
    // The manifest and the file name come from the bundle's sender.
    std::cout << fmt::format("imported {} (from ember {}, schema {})\n", ShownText(file),
                             ShownText(result.manifest.engine_version),
                             result.manifest.schema_version);
    std::cout << fmt::format(
        "{} inserted, {} existing (triggers merged), {} refused; {} trigger(s) and {} kernel(s) "
        "added\n",
        result.inserted, result.existing, result.refused, result.triggers_added,
        result.kernels_added);
    std::cout << KernelSummary(result);
    if (result.recipes_added + result.recipes_existing + result.recipes_skipped > 0) {
      std::cout << fmt::format(
          "graph recipes: {} added, {} existing, {} skipped (damaged, or launching a kernel "
          "this database does not store)\n",
          result.recipes_added, result.recipes_existing, result.recipes_skipped);
    }
    if (invalidated > 0) {
      std::cout << fmt::format(
          "{} live shared segment(s) invalidated: workers pick the plans "
          "up from SQLite\n",
          invalidated);
    }
    for (const ImportRefusal& r : result.refusals) {
      std::cout << "  refused " << Styled(ShownText(r.row), Style::kBad) << ": "
                << ShownText(r.reason) << "\n";
    }
  }
  return result.refusals.empty() ? kExitOk : kExitProblems;
}

}  // namespace ember::plans

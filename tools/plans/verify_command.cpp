// ember-plans verify: the database's health (store/admin/plan_verification.h). Exit 0 healthy,
// 1 problems found (listed), 2 unusable file.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>

#include <nlohmann/json.hpp>

#include "engine/core/plan_db_location.h"
#include "engine/core/printable.h"
#include "store/admin/plan_verification.h"
#include "tools/plans/commands.h"
#include "tools/plans/json_output.h"
#include "tools/plans/terminal_style.h"

namespace ember::plans {

int RunVerify(const GlobalOptions& global) {
  std::unique_ptr<PlanRepository> db;
  if (Status s = OpenRepositoryForReading(global, &db); !s.ok()) {
    std::string path;
    (void)DatabasePath(global, &path);
    // Redacted: a server's URI may carry a password.
    std::fprintf(stderr, "ember-plans: verify: %s is not a usable plan database\n",
                 RedactedUri(path).c_str());
    return ReportOpenFailure(global, s);
  }
  VerificationReport report;
  if (Status s = VerifyPlanDatabase(db->sql(), &report, db->schema_version()); !s.ok()) {
    return ReportFailure(s);
  }
  if (global.json) {
    nlohmann::ordered_json problems = nlohmann::ordered_json::array();
    for (const VerificationProblem& p : report.problems) {
      problems.push_back({{"where", p.where}, {"what", p.what}});
    }
    const nlohmann::ordered_json out = {
        {"path", db->location()},
        {"backend", db->backend()},
        {"usable", true},
        {"healthy", report.healthy()},
        {"schema_version", db->schema_version()},
        {"integrity", report.integrity_checked ? nlohmann::ordered_json(report.integrity)
                                               : nlohmann::ordered_json(nullptr)},
        {"environments_checked", report.environments_checked},
        {"plans_checked", report.plans_checked},
        {"triggers_checked", report.triggers_checked},
        {"kernels_checked", report.kernels_checked},
        {"facts_checked", report.facts_checked},
        {"recipes_checked", report.recipes_checked},
        {"quarantined", report.quarantined},
        {"problems", problems},
        {"orphan_kernels", report.orphan_kernels}};
    std::cout << JsonText(out) << "\n";
  } else {
    std::cout << fmt::format("{}: schema version {}\n", db->location(), db->schema_version());
    if (report.integrity_checked) {
      const bool integrity_ok = report.integrity.size() == 1 && report.integrity[0] == "ok";
      std::cout << "integrity_check: "
                << Styled(integrity_ok ? "ok" : "FAILED", integrity_ok ? Style::kGood : Style::kBad)
                << "\n";
    } else {
      // A server's pages and indexes are its own to check; ember checks the rows.
      std::cout << "integrity_check: not run on a server (pg_amcheck checks its pages)\n";
    }
    std::cout << fmt::format(
        "checked {} environment(s), {} plan(s) with {} trigger(s), {} kernel(s), {} device "
        "fact(s), {} graph recipe(s)\n",
        report.environments_checked, report.plans_checked, report.triggers_checked,
        report.kernels_checked, report.facts_checked, report.recipes_checked);
    if (report.quarantined > 0) {
      std::cout << Styled(fmt::format("{} quarantined row(s) set aside by the engine (ember-plans "
                                      "quarantine ls)",
                                      report.quarantined),
                          Style::kWarn)
                << "\n";
    }
    if (!report.orphan_kernels.empty()) {
      std::cout << Styled(fmt::format("{} kernel(s) no plan uses (ember-plans gc removes them): {}",
                                      report.orphan_kernels.size(),
                                      fmt::join(report.orphan_kernels, ", ")),
                          Style::kWarn)
                << "\n";
    }
    for (const VerificationProblem& p : report.problems) {
      std::cout << "  " << Styled(ShownText(p.where), Style::kBad) << ": " << PrintableLines(p.what)
                << "\n";
    }
    std::cout << (report.healthy()
                      ? Styled("healthy", Style::kGood)
                      : Styled(fmt::format("{} problem(s) found", report.problems.size()),
                               Style::kBad))
              << "\n";
  }
  return report.healthy() ? kExitOk : kExitProblems;
}

}  // namespace ember::plans

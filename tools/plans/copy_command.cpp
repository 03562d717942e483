// ember-plans copy SRC DST: plans between any two plan databases, a SQLite file or a PostgreSQL
// server on either side (store/admin/plan_copy.h says what moves).
#include <fmt/format.h>

#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "engine/core/plan_db_location.h"
#include "engine/core/printable.h"
#include "store/admin/plan_copy.h"
#include "store/shm/shared_segment.h"
#include "tools/plans/commands.h"
#include "tools/plans/json_output.h"
#include "tools/plans/plans_cli.h"

namespace ember::plans {

int RunCopy(const GlobalOptions& global, const std::string& from, const std::string& to) {
  std::unique_ptr<PlanRepository> source;
  PlanDbOptions source_options{.path = from,
                               .read_only = true,
                               .create = false,
                               .allow_shared_writable = global.allow_shared_writable};
  if (Status s = PlanRepository::Open(source_options, &source); !s.ok()) {
    return ReportOpenFailure(global, s);
  }
  std::unique_ptr<PlanRepository> target;
  PlanDbOptions target_options{.path = to, .allow_shared_writable = global.allow_shared_writable};
  if (Status s = PlanRepository::Open(target_options, &target); !s.ok()) {
    return ReportOpenFailure(global, s);
  }
  CopyResult result;
  if (Status s = CopyPlans(*source, *target, &result); !s.ok()) return ReportFailure(global, s);
  // Live workers' shared segments answer for the target on the first ops they know; marked
  // broken, they are started afresh and see the copy (a server's running hosts also hear of
  // the new plans by NOTIFY).
  size_t invalidated = 0;
  if (result.inserted > 0 || result.triggers_added > 0) {
    if (Status s = SharedSegment::InvalidateAll(to, &invalidated); !s.ok()) {
      std::fprintf(stderr,
                   "ember-plans: warning: live workers may not see the copied plans until they "
                   "restart: %s\n",
                   PrintableLines(s.message()).c_str());
    }
  }
  if (global.json) {
    nlohmann::ordered_json refusals = nlohmann::ordered_json::array();
    for (const CopyRefusal& r : result.refusals) {
      refusals.push_back({{"row", r.row}, {"reason", r.reason}});
    }
    const nlohmann::ordered_json out = {{"from", source->location()},
                                        {"to", target->location()},
                                        {"environments", result.environments},
                                        {"inserted", result.inserted},
                                        {"existing", result.existing},
                                        {"refused", result.refused},
                                        {"triggers_added", result.triggers_added},
                                        {"kernels_added", result.kernels_added},
                                        {"kernels_refused", result.kernels_refused},
                                        {"kernels_untrusted", result.kernels_untrusted},
                                        {"segments_invalidated", invalidated},
                                        {"refusals", refusals}};
    std::cout << JsonText(out) << "\n";
  } else {
    std::printf(
        "copied %s -> %s: %lld new plan(s), %lld already there, %lld refused, %zu "
        "trigger(s) and %zu kernel(s) added, %lld environment(s)\n",
        source->location().c_str(), target->location().c_str(),
        static_cast<long long>(result.inserted), static_cast<long long>(result.existing),
        static_cast<long long>(result.refused), result.triggers_added, result.kernels_added,
        static_cast<long long>(result.environments));
    for (const CopyRefusal& r : result.refusals) {
      std::printf("  refused %s: %s\n", ShownText(r.row).c_str(), ShownText(r.reason).c_str());
    }
  }
  return result.refused > 0 || result.kernels_refused > 0 ? kExitProblems : kExitOk;
}

}  // namespace ember::plans

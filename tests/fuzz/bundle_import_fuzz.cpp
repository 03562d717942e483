// A plan bundle of arbitrary bytes imported into a fresh plan database (`ember-plans import
// --trust-kernels`, Note [Plan bundles]): the import refuses the file or its rows, or imports
// them, and never stores damage — the target passes `verify` afterwards whatever the bundle
// held. Input: the bundle file's bytes.
#include <string>

#include "store/admin/plan_bundle.h"
#include "store/admin/plan_verification.h"
#include "store/repository/plan_repository.h"
#include "store/sqlite/wal_companions.h"
#include "tests/fuzz/fuzz_target.h"

EMBER_FUZZ_TARGET(bundle_import) {
  using namespace ember;
  const std::string bundle = fuzz::WriteScratchFile("x.bundle", data);
  const std::string target_path = fuzz::ScratchDir() + "/target.db";
  RemoveDatabaseFiles(target_path);
  std::unique_ptr<PlanRepository> target;
  if (Status s = PlanRepository::Open({.path = target_path, .network_filesystem = false}, &target);
      !s.ok()) {
    fuzz::Fail("bundle_import", "a fresh target does not open: " + s.ToString());
  }
  ImportResult result;
  (void)ImportBundle(*target, {.bundle_path = bundle, .trust_kernels = true}, &result);
  VerificationReport report;
  if (Status s = VerifyPlanDatabase(target->sql(), &report); !s.ok() || !report.healthy()) {
    fuzz::Fail("bundle_import", "the import stored damage: " +
                                    (report.problems.empty() ? s.ToString()
                                                             : report.problems[0].where + ": " +
                                                                   report.problems[0].what));
  }
}

// A plan bundle of arbitrary bytes imported into a fresh plan database (`ember-plans import
// --trust-kernels`, Note [Plan bundles]): the import refuses the file or its rows, or imports
// them, and never stores damage — the target passes `verify` afterwards whatever the bundle
// held. Input: the bundle file's bytes.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "store/admin/plan_bundle.h"
#include "store/admin/plan_verification.h"
#include "store/repository/plan_repository.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

// One scratch directory per process (0700), removed at exit.
const std::string& ScratchDir() {
  static const std::string* const dir = [] {
    auto* made = new std::string("/tmp/ember-fuzz-bundle-XXXXXX");
    if (mkdtemp(made->data()) == nullptr) std::abort();
    std::atexit([] { std::filesystem::remove_all(ScratchDir()); });
    return made;
  }();
  return *dir;
}

void RemoveDatabase(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) unlink((path + suffix).c_str());
}

}  // namespace

EMBER_FUZZ_TARGET(bundle_import) {
  using namespace ember;
  const std::string bundle = ScratchDir() + "/x.bundle";
  const std::string target_path = ScratchDir() + "/target.db";
  RemoveDatabase(bundle);
  RemoveDatabase(target_path);
  {
    std::ofstream out(bundle, std::ios::binary);
    out.write(reinterpret_cast<const char*>(data.data()),
              static_cast<std::streamsize>(data.size()));
  }
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

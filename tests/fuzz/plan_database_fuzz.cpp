// A file of arbitrary bytes opened as a plan database, as the engine and ember-plans open one
// (a damaged disk, a truncated copy, a real database with flipped pages and rows, another
// program's file): the open either refuses it or gives a repository whose every read — the
// environments, every plan the engine would load, the tools' inventory and `verify` — returns
// without crashing, and every plan a load returns decodes into a plan that passes ValidatePlan.
// Opened read-only: nothing is ever written to the input. Input: the file's bytes.

#include <string>
#include <vector>

#include "store/admin/plan_inventory.h"
#include "store/admin/plan_verification.h"
#include "store/codec/plan_codec.h"
#include "store/repository/plan_repository.h"
#include "store/repository/plan_row_check.h"
#include "tests/fuzz/fuzz_target.h"

EMBER_FUZZ_TARGET(plan_database) {
  using namespace ember;
  const std::string path = fuzz::WriteScratchFile("plans.db", data);
  std::unique_ptr<PlanRepository> repo;
  if (!PlanRepository::Open(
           {.path = path, .read_only = true, .create = false, .network_filesystem = false}, &repo)
           .ok()) {
    return;
  }
  std::vector<EnvironmentRow> environments;
  if (repo->ListEnvironments(&environments).ok()) {
    for (const EnvironmentRow& environment : environments) {
      LoadedPlans loaded;
      if (!repo->LoadAllPlans(environment.id, &loaded).ok()) continue;
      for (const StoredPlan& row : loaded.plans) {
        ExecutionPlan plan;
        // What the engine does with a loaded row (PersistentPlans): a row that does not decode
        // is set aside; one that does must be a valid plan.
        if (!DecodePlanParts(row.ops_blob, row.plan_blob, row.triggers, &plan).ok()) continue;
        if (Status s = ValidatePlan(plan); !s.ok()) {
          fuzz::Fail("plan_database", "a decoded row fails ValidatePlan: " + s.ToString());
        }
      }
    }
  }
  std::vector<PlanRecord> records;
  (void)ListPlans(repo->sql(), PlanFilter(), &records);
  std::vector<WorkloadRecord> workloads;
  (void)ListWorkloads(repo->sql(), std::nullopt, &workloads);
  VerificationReport report;
  (void)VerifyPlanDatabase(repo->sql(), &report);
}

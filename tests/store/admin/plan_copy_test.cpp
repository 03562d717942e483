// The maintenance code on either backend (issue 19): `ember-plans copy` (store/admin/plan_copy.h)
// carries plans, triggers and the kernels they use from a SQLite file into the backend under
// test; a trusted bundle import writes through the target's own row writes; gc evicts there.
// The target is the parameter (a SQLite file, a PostgreSQL server); the source is a file.
#include <gtest/gtest.h>

#include <memory>

#include "store/admin/kernel_inventory.h"
#include "store/admin/plan_bundle.h"
#include "store/admin/plan_copy.h"
#include "store/admin/plan_gc.h"
#include "store/admin/plan_inventory.h"
#include "store/admin/plan_verification.h"
#include "store/sqlite/sqlite_plan_repository.h"
#include "tests/store/admin/generated_kernels.h"
#include "tests/store/real_plans.h"
#include "tests/store/repository_backends.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::SampleKernel;

ExecutionPlan ExpTanh() { return test::FusedChain(OpKind::kExp, OpKind::kTanh); }

class PlanCopy : public test::BackendFixture {
 protected:
  void SetUp() override {
    BackendFixture::SetUp();
    if (IsSkipped()) return;
    source_ = test::OpenRepository(dir_.File("source.db"));
    ASSERT_NE(source_, nullptr);
    ASSERT_TRUE(source_->EnsureEnvironment(test::SampleEnvironment(), &source_env_).ok());
    exp_ = Insert(test::RowOfPlan(ExpTanh()), {sqlite_test::Always()});
    log_ = Insert(test::OneOpPlan(OpKind::kLog), {sqlite_test::OnSync()});
    KernelRowId id = 0;
    NewKernel used = used_;
    used.plan_id = exp_;
    ASSERT_TRUE(source_->PutKernel(source_env_, used, &id).ok());
    ASSERT_TRUE(source_->PutKernel(source_env_, orphan_, &id).ok());
    NewKernel damaged = damaged_;
    damaged.plan_id = log_;
    ASSERT_TRUE(source_->PutKernel(source_env_, damaged, &id).ok());
    // The damaged kernel's bytes change under its checksum, as a bad disk would change them.
    SqliteDatabase& db = source_->database().sqlite();
    ASSERT_TRUE(db.Exec(fmt::format("UPDATE kernels SET \"binary\" = X'00' WHERE id = {}", id),
                        "damaging a kernel")
                    .ok());
  }

  PlanRowId Insert(const NewPlan& plan, std::vector<TriggerRow> triggers) {
    InsertResult result;
    EXPECT_TRUE(source_->InsertPlan(source_env_, plan, &result).ok());
    EXPECT_TRUE(source_->AppendTriggers(result.plan_id, triggers).ok());
    return result.plan_id;
  }

  bool TargetHasKernel(const NewKernel& k) {
    StoredKernel stored;
    const Status s = repo_->GetKernel(env_, k.key, &stored);
    EXPECT_TRUE(s.ok() || s.code() == Status::Code::kNotFound) << s.ToString();
    return s.ok() && stored.binary == k.binary;
  }

  std::unique_ptr<SqlitePlanRepository> source_;
  EnvironmentRowId source_env_ = 0;
  PlanRowId exp_ = 0;
  PlanRowId log_ = 0;
  // What exp_'s fused trace generates (Note [Kernels are their plans'],
  // store/admin/bundle_kernel_check.h): a made-up kernel would not be carried.
  const NewKernel used_ = test::GeneratedKernelOf(ExpTanh());
  const NewKernel orphan_ = SampleKernel("used by no plan");
  const NewKernel damaged_ = SampleKernel("damaged, of log");
};

TEST_P(PlanCopy, CarriesPlansTriggersAndTheKernelsTheyUseButNoDamage) {
  CopyResult copied;
  ASSERT_TRUE(CopyPlans(*source_, *repo_, &copied).ok());
  EXPECT_EQ(copied.inserted, 2);
  EXPECT_EQ(copied.refused, 0);
  EXPECT_EQ(copied.triggers_added, 2u);
  EXPECT_EQ(copied.kernels_added, 1u);
  EXPECT_EQ(copied.kernels_refused, 1);
  ASSERT_EQ(copied.refusals.size(), 1u);
  EXPECT_NE(copied.refusals[0].reason.find("checksum mismatch"), std::string::npos);
  EXPECT_TRUE(TargetHasKernel(used_));
  EXPECT_FALSE(TargetHasKernel(orphan_));  // no plan uses it: it stays behind
  EXPECT_FALSE(TargetHasKernel(damaged_));

  // The target is whole: the kernel is linked to the target's row of its plan.
  VerificationReport report;
  ASSERT_TRUE(VerifyPlanDatabase(repo_->sql(), &report).ok());
  EXPECT_TRUE(report.healthy()) << report.problems[0].where << ": " << report.problems[0].what;
  EXPECT_EQ(report.plans_checked, 2);
  EXPECT_EQ(report.kernels_checked, 1);
  EXPECT_TRUE(report.orphan_kernels.empty());
  EXPECT_EQ(report.integrity_checked, !postgres());

  CopyResult again;
  ASSERT_TRUE(CopyPlans(*source_, *repo_, &again).ok());
  EXPECT_EQ(again.inserted, 0);
  EXPECT_EQ(again.existing, 2);
  EXPECT_EQ(again.triggers_added, 0u);
  EXPECT_EQ(again.kernels_added, 0u);
}

TEST_P(PlanCopy, ATrustedBundleIsImportedThroughTheTargetsRowWrites) {
  ExportResult exported;
  ASSERT_TRUE(ExportBundle(*source_, {.bundle_path = dir_.File("x.bundle")}, &exported).ok());
  EXPECT_EQ(exported.kernels_skipped_damaged, 1);
  ImportResult imported;
  const Status s = ImportBundle(
      *repo_, {.bundle_path = dir_.File("x.bundle"), .trust_kernels = true}, &imported);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(imported.inserted, 2);
  EXPECT_EQ(imported.triggers_added, 2u);
  EXPECT_EQ(imported.kernels_added, 1u);
  EXPECT_TRUE(TargetHasKernel(used_));
  std::vector<PlanRecord> plans;
  ASSERT_TRUE(ListPlans(repo_->sql(), PlanFilter(), &plans).ok());
  ASSERT_EQ(plans.size(), 2u);
  EXPECT_EQ(plans[0].origin, "import:x.bundle");

  // Again: the target's rows win, nothing is added.
  ASSERT_TRUE(
      ImportBundle(*repo_, {.bundle_path = dir_.File("x.bundle"), .trust_kernels = true}, &imported)
          .ok());
  EXPECT_EQ(imported.existing, 2);
  EXPECT_EQ(imported.kernels_existing, 1u);
}

TEST_P(PlanCopy, GcEvictsFromTheTargetWithTheKernelsOnlyEvictedPlansUsed) {
  CopyResult copied;
  ASSERT_TRUE(CopyPlans(*source_, *repo_, &copied).ok());
  GcReport dry;
  ASSERT_TRUE(CollectGarbage(*repo_, {.max_bytes = 0, .dry_run = true}, &dry).ok());
  EXPECT_EQ(dry.evicted.size(), 2u);
  EXPECT_EQ(dry.kernels_removed.size(), 1u);
  std::vector<PlanRecord> plans;
  ASSERT_TRUE(ListPlans(repo_->sql(), PlanFilter(), &plans).ok());
  EXPECT_EQ(plans.size(), 2u);

  GcReport report;
  ASSERT_TRUE(CollectGarbage(*repo_, {.max_bytes = 0}, &report).ok());
  EXPECT_EQ(report.evicted.size(), 2u);
  ASSERT_TRUE(ListPlans(repo_->sql(), PlanFilter(), &plans).ok());
  EXPECT_TRUE(plans.empty());
  EXPECT_FALSE(TargetHasKernel(used_));
}

TEST_P(PlanCopy, AReadOnlyTargetIsRefusedWithTheSharedWording) {
  std::unique_ptr<PlanRepository> reader = Open(/*read_only=*/true);
  ASSERT_NE(reader, nullptr);
  CopyResult copied;
  const Status s = CopyPlans(*source_, *reader, &copied);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable);
  EXPECT_NE(s.message().find("refusing copying plans into it"), std::string::npos) << s.message();
}

EMBER_ON_EVERY_BACKEND(PlanCopy);

}  // namespace
}  // namespace ember

// Note [Kernels are their plans'] (store/admin/bundle_kernel_check.h), issue 40 item 7: a kernel
// row offered by a bundle (`import --trust-kernels`) or by a copy's source is written only when
// it is stored under the key of its own text and its source is what a fused trace of a plan it
// is linked to generates, and it is linked only to those plans; a copy whose source is a file
// others can write (opened with allow_shared_writable) carries its plans but no kernels.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <memory>
#include <string>
#include <vector>

#include "store/admin/bundle_kernel_check.h"
#include "store/admin/kernel_inventory.h"
#include "store/admin/plan_bundle.h"
#include "store/admin/plan_copy.h"
#include "store/sqlite/sqlite_plan_repository.h"
#include "tests/common/repository_fixture.h"
#include "tests/store/admin/generated_kernels.h"

namespace ember {
namespace {

using testing::HasSubstr;

struct Database {
  std::unique_ptr<SqlitePlanRepository> repo;
  EnvironmentRowId environment = 0;

  explicit Database(const std::string& path, bool allow_shared_writable = false) {
    PlanDbOptions options = test::OptionsFor(path);
    options.allow_shared_writable = allow_shared_writable;
    const Status s = SqlitePlanRepository::Open(options, &repo);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (repo != nullptr) {
      EXPECT_TRUE(repo->EnsureEnvironment(test::SampleEnvironment(), &environment).ok());
    }
  }
  PlanRowId Insert(const ExecutionPlan& plan) {
    InsertResult result;
    EXPECT_TRUE(repo->InsertPlan(environment, test::RowOfPlan(plan), &result).ok());
    EXPECT_TRUE(repo->AppendTriggers(result.plan_id, {{TriggerRow{.kind = 1}}}).ok());
    return result.plan_id;
  }
  void Put(NewKernel kernel, std::vector<PlanRowId> plans) {
    KernelRowId id = 0;
    for (const PlanRowId plan : plans) {
      kernel.plan_id = plan;
      EXPECT_TRUE(repo->PutKernel(environment, kernel, &id).ok());
    }
  }
  std::vector<KernelRecord> Kernels() {
    std::vector<KernelRecord> kernels;
    EXPECT_TRUE(ListKernels(repo->sql(), {.sources = true, .binaries = true}, &kernels).ok());
    return kernels;
  }
};

class KernelProvenance : public testing::Test {
 protected:
  // Exports `source` and imports the bundle into a fresh target with --trust-kernels.
  ImportResult ExportAndImport() {
    ExportResult exported;
    EXPECT_TRUE(
        ExportBundle(*source_.repo, {.bundle_path = dir_.File("x.bundle")}, &exported).ok());
    ImportResult imported;
    const Status s = ImportBundle(
        *target_.repo, {.bundle_path = dir_.File("x.bundle"), .trust_kernels = true}, &imported);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return imported;
  }

  test::TempDir dir_;
  Database source_{dir_.File("source.db")};
  Database target_{dir_.File("target.db")};
  const ExecutionPlan exp_tanh_ = test::FusedChain(OpKind::kExp, OpKind::kTanh);
  const ExecutionPlan log_sin_ = test::FusedChain(OpKind::kLog, OpKind::kSin);
  const NewKernel generated_ = test::GeneratedKernelOf(exp_tanh_);
};

TEST_F(KernelProvenance, TheHelpersKernelIsWhatItsPlanGenerates) {
  EXPECT_TRUE(PlanGeneratesKernel(exp_tanh_, generated_.text));
  EXPECT_FALSE(PlanGeneratesKernel(log_sin_, generated_.text));
  NewKernel edited = generated_;
  edited.text.source += "// one more line\n";
  EXPECT_FALSE(PlanGeneratesKernel(exp_tanh_, edited.text));
}

TEST_F(KernelProvenance, AKernelItsPlanGeneratesIsImportedUnderItsKey) {
  source_.Put(generated_, {source_.Insert(exp_tanh_)});
  const ImportResult imported = ExportAndImport();
  EXPECT_TRUE(imported.refusals.empty()) << imported.refusals[0].reason;
  EXPECT_EQ(imported.kernels_added, 1u);
  StoredKernel stored;
  ASSERT_TRUE(target_.repo->GetKernel(target_.environment, generated_.key, &stored).ok());
  EXPECT_EQ(stored.text, generated_.text);
}

TEST_F(KernelProvenance, AKernelStoredUnderAKeyNotOfItsTextIsRefusedOnImport) {
  NewKernel rekeyed = generated_;
  rekeyed.key.source_hash = Hash64Bytes(0x1234);  // another plan's kernel key
  source_.Put(rekeyed, {source_.Insert(exp_tanh_)});
  const ImportResult imported = ExportAndImport();
  EXPECT_EQ(imported.inserted, 1);
  EXPECT_EQ(imported.kernels_added, 0u);
  EXPECT_EQ(imported.kernels_refused, 1u);
  ASSERT_EQ(imported.refusals.size(), 1u);
  EXPECT_THAT(imported.refusals[0].reason, HasSubstr("its key is not the hash"));
  EXPECT_TRUE(target_.Kernels().empty());
}

TEST_F(KernelProvenance, AKernelWhoseSourceItsPlanDoesNotGenerateIsRefusedOnImport) {
  // Keyed correctly for its own text, which no trace of the plan generates (what `show
  // --source` would print beside an unrelated binary).
  const NewKernel forged =
      test::KernelRow("ember_fused", "extern \"C\" __global__ void ember_fused() {}\n");
  source_.Put(forged, {source_.Insert(exp_tanh_)});
  const ImportResult imported = ExportAndImport();
  EXPECT_EQ(imported.kernels_refused, 1u);
  ASSERT_EQ(imported.refusals.size(), 1u);
  EXPECT_THAT(imported.refusals[0].reason, HasSubstr("is not what a fused trace"));
  EXPECT_TRUE(target_.Kernels().empty());
}

TEST_F(KernelProvenance, AnImportedKernelIsLinkedOnlyToThePlansThatGenerateIt) {
  source_.Put(generated_, {source_.Insert(exp_tanh_), source_.Insert(log_sin_)});
  const ImportResult imported = ExportAndImport();
  EXPECT_EQ(imported.inserted, 2);
  EXPECT_EQ(imported.kernels_added, 1u);
  const std::vector<KernelRecord> kernels = target_.Kernels();
  ASSERT_EQ(kernels.size(), 1u);
  ASSERT_EQ(kernels[0].links.size(), 1u);
  std::optional<PlanRowId> exp_row;
  ASSERT_TRUE(
      target_.repo->FindPlanByKey(target_.environment, PlanKey(exp_tanh_.operations), &exp_row)
          .ok());
  EXPECT_EQ(kernels[0].links[0].plan_id, exp_row);
}

TEST_F(KernelProvenance, ACopyCarriesOnlyTheKernelsItsPlansGenerate) {
  const NewKernel forged =
      test::KernelRow("ember_fused", "extern \"C\" __global__ void ember_fused() {}\n");
  const PlanRowId plan = source_.Insert(exp_tanh_);
  source_.Put(generated_, {plan});
  source_.Put(forged, {plan});
  CopyResult copied;
  ASSERT_TRUE(CopyPlans(*source_.repo, *target_.repo, &copied).ok());
  EXPECT_EQ(copied.inserted, 1);
  EXPECT_EQ(copied.kernels_added, 1u);
  EXPECT_EQ(copied.kernels_refused, 1);
  ASSERT_EQ(copied.refusals.size(), 1u);
  EXPECT_THAT(copied.refusals[0].reason, HasSubstr("is not what a fused trace"));
  const std::vector<KernelRecord> kernels = target_.Kernels();
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].text, generated_.text);
}

TEST_F(KernelProvenance, ACopyFromAFileOthersCanWriteCarriesPlansButNoKernels) {
  source_.Put(generated_, {source_.Insert(exp_tanh_)});
  source_.repo.reset();
  ASSERT_EQ(::chmod(dir_.File("source.db").c_str(), 0666), 0);
  Database shared(dir_.File("source.db"), /*allow_shared_writable=*/true);
  ASSERT_NE(shared.repo, nullptr);
  CopyResult copied;
  ASSERT_TRUE(CopyPlans(*shared.repo, *target_.repo, &copied).ok());
  EXPECT_EQ(copied.inserted, 1);
  EXPECT_EQ(copied.kernels_added, 0u);
  EXPECT_TRUE(copied.kernels_untrusted);
  ASSERT_EQ(copied.refusals.size(), 1u);
  EXPECT_THAT(copied.refusals[0].reason, HasSubstr("--allow-shared-writable"));
  EXPECT_TRUE(target_.Kernels().empty());
}

}  // namespace
}  // namespace ember

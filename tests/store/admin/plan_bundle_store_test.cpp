// The store half of bundles and verification, without the CLI (store/admin/plan_bundle.h,
// store/admin/plan_verification.h): "existing plan wins" with trigger merging on import, origins,
// the manifest, a database that verifies healthy afterwards, and the kernels a bundle carries
// (Note [Bundle kernels are code], store/admin/bundle_kernels.h): imported only when trusted,
// checked, linked, never replacing a local binary.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/ir/builders.h"
#include "engine/ir/relative.h"
#include "store/admin/kernel_inventory.h"
#include "store/admin/plan_bundle.h"
#include "store/admin/plan_inventory.h"
#include "store/admin/plan_verification.h"
#include "store/codec/plan_codec.h"
#include "store/sqlite/sqlite_plan_repository.h"
#include "store/sqlite/sqlite_sql_session.h"
#include "tests/common/temp_dir.h"
#include "tests/store/admin/generated_kernels.h"
#include "tests/store/real_plans.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using test::OneOpPlan;
using test::TempDir;

EnvironmentFingerprint Environment() {
  return {.engine_version = "0.1.0",
          .schema_version = 1,
          .backend = "cpu",
          .device_model = "any",
          .fusers = {{"elementwise", 1}},
          .max_blocks = 5};
}

struct Database {
  std::unique_ptr<SqlitePlanRepository> repo;
  EnvironmentRowId environment = 0;

  explicit Database(const std::string& path) {
    PlanDbOptions options{.path = path, .network_filesystem = false};
    EXPECT_TRUE(SqlitePlanRepository::Open(options, &repo).ok());
    EXPECT_TRUE(repo->EnsureEnvironment(Environment(), &environment).ok());
  }
  PlanRowId Insert(const NewPlan& plan, std::vector<TriggerRow> triggers) {
    InsertResult result;
    EXPECT_TRUE(repo->InsertPlan(environment, plan, &result).ok());
    EXPECT_TRUE(repo->AppendTriggers(result.plan_id, triggers).ok());
    return result.plan_id;
  }
};

const TriggerRow kAlways{2, {}};

ExecutionPlan ExpTanh() { return test::FusedChain(OpKind::kExp, OpKind::kTanh); }
const TriggerRow kOnSync{1, {}};

TEST(PlanBundleStore, ImportKeepsLocalPlansMergesTriggersAndMarksOrigin) {
  TempDir dir;
  Database source(dir.File("source.db"));
  source.Insert(OneOpPlan(OpKind::kExp), {kAlways});
  const PlanRowId log = source.Insert(OneOpPlan(OpKind::kLog), {kOnSync});
  // A compiled kernel travels with its plan (but is not imported untrusted); one without a plan
  // stays home.
  KernelRowId kernel = 0;
  const NewKernel compiled{.key = {{1, 2, 3}, "sm_90", "nvrtc 12.4"}, .binary = {9, 9, 9}};
  ASSERT_TRUE(
      source.repo->PutKernel(source.environment, {compiled.key, compiled.binary, log}, &kernel)
          .ok());
  ASSERT_TRUE(source.repo
                  ->PutKernel(source.environment,
                              {.key = {{4}, "sm_90", "nvrtc 12.4"}, .binary = {1}}, &kernel)
                  .ok());
  Database target(dir.File("target.db"));
  const PlanRowId local = target.Insert(OneOpPlan(OpKind::kExp), {kOnSync});

  ExportResult exported;
  ASSERT_TRUE(ExportBundle(*source.repo,
                           {.bundle_path = dir.File("x.bundle"), .engine_version = "9.9.9"},
                           &exported)
                  .ok());
  EXPECT_EQ(exported.manifest.plans, 2);
  EXPECT_EQ(exported.manifest.environments, 1);
  EXPECT_EQ(exported.manifest.kernels, 1);
  EXPECT_EQ(exported.skipped_damaged, 0);

  ImportResult imported;
  const Status s = ImportBundle(*target.repo, {.bundle_path = dir.File("x.bundle")}, &imported);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(imported.manifest.engine_version, "9.9.9");
  EXPECT_EQ(imported.manifest.format, kBundleFormat);
  EXPECT_EQ(imported.manifest.environment_ids,
            std::vector<std::string>{EnvironmentStableId(Environment())});
  EXPECT_EQ(imported.inserted, 1);
  EXPECT_EQ(imported.existing, 1);
  EXPECT_EQ(imported.refused, 0);
  EXPECT_EQ(imported.triggers_added, 2u);  // Always onto the local plan, OnSync on the new one
  EXPECT_EQ(imported.kernels_added, 0u);
  EXPECT_EQ(imported.kernels_untrusted, 1u);

  SqliteDatabase& db = target.repo->database().sqlite();
  PlanRecord kept;
  ASSERT_TRUE(ReadPlan(db, local, &kept).ok());
  EXPECT_EQ(kept.origin, "local");
  EXPECT_EQ(kept.triggers, (std::vector<TriggerRow>{kOnSync, kAlways}));
  std::vector<PlanRecord> all;
  ASSERT_TRUE(ListPlans(db, PlanFilter(), &all).ok());
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].origin, "import:x.bundle");
  EXPECT_EQ(all[1].hits, 0);
  EXPECT_DOUBLE_EQ(all[1].explore_ms, 2.5);

  VerificationReport report;
  SqliteSqlSession session(db);
  ASSERT_TRUE(VerifyPlanDatabase(session, &report).ok());
  EXPECT_TRUE(report.healthy()) << (report.problems.empty() ? "" : report.problems[0].what);
  EXPECT_EQ(report.plans_checked, 2);
  EXPECT_EQ(report.triggers_checked, 3);
  EXPECT_EQ(report.kernels_checked, 0);
  StoredKernel stored;
  EXPECT_EQ(target.repo->GetKernel(target.environment, compiled.key, &stored).code(),
            Status::Code::kNotFound);

  // Importing again changes nothing.
  ASSERT_TRUE(ImportBundle(*target.repo, {.bundle_path = dir.File("x.bundle")}, &imported).ok());
  EXPECT_EQ(imported.inserted, 0);
  EXPECT_EQ(imported.existing, 2);
  EXPECT_EQ(imported.triggers_added, 0u);
}

// Two plans linked to one kernel that the first one's fused trace generates (Note [Kernels are
// their plans'], store/admin/bundle_kernel_check.h), and a kernel no plan uses, in `source`.
struct SharedKernel {
  PlanRowId exp = 0;
  PlanRowId log = 0;
  NewKernel kernel = test::GeneratedKernelOf(ExpTanh());

  explicit SharedKernel(Database& source) {
    exp = source.Insert(test::RowOfPlan(ExpTanh()), {kAlways});
    log = source.Insert(test::RowOfPlan(test::FusedChain(OpKind::kLog, OpKind::kSin)), {kOnSync});
    KernelRowId id = 0;
    for (const PlanRowId plan : {exp, log}) {
      NewKernel linked = kernel;
      linked.plan_id = plan;
      EXPECT_TRUE(source.repo->PutKernel(source.environment, linked, &id).ok());
    }
    EXPECT_TRUE(source.repo
                    ->PutKernel(source.environment,
                                {.key = {{4}, "sm_90", "nvrtc 12.4"}, .binary = {1}}, &id)
                    .ok());
  }
};

Status Export(Database& source, const std::string& bundle, ExportResult* result) {
  return ExportBundle(*source.repo, {.bundle_path = bundle}, result);
}

// The target's kernels, with their links.
std::vector<KernelRecord> KernelsOf(Database& db) {
  std::vector<KernelRecord> kernels;
  EXPECT_TRUE(
      ListKernels(db.repo->database().sqlite(), {.sources = true, .binaries = true}, &kernels)
          .ok());
  return kernels;
}

TEST(PlanBundleStore, ExportCarriesTheKernelsItsPlansUseWithTextAndLinks) {
  TempDir dir;
  Database source(dir.File("source.db"));
  const SharedKernel shared(source);
  ExportResult exported;
  ASSERT_TRUE(Export(source, dir.File("x.bundle"), &exported).ok());
  EXPECT_EQ(exported.manifest.kernels, 1);  // the orphan stays home
  EXPECT_EQ(exported.kernels_skipped_damaged, 0);
  std::unique_ptr<PlanDatabase> bundle;
  ASSERT_TRUE(PlanDatabase::Open({.path = dir.File("x.bundle"), .read_only = true}, &bundle).ok());
  std::vector<KernelRecord> kernels;
  ASSERT_TRUE(ListKernels(bundle->sqlite(), {.sources = true, .binaries = true}, &kernels).ok());
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].text, shared.kernel.text);
  EXPECT_EQ(kernels[0].binary, shared.kernel.binary);
  EXPECT_EQ(kernels[0].links.size(), 2u);  // both plans, through plan_kernels

  // A workload that used only one of the plans exports the kernel linked to that one.
  {
    sqlite_test::RawDb raw(dir.File("source.db"));
    raw.Exec("INSERT INTO workloads (environment_id, name, last_seen) VALUES (" +
             std::to_string(source.environment) +
             ", 'serve', 0); "
             "INSERT INTO plan_usage (workload_id, plan_id, last_hit) VALUES (1, " +
             std::to_string(shared.log) + ", 0)");
  }
  ASSERT_TRUE(ExportBundle(*source.repo,
                           {.bundle_path = dir.File("serve.bundle"), .workload = "serve"},
                           &exported)
                  .ok());
  EXPECT_EQ(exported.manifest.plans, 1);
  EXPECT_EQ(exported.manifest.kernels, 1);
  bundle.reset();
  ASSERT_TRUE(
      PlanDatabase::Open({.path = dir.File("serve.bundle"), .read_only = true}, &bundle).ok());
  ASSERT_TRUE(ListKernels(bundle->sqlite(), KernelFilter(), &kernels).ok());
  ASSERT_EQ(kernels.size(), 1u);
  ASSERT_EQ(kernels[0].links.size(), 1u);
  EXPECT_EQ(kernels[0].plan_id, kernels[0].links[0].plan_id);  // re-pointed at an exported plan
}

TEST(PlanBundleStore, TrustedKernelsAreImportedAndLinkedToTheTargetsPlans) {
  TempDir dir;
  Database source(dir.File("source.db"));
  const SharedKernel shared(source);
  ExportResult exported;
  ASSERT_TRUE(Export(source, dir.File("x.bundle"), &exported).ok());
  Database target(dir.File("target.db"));
  const PlanRowId local = target.Insert(test::RowOfPlan(ExpTanh()), {kAlways});

  ImportResult imported;
  ASSERT_TRUE(ImportBundle(*target.repo,
                           {.bundle_path = dir.File("x.bundle"), .trust_kernels = true}, &imported)
                  .ok());
  EXPECT_TRUE(imported.refusals.empty());
  EXPECT_EQ(imported.kernels_added, 1u);
  EXPECT_EQ(imported.kernels_untrusted, 0u);
  const std::vector<KernelRecord> kernels = KernelsOf(target);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].text, shared.kernel.text);
  EXPECT_EQ(kernels[0].binary, shared.kernel.binary);
  std::vector<PlanRowId> linked;
  for (const KernelLink& link : kernels[0].links) linked.push_back(link.plan_id);
  // The existing plan alone: the bundle's other plan does not generate the kernel.
  EXPECT_EQ(linked, std::vector<PlanRowId>{local});
  StoredKernel stored;
  ASSERT_TRUE(target.repo->GetKernel(target.environment, shared.kernel.key, &stored).ok());
  EXPECT_EQ(stored.binary, shared.kernel.binary);
  VerificationReport report;
  ASSERT_TRUE(VerifyPlanDatabase(target.repo->sql(), &report).ok());
  EXPECT_TRUE(report.healthy()) << (report.problems.empty() ? "" : report.problems[0].what);
  EXPECT_EQ(report.kernels_checked, 1);

  // Again: the kernel is there, and its row wins.
  ASSERT_TRUE(ImportBundle(*target.repo,
                           {.bundle_path = dir.File("x.bundle"), .trust_kernels = true}, &imported)
                  .ok());
  EXPECT_EQ(imported.kernels_added, 0u);
  EXPECT_EQ(imported.kernels_existing, 1u);
}

TEST(PlanBundleStore, ALocalKernelOfTheSameKeyKeepsItsBinary) {
  TempDir dir;
  Database source(dir.File("source.db"));
  const SharedKernel shared(source);
  ExportResult exported;
  ASSERT_TRUE(Export(source, dir.File("x.bundle"), &exported).ok());
  Database target(dir.File("target.db"));
  NewKernel local = shared.kernel;
  local.binary = {0x7f, 'E', 'L', 'F', 'l', 'o', 'c', 'a', 'l'};
  KernelRowId id = 0;
  ASSERT_TRUE(target.repo->PutKernel(target.environment, local, &id).ok());

  ImportResult imported;
  ASSERT_TRUE(ImportBundle(*target.repo,
                           {.bundle_path = dir.File("x.bundle"), .trust_kernels = true}, &imported)
                  .ok());
  EXPECT_EQ(imported.kernels_added, 0u);
  EXPECT_EQ(imported.kernels_existing, 1u);
  const std::vector<KernelRecord> kernels = KernelsOf(target);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].id, id);
  EXPECT_EQ(kernels[0].binary, local.binary);
  EXPECT_EQ(kernels[0].links.size(), 1u);  // now used by the imported plan that generates it
}

TEST(PlanBundleStore, ADamagedKernelIsRefusedByNameAndItsPlansImported) {
  TempDir dir;
  Database source(dir.File("source.db"));
  const SharedKernel shared(source);
  ExportResult exported;
  ASSERT_TRUE(Export(source, dir.File("x.bundle"), &exported).ok());
  {
    sqlite_test::RawDb raw(dir.File("x.bundle"));
    raw.Exec("UPDATE kernels SET binary = X'7f454c4600ff'");
  }
  Database target(dir.File("target.db"));
  ImportResult imported;
  ASSERT_TRUE(ImportBundle(*target.repo,
                           {.bundle_path = dir.File("x.bundle"), .trust_kernels = true}, &imported)
                  .ok());
  EXPECT_EQ(imported.inserted, 2);
  EXPECT_EQ(imported.refused, 0);
  EXPECT_EQ(imported.kernels_refused, 1u);
  EXPECT_EQ(imported.kernels_added, 0u);
  ASSERT_EQ(imported.refusals.size(), 1u);
  EXPECT_EQ(imported.refusals[0].row, "kernel 1 (ember_fused, sm_90)");
  EXPECT_THAT(imported.refusals[0].reason, testing::HasSubstr("checksum mismatch"));
  EXPECT_TRUE(KernelsOf(target).empty());

  // Untrusted, the same bundle imports no kernel and refuses nothing.
  Database other(dir.File("other.db"));
  ASSERT_TRUE(ImportBundle(*other.repo, {.bundle_path = dir.File("x.bundle")}, &imported).ok());
  EXPECT_TRUE(imported.refusals.empty());
  EXPECT_EQ(imported.kernels_untrusted, 1u);
  EXPECT_EQ(imported.inserted, 2);
  EXPECT_TRUE(KernelsOf(other).empty());
}

TEST(PlanBundleStore, AReadOnlyTargetIsRefused) {
  TempDir dir;
  Database source(dir.File("source.db"));
  source.Insert(OneOpPlan(OpKind::kExp), {kAlways});
  ExportResult exported;
  ASSERT_TRUE(ExportBundle(*source.repo, {.bundle_path = dir.File("x.bundle")}, &exported).ok());
  std::unique_ptr<PlanRepository> reader;
  ASSERT_TRUE(
      PlanRepository::Open({.path = dir.File("source.db"), .read_only = true}, &reader).ok());
  ImportResult imported;
  const Status s = ImportBundle(*reader, {.bundle_path = dir.File("x.bundle")}, &imported);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable) << s.ToString();
}

}  // namespace
}  // namespace ember

// The store half of bundles and verification, without the CLI (store/admin/plan_bundle.h,
// store/admin/plan_verification.h): "existing plan wins" with trigger merging on import, origins, the
// manifest, and a database that verifies healthy afterwards.
#include <gtest/gtest.h>

#include "engine/ir/builders.h"
#include "engine/ir/relative.h"
#include "store/admin/plan_bundle.h"
#include "store/codec/plan_codec.h"
#include "store/admin/plan_inventory.h"
#include "store/repository/plan_repository.h"
#include "store/admin/plan_verification.h"
#include "tests/common/temp_dir.h"

namespace ember {
namespace {

using test::TempDir;

EnvironmentFingerprint Environment() {
  return {.engine_version = "0.1.0",
          .schema_version = 1,
          .backend = "cpu",
          .device_model = "any",
          .fusers = {{"elementwise", 1}},
          .max_blocks = 5};
}

// A real one-op plan (relative form, unfused) of `kind` on a 4x4 tensor.
NewPlan OneOpPlan(OpKind kind) {
  OperationConverter converter;
  const OperationIr global =
      ir::Unary(kind, TensorIr{.id = 5, .shape = {4, 4}, .status = TensorStatus::kReadOnly},
                TensorIr{.id = 6, .shape = {4, 4}, .status = TensorStatus::kNotInit});
  const std::vector<OperationIr> ops = {converter.ToRelative(global)};
  return NewPlan{.first_op_hash = FirstOpHash(ops),
                 .plan_key = PlanKey(ops),
                 .ops_blob = EncodeOperations(ops),
                 .plan_blob = EncodeBlockOptimization(BlockOptimization::Unfused(1)),
                 .num_ops = 1,
                 .explore_ms = 2.5};
}

struct Database {
  std::unique_ptr<PlanRepository> repo;
  EnvironmentRowId environment = 0;

  explicit Database(const std::string& path) {
    PlanDbOptions options{.path = path, .network_filesystem = false};
    EXPECT_TRUE(PlanRepository::Open(options, &repo).ok());
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
const TriggerRow kOnSync{1, {}};

TEST(PlanBundleStore, ImportKeepsLocalPlansMergesTriggersAndMarksOrigin) {
  TempDir dir;
  Database source(dir.File("source.db"));
  source.Insert(OneOpPlan(OpKind::kExp), {kAlways});
  const PlanRowId log = source.Insert(OneOpPlan(OpKind::kLog), {kOnSync});
  // A compiled kernel travels with its plan; one without a plan stays home.
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
  ASSERT_TRUE(ExportBundle(source.repo->database(),
                           {.bundle_path = dir.File("x.bundle"), .engine_version = "9.9.9"},
                           &exported)
                  .ok());
  EXPECT_EQ(exported.manifest.plans, 2);
  EXPECT_EQ(exported.manifest.environments, 1);
  EXPECT_EQ(exported.manifest.kernels, 1);
  EXPECT_EQ(exported.skipped_damaged, 0);

  ImportResult imported;
  const Status s =
      ImportBundle(target.repo->database(), {.bundle_path = dir.File("x.bundle")}, &imported);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(imported.manifest.engine_version, "9.9.9");
  EXPECT_EQ(imported.manifest.format, kBundleFormat);
  EXPECT_EQ(imported.manifest.environment_ids,
            std::vector<std::string>{EnvironmentStableId(Environment())});
  EXPECT_EQ(imported.inserted, 1);
  EXPECT_EQ(imported.existing, 1);
  EXPECT_EQ(imported.refused, 0);
  EXPECT_EQ(imported.triggers_added, 2u);  // Always onto the local plan, OnSync on the new one
  EXPECT_EQ(imported.kernels_added, 1u);

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
  ASSERT_TRUE(VerifyPlanDatabase(db, &report).ok());
  EXPECT_TRUE(report.healthy()) << (report.problems.empty() ? "" : report.problems[0].what);
  EXPECT_EQ(report.plans_checked, 2);
  EXPECT_EQ(report.triggers_checked, 3);
  EXPECT_EQ(report.kernels_checked, 1);
  StoredKernel stored;
  ASSERT_TRUE(target.repo->GetKernel(target.environment, compiled.key, &stored).ok());
  EXPECT_EQ(stored.binary, compiled.binary);
  EXPECT_EQ(stored.plan_id, all[1].id);

  // Importing again changes nothing.
  ASSERT_TRUE(
      ImportBundle(target.repo->database(), {.bundle_path = dir.File("x.bundle")}, &imported).ok());
  EXPECT_EQ(imported.inserted, 0);
  EXPECT_EQ(imported.existing, 2);
  EXPECT_EQ(imported.triggers_added, 0u);
}

TEST(PlanBundleStore, AReadOnlyTargetIsRefused) {
  TempDir dir;
  Database source(dir.File("source.db"));
  source.Insert(OneOpPlan(OpKind::kExp), {kAlways});
  ExportResult exported;
  ASSERT_TRUE(
      ExportBundle(source.repo->database(), {.bundle_path = dir.File("x.bundle")}, &exported).ok());
  std::unique_ptr<PlanDatabase> reader;
  ASSERT_TRUE(PlanDatabase::Open({.path = dir.File("source.db"), .read_only = true}, &reader).ok());
  ImportResult imported;
  const Status s = ImportBundle(*reader, {.bundle_path = dir.File("x.bundle")}, &imported);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable) << s.ToString();
}

}  // namespace
}  // namespace ember

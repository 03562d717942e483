// ember-plans export / import (Note [Plan bundles]): a warmed database shipped to another
// machine starts warm there; import keeps local plans, merges triggers, refuses damage and
// bundles from a newer schema.
#include <gtest/gtest.h>

#include "store/shm/shared_plan_tier.h"
#include "store/shm/shared_segment.h"
#include "store/sqlite/migrations.h"
#include "tests/tools/plans/plans_test_util.h"

namespace ember::plans_test {
namespace {

class PlansBundles : public EngineDatabaseSuite {
 protected:
  std::string Export(const std::string& name, std::vector<std::string> extra = {}) {
    const std::string bundle = scratch_.File(name);
    std::vector<std::string> args = {"export", bundle};
    args.insert(args.end(), extra.begin(), extra.end());
    const PlansRun run = PlansOn(db_, args);
    EXPECT_EQ(run.code, 0) << run.err;
    return bundle;
  }

  TempDir scratch_;
};

TEST_F(PlansBundles, AnImportedBundleStartsAnotherDatabaseWarm) {
  const int64_t plans = Json(PlansOn(db_, {"stats", "--json"}))["plans"];
  const std::string bundle = Export("warm.bundle");
  EXPECT_FALSE(std::filesystem::exists(bundle + "-wal"));
  {
    RawDb raw(bundle);
    EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM plans"), plans);
    EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM workloads"), 0);
    EXPECT_EQ(raw.Int("SELECT value = 'ember-plan-bundle' FROM bundle_manifest WHERE key = "
                      "'format'"),
              1);
    EXPECT_EQ(raw.Int("SELECT value FROM bundle_manifest WHERE key = 'schema_version'"),
              LatestSchemaVersion());
  }
  const std::string fleet = scratch_.File("fleet.db");
  const PlansRun run = PlansOn(fleet, {"--json", "import", bundle});
  ASSERT_EQ(run.code, 0) << run.err << run.out;
  const nlohmann::json result = Json(run);
  EXPECT_EQ(result["inserted"], plans);
  EXPECT_EQ(result["existing"], 0);
  EXPECT_EQ(result["refused"], 0);
  for (const nlohmann::json& p : Json(PlansOn(fleet, {"ls", "--json"}))) {
    EXPECT_EQ(p["origin"], "import:warm.bundle");
    EXPECT_EQ(p["hits"], 0);
  }
  EXPECT_EQ(PlansOn(fleet, {"verify"}).code, 0);

  // The engine on the fleet's database explores nothing: every segment is answered.
  RunEngine(fleet, "seed", {"EMBER_WORKLOAD=fleet-job"});
  const nlohmann::json workloads = Json(PlansOn(fleet, {"workloads", "--json"}));
  ASSERT_EQ(workloads.size(), 1u);
  EXPECT_EQ(workloads[0]["explorations"], 0) << workloads.dump(2);
  EXPECT_GT(workloads[0]["hits"].get<int64_t>(), 0);
  EXPECT_EQ(Json(PlansOn(fleet, {"stats", "--json"}))["plans"], plans);
}

TEST_F(PlansBundles, LongOriginsAreCutToFitTheTable) {
  const std::string name =
      "a-bundle-for-the-whole-fleet-of-inference-replicas-in-every-region-2026-11-30.bundle";
  const std::string fleet = scratch_.File("fleet.db");
  ASSERT_EQ(PlansOn(fleet, {"import", Export(name)}).code, 0);
  const PlansRun ls = PlansOn(fleet, {"ls"});
  EXPECT_TRUE(WideLines(ls.out).empty()) << ls.out;
  EXPECT_NE(ls.out.find("import:a-bundl"), std::string::npos) << ls.out;
  // The origin gives up width before the strategy does.
  EXPECT_NE(ls.out.find("fused ElementWise(4)"), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find("…"), std::string::npos) << ls.out;
  EXPECT_EQ(Json(PlansOn(fleet, {"ls", "--json"}))[0]["origin"], "import:" + name);
}

TEST_F(PlansBundles, ImportingTwiceKeepsTheLocalPlans) {
  const std::string bundle = Export("twice.bundle");
  const std::string target = CopyDatabase(db_, scratch_.File("target.db"));
  const nlohmann::json result = Json(PlansOn(target, {"import", bundle, "--json"}));
  const int64_t plans = Json(PlansOn(db_, {"stats", "--json"}))["plans"];
  EXPECT_EQ(result["inserted"], 0);
  EXPECT_EQ(result["existing"], plans);
  EXPECT_EQ(result["triggers_added"], 0);  // the same triggers, already there
  for (const nlohmann::json& p : Json(PlansOn(target, {"ls", "--json"}))) {
    EXPECT_EQ(p["origin"], "local");
  }
  const PlansRun human = PlansOn(target, {"import", bundle});
  EXPECT_NE(human.out.find("0 inserted, " + std::to_string(plans) + " existing"), std::string::npos)
      << human.out;
}

TEST_F(PlansBundles, ExportByWorkloadAndRefusesToOverwrite) {
  const std::string none = Export("none.bundle", {"--workload", "nobody"});
  RawDb raw(none);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM plans"), 0);
  const PlansRun again = PlansOn(db_, {"export", none});
  EXPECT_EQ(again.code, 1);
  EXPECT_NE(again.err.find("already exists"), std::string::npos) << again.err;
}

// Live workers' segments answer for SQLite on the first ops they know, so an import that adds
// plans marks them broken (workers start fresh ones that see the import).
TEST_F(PlansBundles, ImportInvalidatesLiveSharedSegments) {
  if (!std::filesystem::is_directory("/dev/shm")) GTEST_SKIP() << "no POSIX shared memory";
  const std::string fleet = scratch_.File("fleet.db");
  struct RemoveSegments {
    std::string db;
    ~RemoveSegments() { EXPECT_TRUE(SharedSegment::RemoveAll(db).ok()); }
  } cleanup{fleet};
  // A worker on the fleet's database ran another program: its segment knows other plans.
  RunEngine(fleet, "stream", {"EMBER_SHM=on", "EMBER_WORKLOAD=other"});
  const nlohmann::json environments = Json(PlansOn(fleet, {"ls", "--json", "--limit", "1"}));
  ASSERT_EQ(environments.size(), 1u);
  const std::string environment = environments[0]["environment"];
  std::vector<Hash128> keys;
  ASSERT_TRUE(SharedPlanTier::ListKeys(fleet, environment, &keys).ok());
  EXPECT_FALSE(keys.empty());

  const nlohmann::json result = Json(PlansOn(fleet, {"import", Export("warm.bundle"), "--json"}));
  EXPECT_GT(result["inserted"].get<int64_t>(), 0);
  EXPECT_EQ(result["segments_invalidated"], 1);
  EXPECT_EQ(SharedPlanTier::ListKeys(fleet, environment, &keys).code(), Status::Code::kNotFound);
}

TEST_F(PlansBundles, ASharedDirectoryNeedsAllowSharedWritable) {
  const std::filesystem::path shared = scratch_.path() / "shared";
  std::filesystem::create_directory(shared);
  std::filesystem::permissions(shared, std::filesystem::perms::all);
  const std::string bundle = (shared / "warm.bundle").string();
  const PlansRun refused = PlansOn(db_, {"export", bundle});
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("pass --allow-shared-writable"), std::string::npos) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(bundle));
  EXPECT_EQ(PlansOn(db_, {"--allow-shared-writable", "export", bundle}).code, 0);
  const std::string fleet = scratch_.File("fleet.db");
  EXPECT_EQ(PlansOn(fleet, {"import", bundle}).code, 1);
  const PlansRun imported = PlansOn(fleet, {"import", bundle, "--allow-shared-writable"});
  EXPECT_EQ(imported.code, 0) << imported.err;
}

TEST_F(PlansBundles, DamagedRowsAreRefusedTheRestImported) {
  const std::string bundle = Export("damaged.bundle");
  {
    RawDb raw(bundle);
    const int64_t id = raw.Int("SELECT MIN(id) FROM plans");
    std::vector<uint8_t> blob =
        raw.Blob("SELECT ops_blob FROM plans WHERE id = " + std::to_string(id));
    blob[blob.size() / 2] ^= 0x01;
    raw.SetBlob("UPDATE plans SET ops_blob = ?1 WHERE id = " + std::to_string(id), blob);
  }
  const int64_t plans = Json(PlansOn(db_, {"stats", "--json"}))["plans"];
  const PlansRun run = PlansOn(scratch_.File("fleet.db"), {"import", bundle, "--json"});
  EXPECT_EQ(run.code, 1);
  const nlohmann::json result = Json(run);
  EXPECT_EQ(result["refused"], 1);
  EXPECT_EQ(result["inserted"], plans - 1);
  EXPECT_NE(result["refusals"][0]["reason"].get<std::string>().find("checksum mismatch"),
            std::string::npos);
}

TEST_F(PlansBundles, ABundleThatDisagreesWithItsManifestIsRefused) {
  const std::string bundle = Export("edited.bundle");
  {
    RawDb raw(bundle);
    EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM bundle_manifest WHERE key = 'environment_ids' AND "
                      "value = (SELECT fingerprint FROM environments)"),
              1);
    raw.Exec("DELETE FROM plans WHERE id = (SELECT MAX(id) FROM plans)");
  }
  const std::string fleet = scratch_.File("fleet.db");
  const PlansRun run = PlansOn(fleet, {"import", bundle});
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.err.find("does not hold what its manifest lists"), std::string::npos) << run.err;
  EXPECT_EQ(Json(PlansOn(fleet, {"stats", "--json"}))["plans"], 0);
}

TEST_F(PlansBundles, NewerSchemasAndPlainDatabasesAreRefused) {
  const std::string bundle = Export("future.bundle");
  {
    RawDb raw(bundle);
    raw.Exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', 0)");
  }
  const std::string fleet = scratch_.File("fleet.db");
  const PlansRun newer = PlansOn(fleet, {"import", bundle});
  EXPECT_EQ(newer.code, 1);
  EXPECT_NE(newer.err.find("schema version 99, newer than this ember's"), std::string::npos)
      << newer.err;
  const PlansRun plain = PlansOn(fleet, {"import", db_});
  EXPECT_EQ(plain.code, 1);
  EXPECT_NE(plain.err.find("not a plan bundle"), std::string::npos) << plain.err;
  EXPECT_EQ(Json(PlansOn(fleet, {"stats", "--json"}))["plans"], 0);
}

// issue 13, part 7: an unreadable bundle is named a plan bundle, and --json prints the error as
// a JSON object (like every other --json failure) instead of nothing.
TEST_F(PlansBundles, AnUnreadableBundleIsReportedAsABundleAlsoInJson) {
  const std::string healthy = ReadFile(Export("healthy.bundle"));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"garbage.bundle", std::string(8192, 'x')},
      {"truncated.bundle", healthy.substr(0, healthy.size() / 2)},
      {"empty.bundle", ""},
  };
  std::vector<std::string> paths = {scratch_.File("missing.bundle"), scratch_.File("a.directory")};
  std::filesystem::create_directory(paths.back());
  for (const auto& [name, bytes] : cases) {
    paths.push_back(scratch_.File(name));
    std::ofstream(paths.back(), std::ios::binary) << bytes;
    std::filesystem::permissions(
        paths.back(), std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  }
  const std::string fleet = scratch_.File("fleet.db");
  for (const std::string& path : paths) {
    SCOPED_TRACE(path);
    const PlansRun run = PlansOn(fleet, {"--json", "import", path});
    EXPECT_EQ(run.code, 1);
    const nlohmann::json error = Json(run);
    ASSERT_TRUE(error.contains("error")) << run.out;
    const std::string message = error["error"];
    EXPECT_EQ(error["usable"], true);  // the target database opened
    EXPECT_NE(message.find("plan bundle " + path), std::string::npos) << message;
    EXPECT_EQ(message.find("plan database"), std::string::npos) << message;
    EXPECT_NE(run.err.find(message), std::string::npos) << run.err;
  }
  EXPECT_EQ(Json(PlansOn(fleet, {"stats", "--json"}))["plans"], 0);
}

}  // namespace
}  // namespace ember::plans_test

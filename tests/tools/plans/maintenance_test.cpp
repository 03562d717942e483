// ember-plans' write commands on copies of an engine database: gc, reset-explorations,
// set-cap, quarantine ls|clear, migrate, vacuum.
#include <gtest/gtest.h>

#include "store/shm/shared_segment.h"
#include "tests/tools/plans/plans_test_util.h"

namespace ember::plans_test {
namespace {

class PlansMaintenance : public EngineDatabaseSuite {
 protected:
  void SetUp() override { copy_ = CopyDatabase(db_, scratch_.File("copy.db")); }
  nlohmann::json Stats() { return Json(PlansOn(copy_, {"stats", "--json"})); }

  TempDir scratch_;
  std::string copy_;
};

TEST_F(PlansMaintenance, GcDryRunReportsAndChangesNothing) {
  const std::string before = ReadFile(copy_);
  const PlansRun run = PlansOn(copy_, {"gc", "--max-bytes", "1", "--dry-run", "--json"});
  ASSERT_EQ(run.code, 0) << run.err;
  const nlohmann::json report = Json(run);
  const int64_t plans = Stats()["plans"];
  EXPECT_EQ(report["dry_run"], true);
  EXPECT_EQ(static_cast<int64_t>(report["evicted"].size()), plans);
  EXPECT_EQ(report["bytes_after"], 0);
  EXPECT_EQ(ReadFile(copy_), before);
  // Lowest value first (Note [Plan value]).
  for (size_t i = 1; i < report["evicted"].size(); ++i) {
    EXPECT_LE(report["evicted"][i - 1]["value"].get<double>(),
              report["evicted"][i]["value"].get<double>());
  }
  const PlansRun human = PlansOn(copy_, {"gc", "--max-bytes", "1", "--dry-run"});
  EXPECT_NE(human.out.find("would evict " + std::to_string(plans)), std::string::npos) << human.out;
}

TEST_F(PlansMaintenance, GcMaxBytesEvictsTheLeastValuableWithTheirTriggers) {
  const nlohmann::json plans = Json(PlansOn(copy_, {"ls", "--json"}));
  int64_t total = 0;
  for (const nlohmann::json& p : plans) total += p["bytes"].get<int64_t>();
  const nlohmann::json dry =
      Json(PlansOn(copy_, {"gc", "--json", "--dry-run", "--max-bytes", std::to_string(total - 1)}));
  ASSERT_GE(dry["evicted"].size(), 1u);
  const PlansRun run = PlansOn(copy_, {"gc", "--max-bytes", std::to_string(total - 1)});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("evicted " + std::to_string(dry["evicted"].size())), std::string::npos)
      << run.out;
  const nlohmann::json after = Stats();
  EXPECT_EQ(after["plans"].get<int64_t>(),
            static_cast<int64_t>(plans.size() - dry["evicted"].size()));
  RawDb raw(copy_);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM triggers WHERE plan_id NOT IN (SELECT id FROM plans)"),
            0);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM plan_usage WHERE plan_id NOT IN (SELECT id FROM plans)"),
            0);
  EXPECT_EQ(PlansOn(copy_, {"verify"}).code, 0);
}

TEST_F(PlansMaintenance, GcOlderThanEvictsOnlyStalePlans) {
  int64_t stale = 0;
  {
    RawDb raw(copy_);
    stale = raw.Int("SELECT MIN(id) FROM plans");
    // Used 40 days ago.
    raw.Exec(
        "UPDATE plans SET created = created - 3456000000, last_hit = last_hit - 3456000000 "
        "WHERE id = " +
        std::to_string(stale));
  }
  const nlohmann::json report = Json(PlansOn(copy_, {"gc", "--older-than", "30d", "--json"}));
  ASSERT_EQ(report["evicted"].size(), 1u) << report.dump(2);
  EXPECT_EQ(report["evicted"][0]["id"], stale);
  EXPECT_EQ(report["dry_run"], false);
  EXPECT_EQ(Json(PlansOn(copy_, {"gc", "--older-than", "30d", "--json"}))["evicted"].size(), 0u);
}

// Note [Plans in use by a live segment]: the engine's shared-memory segment of the database
// holds every plan it published, and gc keeps them; once the segment is gone they may go.
TEST_F(PlansMaintenance, GcKeepsThePlansALiveSegmentHolds) {
  if (!std::filesystem::is_directory("/dev/shm")) GTEST_SKIP() << "no POSIX shared memory";
  const std::string db = scratch_.File("live.db");
  struct RemoveSegments {
    std::string db;
    ~RemoveSegments() { EXPECT_TRUE(SharedSegment::RemoveAll(db).ok()); }
  } cleanup{db};
  RunEngine(db, "seed", {"EMBER_SHM=on", "EMBER_WORKLOAD=seed-job"});
  ASSERT_FALSE(SharedSegment::NamesFor(db).empty()) << "the engine made no shared segment";
  const int64_t plans = Json(PlansOn(db, {"stats", "--json"}))["plans"];
  const nlohmann::json kept = Json(PlansOn(db, {"gc", "--max-bytes", "0", "--dry-run", "--json"}));
  EXPECT_EQ(kept["protected"], plans);
  EXPECT_TRUE(kept["evicted"].empty()) << kept.dump(2);
  EXPECT_EQ(kept["max_bytes_unreached"], true);
  const PlansRun human = PlansOn(db, {"gc", "--max-bytes", "0"});
  EXPECT_EQ(human.code, 0) << human.err;
  EXPECT_NE(human.out.find("kept: in use by a live shared segment"), std::string::npos)
      << human.out;
  EXPECT_EQ(Json(PlansOn(db, {"stats", "--json"}))["plans"], plans);

  ASSERT_TRUE(SharedSegment::RemoveAll(db).ok());
  const nlohmann::json free = Json(PlansOn(db, {"gc", "--max-bytes", "0", "--dry-run", "--json"}));
  EXPECT_EQ(free["protected"], 0);
  EXPECT_EQ(static_cast<int64_t>(free["evicted"].size()), plans);
}

TEST_F(PlansMaintenance, GcRejectsBadArguments) {
  // Without --older-than and --max-bytes gc evicts no plan (it only removes unused kernels).
  const PlansRun bare = PlansOn(copy_, {"gc", "--json"});
  EXPECT_EQ(bare.code, 0) << bare.err;
  EXPECT_TRUE(Json(bare)["evicted"].empty());
  EXPECT_EQ(PlansOn(copy_, {"gc", "--older-than", "soon"}).code, 64);
  EXPECT_EQ(PlansOn(copy_, {"gc", "--max-bytes", "12Q"}).code, 64);
  const nlohmann::json k =
      Json(PlansOn(copy_, {"gc", "--max-bytes", "64K", "--dry-run", "--json"}));
  EXPECT_EQ(k["evicted"].size(), 0u);  // the seed's plans are a few KiB
}

TEST_F(PlansMaintenance, SetCapAndResetExplorations) {
  PlansRun run = PlansOn(copy_, {"set-cap", "seed-job", "3"});
  ASSERT_EQ(run.code, 0) << run.err;
  nlohmann::json w = Json(PlansOn(copy_, {"workloads", "--json"}))[0];
  EXPECT_EQ(w["max_explorations"], 3);
  EXPECT_EQ(w["exhausted"], w["explorations"].get<int64_t>() >= 3);
  run = PlansOn(copy_, {"reset-explorations", "seed-job"});
  ASSERT_EQ(run.code, 0) << run.err;
  w = Json(PlansOn(copy_, {"workloads", "--json"}))[0];
  EXPECT_EQ(w["explorations"], 0);
  EXPECT_EQ(w["exhausted"], false);
  EXPECT_EQ(PlansOn(copy_, {"set-cap", "seed-job", "unlimited"}).code, 0);
  EXPECT_TRUE(Json(PlansOn(copy_, {"workloads", "--json"}))[0]["max_explorations"].is_null());
  EXPECT_EQ(PlansOn(copy_, {"set-cap", "seed-job", "-2"}).code, 64);
  const PlansRun unknown = PlansOn(copy_, {"reset-explorations", "nobody"});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.err.find("no workload 'nobody'"), std::string::npos) << unknown.err;
}

TEST_F(PlansMaintenance, QuarantineListsAndClears) {
  EXPECT_NE(PlansOn(copy_, {"quarantine", "ls"}).out.find("no quarantined plans"),
            std::string::npos);
  {
    RawDb raw(copy_);
    raw.Exec(
        "UPDATE plans SET status = 'quarantined', quarantine_reason = 'checksum mismatch "
        "(test)' WHERE id = (SELECT MIN(id) FROM plans)");
  }
  const int64_t plans = Stats()["plans"];
  EXPECT_EQ(Stats()["quarantined"], 1);
  const PlansRun ls = PlansOn(copy_, {"quarantine", "ls"});
  EXPECT_NE(ls.out.find("checksum mismatch (test)"), std::string::npos) << ls.out;
  const nlohmann::json json = Json(PlansOn(copy_, {"quarantine", "ls", "--json"}));
  ASSERT_EQ(json.size(), 1u);
  EXPECT_EQ(json[0]["reason"], "checksum mismatch (test)");
  EXPECT_EQ(static_cast<int64_t>(Json(PlansOn(copy_, {"ls", "--json"})).size()), plans - 1);
  const PlansRun clear = PlansOn(copy_, {"quarantine", "clear"});
  EXPECT_EQ(clear.code, 0) << clear.err;
  EXPECT_NE(clear.out.find("deleted 1"), std::string::npos);
  EXPECT_EQ(Stats()["quarantined"], 0);
  EXPECT_EQ(Stats()["plans"], plans - 1);
}

TEST_F(PlansMaintenance, MigrateAndVacuum) {
  const PlansRun migrate = PlansOn(copy_, {"migrate"});
  EXPECT_EQ(migrate.code, 0) << migrate.err;
  EXPECT_NE(migrate.out.find("schema version 6 -> 6"), std::string::npos) << migrate.out;
  const PlansRun vacuum = PlansOn(copy_, {"vacuum"});
  EXPECT_EQ(vacuum.code, 0) << vacuum.err;
  EXPECT_NE(vacuum.out.find(" -> "), std::string::npos) << vacuum.out;
  EXPECT_EQ(PlansOn(copy_, {"verify"}).code, 0);
}

TEST_F(PlansMaintenance, ANewerSchemaIsReadButNotWritten) {
  {
    RawDb raw(copy_);
    raw.Exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', 0)");
  }
  EXPECT_EQ(Stats()["schema_version"], 99);
  const PlansRun run = PlansOn(copy_, {"reset-explorations", "seed-job"});
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.err.find("newer"), std::string::npos) << run.err;
  EXPECT_EQ(PlansOn(copy_, {"quarantine", "clear"}).code, 1);
}

}  // namespace
}  // namespace ember::plans_test

// ember-plans shm ls | rm | invalidate on the shared-memory segments the real engine makes
// (EMBER_SHM=on), on segments with a live claim of this process, and on garbage objects put in
// /dev/shm under a database's names. Every test removes the segments it made (RemoveSegments).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include <gtest/gtest.h>

#include "engine/core/clock.h"
#include "store/shm/shared_plan_tier.h"
#include "store/shm/shared_segment.h"
#include "tests/tools/plans/plans_test_util.h"

namespace ember::plans_test {
namespace {

struct RemoveSegments {
  std::string db;
  ~RemoveSegments() { EXPECT_TRUE(SharedSegment::RemoveAll(db).ok()); }
};

class PlansShm : public testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::is_directory("/dev/shm")) GTEST_SKIP() << "no POSIX shared memory";
  }

  // A database the engine wrote with its shared-memory tier on: one segment.
  std::string EngineDatabaseWithSegment() {
    RunEngine(db_, "seed", {"EMBER_SHM=on", "EMBER_WORKLOAD=seed-job"});
    EXPECT_EQ(SharedSegment::NamesFor(db_).size(), 1u) << "the engine made no shared segment";
    return db_;
  }
  // The stable id of the database's (only) environment, as `ls` reports it.
  std::string Environment() {
    const nlohmann::json plans = Json(PlansOn(db_, {"ls", "--json"}));
    EXPECT_FALSE(plans.empty());
    return plans.empty() ? "" : plans[0]["environment"].get<std::string>();
  }
  nlohmann::json Segments() {
    const PlansRun run = PlansOn(db_, {"shm", "ls", "--json"});
    EXPECT_EQ(run.code, 0) << run.err;
    return Json(run);
  }
  // Writes `bytes` bytes of 0xAB as the shared-memory object `name`.
  static void WriteGarbage(const std::string& name, size_t bytes) {
    std::ofstream("/dev/shm/" + name, std::ios::binary) << std::string(bytes, '\xAB');
  }

  TempDir dir_;
  std::string db_ = dir_.File("plans.db");
  RemoveSegments cleanup_{db_};
};

TEST_F(PlansShm, LsDescribesTheSegmentTheEngineMade) {
  EngineDatabaseWithSegment();
  const std::string name = SharedSegment::NamesFor(db_).at(0);
  const nlohmann::json segments = Segments();
  ASSERT_EQ(segments.size(), 1u) << segments.dump(2);
  const nlohmann::json& s = segments[0];
  EXPECT_EQ(s["name"], name);
  EXPECT_EQ(s["environment"], Environment());
  EXPECT_EQ(s["environment_id"], 1);
  EXPECT_EQ(s["state"], "ready") << s.dump(2);
  EXPECT_TRUE(s["problem"].is_null());
  EXPECT_GT(s["entries"].get<int64_t>(), 0);
  EXPECT_GT(s["plan_keys"].get<int64_t>(), 0);
  EXPECT_LE(s["plan_keys"].get<int64_t>(), s["entries"].get<int64_t>());
  EXPECT_GE(s["generation"].get<int64_t>(), s["entries"].get<int64_t>());
  EXPECT_GT(s["used_bytes"].get<int64_t>(), 0);
  EXPECT_LT(s["used_bytes"].get<int64_t>(), s["bytes"].get<int64_t>());
  EXPECT_EQ(s["publish_skipped"], 0);
  EXPECT_EQ(s["incomplete"], false);
  EXPECT_EQ(s["layout_version"], 3);
  EXPECT_EQ(s["live_claims"], 0);
  EXPECT_NEAR(s["created"].get<double>(), static_cast<double>(NowUnixMillis()), 120000.0);
  EXPECT_EQ(s["owner_uid"], static_cast<int64_t>(geteuid()));
  struct stat st {};
  ASSERT_EQ(stat(("/dev/shm/" + name).c_str(), &st), 0);
  EXPECT_EQ(s["bytes"], static_cast<int64_t>(st.st_size));
  char mode[8];
  std::snprintf(mode, sizeof(mode), "%04o", st.st_mode & 07777);
  EXPECT_EQ(s["mode"], mode);

  const PlansRun human = PlansOn(db_, {"shm", "ls"});
  ASSERT_EQ(human.code, 0) << human.err;
  EXPECT_NE(human.out.find(name), std::string::npos) << human.out;
  EXPECT_NE(human.out.find("ready"), std::string::npos) << human.out;
  EXPECT_TRUE(WideLines(human.out).empty()) << human.out;
  EXPECT_EQ(human.out.find("\x1b["), std::string::npos) << "no color when not on a terminal";
  EXPECT_NE(PlansOnTerminal({"--db", db_, "shm", "ls"}).find("\x1b["), std::string::npos);
}

TEST_F(PlansShm, InvalidateMarksBrokenAndRmRemoves) {
  EngineDatabaseWithSegment();
  const std::string name = SharedSegment::NamesFor(db_).at(0);
  PlansRun run = PlansOn(db_, {"shm", "invalidate"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("marked 1 shared segment(s)"), std::string::npos) << run.out;
  nlohmann::json segments = Segments();
  ASSERT_EQ(segments.size(), 1u);
  EXPECT_EQ(segments[0]["state"], "broken");
  EXPECT_TRUE(segments[0]["plan_keys"].is_null());  // ListKeys reads usable segments only
  EXPECT_NE(PlansOn(db_, {"shm", "ls"}).out.find("broken"), std::string::npos);

  run = PlansOn(db_, {"shm", "rm", "--dry-run"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("would remove " + name), std::string::npos) << run.out;
  EXPECT_EQ(SharedSegment::NamesFor(db_).size(), 1u);

  run = PlansOn(db_, {"shm", "rm"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("removed " + name), std::string::npos) << run.out;
  EXPECT_TRUE(SharedSegment::NamesFor(db_).empty());
  EXPECT_TRUE(Segments().empty());
}

TEST_F(PlansShm, RmRefusesWhileAWorkerHoldsALiveClaim) {
  EngineDatabaseWithSegment();
  std::unique_ptr<SharedPlanTier> worker;
  const SharedSegmentOptions options{
      .database_path = db_, .environment = Environment(), .create = false};
  ASSERT_TRUE(SharedPlanTier::Open(options, &worker).ok());
  constexpr uint64_t kFirstOp = 0x5eed;
  ASSERT_EQ(worker->Claim(kFirstOp), SharedPlanTier::ClaimOutcome::kMine);
  EXPECT_EQ(Segments()[0]["live_claims"], 1);
  worker->Release(kFirstOp);
  EXPECT_EQ(Segments()[0]["live_claims"], 0);
  ASSERT_EQ(worker->Claim(kFirstOp), SharedPlanTier::ClaimOutcome::kMine);

  for (const std::vector<std::string>& rm : {std::vector<std::string>{"shm", "rm"},
                                             std::vector<std::string>{"shm", "rm", "--dry-run"}}) {
    const PlansRun refused = PlansOn(db_, rm);
    EXPECT_EQ(refused.code, 1) << refused.out;
    EXPECT_NE(refused.err.find("1 live claim(s)"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("shm invalidate"), std::string::npos) << refused.err;
    EXPECT_EQ(SharedSegment::NamesFor(db_).size(), 1u);
  }

  const PlansRun forced = PlansOn(db_, {"shm", "rm", "--force", "--json"});
  ASSERT_EQ(forced.code, 0) << forced.err;
  EXPECT_EQ(Json(forced)["removed"].size(), 1u) << forced.out;
  EXPECT_TRUE(SharedSegment::NamesFor(db_).empty());
}

TEST_F(PlansShm, GarbageObjectsAreListedAsUnusableAndRemoved) {
  RunEngine(db_, "seed");  // a database, no segment
  ASSERT_TRUE(SharedSegment::NamesFor(db_).empty());
  const std::string garbage = SharedSegment::NameFor(db_, Environment());
  const std::string tiny = SharedSegment::NameFor(db_, "env-of-no-row");
  WriteGarbage(garbage, 64 * 1024);
  WriteGarbage(tiny, 100);
  const std::string before = ReadFile("/dev/shm/" + garbage);

  const nlohmann::json segments = Segments();
  ASSERT_EQ(segments.size(), 2u) << segments.dump(2);
  for (const nlohmann::json& s : segments) {
    EXPECT_EQ(s["state"], "unusable") << s.dump(2);
    EXPECT_TRUE(s["entries"].is_null());
    EXPECT_TRUE(s["live_claims"].is_null());
    if (s["name"] == garbage) {
      EXPECT_EQ(s["environment"], Environment());
      EXPECT_EQ(s["problem"], "it is not an ember plan segment");
      EXPECT_EQ(s["bytes"], 64 * 1024);
    } else {
      EXPECT_EQ(s["name"], tiny);
      EXPECT_TRUE(s["environment"].is_null());
      EXPECT_TRUE(s["environment_id"].is_null());
      EXPECT_EQ(s["problem"], "it is only 100 bytes");
    }
  }
  const PlansRun human = PlansOn(db_, {"shm", "ls"});
  ASSERT_EQ(human.code, 0) << human.err;
  EXPECT_NE(human.out.find(garbage + ": unusable: it is not an ember plan segment"),
            std::string::npos)
      << human.out;
  EXPECT_NE(human.out.find("env ?"), std::string::npos) << human.out;
  EXPECT_TRUE(WideLines(human.out).empty()) << human.out;

  // Neither ls nor invalidate writes to what is not an ember segment.
  const PlansRun invalidate = PlansOn(db_, {"shm", "invalidate"});
  EXPECT_EQ(invalidate.code, 0) << invalidate.err;
  EXPECT_NE(invalidate.out.find("marked 0 shared segment(s)"), std::string::npos) << invalidate.out;
  EXPECT_EQ(ReadFile("/dev/shm/" + garbage), before);

  const PlansRun rm = PlansOn(db_, {"shm", "rm"});
  ASSERT_EQ(rm.code, 0) << rm.err;
  EXPECT_NE(rm.out.find("removed 2 shared segment(s)"), std::string::npos) << rm.out;
  EXPECT_TRUE(SharedSegment::NamesFor(db_).empty());
}

// Note [Shared segment trust]: a segment other users could write is refused by the engine, so
// ls must not call it ready; it is still described, and --allow-shared-writable accepts it.
TEST_F(PlansShm, LsShowsASegmentOthersCanWriteAsUntrusted) {
  EngineDatabaseWithSegment();
  const std::string name = SharedSegment::NamesFor(db_).at(0);
  ASSERT_EQ(chmod(("/dev/shm/" + name).c_str(), 0666), 0);
  const nlohmann::json segments = Segments();
  ASSERT_EQ(segments.size(), 1u) << segments.dump(2);
  const nlohmann::json& s = segments[0];
  EXPECT_EQ(s["state"], "untrusted") << s.dump(2);
  EXPECT_EQ(s["problem"], "it is writable by group and others (mode 0666)");
  EXPECT_EQ(s["mode"], "0666");
  EXPECT_GT(s["entries"].get<int64_t>(), 0);
  EXPECT_TRUE(s["plan_keys"].is_null());

  const PlansRun human = PlansOn(db_, {"shm", "ls"});
  ASSERT_EQ(human.code, 0) << human.err;
  EXPECT_NE(human.out.find(name + ": untrusted: it is writable by group and others (mode 0666)"),
            std::string::npos)
      << human.out;
  EXPECT_TRUE(WideLines(human.out).empty()) << human.out;

  const PlansRun allowed = PlansOn(db_, {"--allow-shared-writable", "shm", "ls", "--json"});
  ASSERT_EQ(allowed.code, 0) << allowed.err;
  EXPECT_EQ(Json(allowed)[0]["state"], "ready") << allowed.out;
}

TEST_F(PlansShm, NoSegmentsIsNotAnError) {
  RunEngine(db_, "seed");
  PlansRun run = PlansOn(db_, {"shm", "ls"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out, "no shared segments for " + db_ + "\n");
  run = PlansOn(db_, {"shm", "ls", "--json"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(Json(run), nlohmann::json::array());
  for (const char* command : {"rm", "invalidate"}) {
    run = PlansOn(db_, {"shm", command});
    EXPECT_EQ(run.code, 0) << command << ": " << run.err;
    EXPECT_NE(run.out.find("no shared segments for"), std::string::npos) << run.out;
  }
}

TEST_F(PlansShm, ExitCodes) {
  // ls needs the database (its environments); rm works from the path alone.
  EXPECT_EQ(PlansOn(db_, {"shm", "ls"}).code, 2);
  EXPECT_EQ(PlansOn(db_, {"shm", "rm"}).code, 0);
  EXPECT_EQ(PlansOn(db_, {"shm"}).code, 64);
  EXPECT_EQ(PlansOn(db_, {"shm", "rm", "--bogus"}).code, 64);
  const PlansRun help = Plans({"--help"});
  EXPECT_NE(help.out.find("shm"), std::string::npos) << help.out;
  const PlansRun rm_help = Plans({"shm", "rm", "--help"});
  EXPECT_NE(rm_help.out.find("shm invalidate"), std::string::npos) << rm_help.out;
}

}  // namespace
}  // namespace ember::plans_test

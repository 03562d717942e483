// The plan database end to end (docs/PLAN_DATABASE.md): real processes (this test binary
// re-executed as a child), a real SQLite file, the real fusers and CPU backend. Each child runs
// one small workload on the database named by EMBER_PLAN_DB and writes its ember::Stats and a
// checksum of its results to EMBER_TEST_OUT; the parent compares runs.
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>

#include "tests/common/workloads.h"
#include "tests/end_to_end/engine_child.h"
#include "tests/store/forged_plans.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::TempDir;
using test::Child;
using test::Collect;
using test::ExpectWarmStart;
using test::OpenRepository;
using test::Report;
using test::RunChild;
using test::SpawnChild;

// --- the child ---------------------------------------------------------------------------

// EMBER_TEST_WORKLOAD names a program of tests/common/workloads.h (the seed's by default).
double RunWorkload(const std::string& workload) {
  return workload == "shapes"      ? test::ChangingShapes()
         : workload == "many"      ? test::ManySegments()
         : workload == "forgeable" ? test::ForgeableProgram()
                                   : test::SeedAndSoftmax();
}

// EMBER_TEST_VANISH: the database file vanishes mid-run — between "shapes" and the workload,
// it is deleted ("delete") or the file this names is moved over it (a backup restored). Nothing
// happens to a database that is off.
double RunAndVanish(const std::string& vanish, const std::string& workload) {
  double checksum = test::ChangingShapes();
  Sync();
  const std::string db = std::getenv("EMBER_PLAN_DB");
  if (db != "off") {
    const int rc = vanish == "delete" ? unlink(db.c_str()) : rename(vanish.c_str(), db.c_str());
    EXPECT_EQ(rc, 0) << vanish << " " << db;
  }
  return checksum + RunWorkload(workload);
}

// A host that keeps running (postgres_fleet_test.cpp): it runs the workload once, creates the
// file `ready`, then runs it again until `done` says so (at most 30 s); the checksum is the
// last run's. `flush`: each run ends with FlushPlans rather than Sync.
double RunUntil(const std::string& ready, const std::string& workload, int* runs,
                const std::function<bool(const Stats&)>& done, bool flush) {
  double checksum = RunWorkload(workload);
  Sync();
  std::ofstream(ready) << "ready\n";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (*runs = 1; !done(GetStats()) && std::chrono::steady_clock::now() < deadline; ++*runs) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    checksum = RunWorkload(workload);
    flush ? FlushPlans() : Sync();
  }
  return checksum;
}

TEST(DISABLED_PlanDatabaseChild, Run) {
  const std::string workload = std::getenv("EMBER_TEST_WORKLOAD");
  const char* vanish = std::getenv("EMBER_TEST_VANISH");
  const char* ready = std::getenv("EMBER_TEST_READY");
  const char* until_stored = std::getenv("EMBER_TEST_UNTIL_STORED");
  int runs = 1;
  // EMBER_TEST_READY: until a cache hit ran a plan read from the database (another host's);
  // EMBER_TEST_UNTIL_STORED: until what this host found reached the database (it started
  // without its server).
  const auto hit_from_db = [](const Stats& s) { return s.cache_hits_from_db > 0; };
  const auto stored = [](const Stats& s) { return s.plans_published > 0; };
  const double checksum =
      vanish != nullptr         ? RunAndVanish(vanish, workload)
      : ready != nullptr        ? RunUntil(ready, workload, &runs, hit_from_db, /*flush=*/false)
      : until_stored != nullptr ? RunUntil(until_stored, workload, &runs, stored, /*flush=*/true)
                                : RunWorkload(workload);
  // The report counts what reached the database (on a server a sync does not wait for it);
  // EMBER_TEST_NO_FLUSH: reports without waiting (a test that blocks the server's writes).
  if (std::getenv("EMBER_TEST_NO_FLUSH") != nullptr) {
    Sync();
  } else {
    FlushPlans();
  }
  const Stats s = GetStats();
  std::ofstream out(std::getenv("EMBER_TEST_OUT"));
  out << "checksum " << checksum << "\n"
      << "runs " << runs << "\n"
      << "plans_loaded_on_notify " << s.plans_loaded_on_notify << "\n"
      << "explorations " << s.explorations << "\n"
      << "cache_hits " << s.cache_hits << "\n"
      << "fused_executions " << s.fused_executions << "\n"
      << "plans_loaded_from_db " << s.plans_loaded_from_db << "\n"
      << "cache_hits_from_db " << s.cache_hits_from_db << "\n"
      << "plans_loaded_from_shm " << s.plans_loaded_from_shm << "\n"
      << "cache_hits_from_shm " << s.cache_hits_from_shm << "\n"
      << "shm_publish_skipped " << s.shm_publish_skipped << "\n"
      << "plans " << s.plans << "\n"
      << "plans_published " << s.plans_published << "\n"
      << "rows_quarantined " << s.rows_quarantined << "\n";
}

// --- the parent --------------------------------------------------------------------------

int64_t Count(SqlitePlanRepository& repo, const std::string& sql) {
  std::string text;
  EXPECT_TRUE(repo.database().sqlite().QueryText(sql, "counting", &text).ok()) << sql;
  return std::stoll(text);
}

TEST(PlanDatabase, SecondProcessStartsWarmWithoutExploring) {
  TempDir dir;
  const std::vector<std::string> env = {"EMBER_PLAN_DB=" + dir.path().string() + "/plans.db",
                                        "EMBER_TEST_WORKLOAD=seed"};
  const Report cold = RunChild(dir.path().string(), env);
  EXPECT_GT(cold.at("explorations"), 0);
  EXPECT_GT(cold.at("plans_published"), 0);
  EXPECT_EQ(cold.at("plans_loaded_from_db"), 0);
  EXPECT_GT(cold.at("fused_executions"), 0);

  {
    // At exit the writer checkpointed its log: the database file alone, copied without its
    // -wal (as a user shipping it would), holds every plan.
    TempDir copy;
    std::filesystem::copy_file(dir.path() / "plans.db", copy.path() / "plans.db");
    std::unique_ptr<SqlitePlanRepository> alone = OpenRepository(copy.File("plans.db"));
    ASSERT_NE(alone, nullptr);
    EXPECT_EQ(Count(*alone, "SELECT COUNT(*) FROM plans"), cold.at("plans_published"));
  }
  {
    // Each plan records what finding it cost (ember-plans gc weighs plans by it).
    std::unique_ptr<SqlitePlanRepository> repo = OpenRepository(dir.path().string() + "/plans.db");
    ASSERT_NE(repo, nullptr);
    EXPECT_EQ(Count(*repo, "SELECT COUNT(*) FROM plans WHERE explore_ms > 0"),
              Count(*repo, "SELECT COUNT(*) FROM plans"));
    // The environment records each fuser's version: version 2 took burn's rule for casts and
    // integer matmuls (issue 17), version 3 Gather, Select and Cat as indexed inputs (issue 45),
    // so no plan found by an older version's rules is ever served.
    std::string description;
    ASSERT_TRUE(repo->database()
                    .sqlite()
                    .QueryText("SELECT description FROM environments", "reading", &description)
                    .ok());
    for (const char* fuser : {"ElementWise", "Matmul", "Reduce", "ReduceBroadcasted"}) {
      EXPECT_NE(description.find(std::string("{\"name\":\"") + fuser + "\",\"version\":3}"),
                std::string::npos)
          << description;
    }
  }
  const Report warm = RunChild(dir.path().string(), env);
  ExpectWarmStart(cold, warm);
  EXPECT_EQ(cold.at("cache_hits_from_db"), 0);
  EXPECT_EQ(warm.at("rows_quarantined"), 0);
}

TEST(PlanDatabase, ConcurrentProcessesShareOnePlanPerSegment) {
  TempDir dir;
  const std::string path = dir.path().string() + "/plans.db";
  const std::vector<std::string> env = {"EMBER_PLAN_DB=" + path, "EMBER_TEST_WORKLOAD=seed"};
  // Four processes start together on an empty database: several explore the same segments,
  // the first publication of each wins and the others merge their triggers into it.
  std::vector<Child> children;
  for (int i = 0; i < 4; ++i) children.push_back(SpawnChild(dir.path().string(), env));
  std::vector<Report> reports;
  for (const Child& child : children) reports.push_back(Collect(child));
  for (const Report& r : reports) EXPECT_EQ(r.at("checksum"), reports[0].at("checksum"));

  std::unique_ptr<SqlitePlanRepository> repo = OpenRepository(path);
  ASSERT_NE(repo, nullptr);
  const int64_t plans = Count(*repo, "SELECT COUNT(*) FROM plans");
  EXPECT_EQ(Count(*repo, "SELECT COUNT(DISTINCT plan_key) FROM plans"), plans);
  EXPECT_EQ(Count(*repo,
                  "SELECT COUNT(*) FROM (SELECT plan_id, kind, ops_blob FROM triggers "
                  "GROUP BY plan_id, kind, ops_blob HAVING COUNT(*) > 1)"),
            0);
  // A single process stores exactly as many: nobody's duplicate survived.
  TempDir alone;
  const std::string single = alone.path().string() + "/plans.db";
  RunChild(alone.path().string(), {"EMBER_PLAN_DB=" + single, "EMBER_TEST_WORKLOAD=seed"});
  std::unique_ptr<SqlitePlanRepository> reference = OpenRepository(single);
  EXPECT_EQ(Count(*reference, "SELECT COUNT(*) FROM plans"), plans);
  // A fifth process finds everything.
  const Report late = RunChild(dir.path().string(), env);
  EXPECT_EQ(late.at("explorations"), 0);
  EXPECT_EQ(late.at("checksum"), reports[0].at("checksum"));
}

TEST(PlanDatabase, KilledWritersLeaveAHealthyDatabase) {
  TempDir dir;
  const std::string path = dir.path().string() + "/plans.db";
  const std::vector<std::string> env = {"EMBER_PLAN_DB=" + path, "EMBER_TEST_WORKLOAD=seed"};
  // SIGKILL children at staggered instants: before opening, while exploring, while their
  // writer commits, after. Whatever they left must be a consistent database.
  for (int i = 0; i < 12; ++i) {
    TempDir scratch;
    const Child child = SpawnChild(scratch.path().string(), env);
    usleep(static_cast<useconds_t>(3000 * i));
    test::KillChild(child.pid);
  }
  {
    std::unique_ptr<SqlitePlanRepository> repo = OpenRepository(path);
    ASSERT_NE(repo, nullptr);
    std::string check;
    ASSERT_TRUE(
        repo->database().sqlite().QueryText("PRAGMA integrity_check", "checking", &check).ok());
    EXPECT_EQ(check, "ok");
  }
  // The next process runs normally and computes what a process without a database computes.
  TempDir fresh;
  const Report reference =
      RunChild(fresh.path().string(), {"EMBER_PLAN_DB=off", "EMBER_TEST_WORKLOAD=seed"});
  const Report after = RunChild(dir.path().string(), env);
  EXPECT_EQ(after.at("checksum"), reference.at("checksum"));
  EXPECT_EQ(after.at("rows_quarantined"), 0);
}

TEST(PlanDatabase, AnotherEnvironmentSeesNoPlans) {
  TempDir dir;
  const std::string db = "EMBER_PLAN_DB=" + dir.path().string() + "/plans.db";
  const Report first = RunChild(dir.path().string(), {db, "EMBER_TEST_WORKLOAD=seed"});
  // max_blocks is part of the environment: plans made with another value stay invisible.
  const Report other =
      RunChild(dir.path().string(), {db, "EMBER_TEST_WORKLOAD=seed", "EMBER_MAX_BLOCKS=3"});
  EXPECT_EQ(other.at("plans_loaded_from_db"), 0);
  EXPECT_EQ(other.at("explorations"), first.at("explorations"));
  EXPECT_EQ(other.at("checksum"), first.at("checksum"));
}

TEST(PlanDatabase, ExplorationBudgetSpentYesterdayIsSpentToday) {
  TempDir dir;
  const std::vector<std::string> env = {"EMBER_PLAN_DB=" + dir.path().string() + "/plans.db",
                                        "EMBER_TEST_WORKLOAD=shapes", "EMBER_WORKLOAD=budget",
                                        "EMBER_MAX_EXPLORATIONS=2"};
  const Report first = RunChild(dir.path().string(), env);
  EXPECT_EQ(first.at("explorations"), 2);
  const Report second = RunChild(dir.path().string(), env);
  EXPECT_EQ(second.at("explorations"), 0);  // the budget was spent by the first run
  EXPECT_EQ(second.at("checksum"), first.at("checksum"));
  // Another workload name has its own budget.
  std::vector<std::string> other = env;
  other[2] = "EMBER_WORKLOAD=other";
  EXPECT_EQ(RunChild(dir.path().string(), other).at("explorations"), 2);
}

TEST(PlanDatabase, DamagedRowsAreQuarantinedAndResultsStayRight) {
  TempDir dir;
  const std::string path = dir.path().string() + "/plans.db";
  const std::vector<std::string> env = {"EMBER_PLAN_DB=" + path, "EMBER_TEST_WORKLOAD=seed"};
  const Report cold = RunChild(dir.path().string(), env);
  {
    std::unique_ptr<SqlitePlanRepository> repo = OpenRepository(path);
    ASSERT_NE(repo, nullptr);
    ASSERT_TRUE(repo->database()
                    .sqlite()
                    .Exec("UPDATE plans SET plan_blob = zeroblob(16)", "corrupting")
                    .ok());
  }
  const Report warm = RunChild(dir.path().string(), env);
  EXPECT_GT(warm.at("rows_quarantined"), 0);
  EXPECT_GT(warm.at("explorations"), 0);
  EXPECT_EQ(warm.at("checksum"), cold.at("checksum"));
}

// issue 13, part 3: a fused trace edited by one byte, its row checksum recomputed, used to load
// and compute something else. Note [Optimization proof] (store/codec/plan_proof.h) quarantines the
// row; the program explores that segment again and computes what it computed before.
TEST(PlanDatabase, AForgedTraceIsQuarantinedAndResultsStayRight) {
  const std::vector<std::pair<std::string, forge::TraceEdit>> forgeries = {
      {"Mean made ArgMax", forge::MeanToArgMax},
      {"scalar placeholder redirected", forge::RedirectScalar},
      {"output hidden", forge::HideAnOutput}};
  for (const auto& [name, edit] : forgeries) {
    SCOPED_TRACE(name);
    TempDir dir;
    const std::string path = dir.path().string() + "/plans.db";
    const std::vector<std::string> env = {"EMBER_PLAN_DB=" + path, "EMBER_TEST_WORKLOAD=forgeable"};
    const Report cold = RunChild(dir.path().string(), env);
    int64_t forged = 0;
    std::vector<uint8_t> forged_blob;
    {
      sqlite_test::RawDb raw(path);
      forged = forge::ForgeRow(raw, edit);
      ASSERT_NE(forged, 0);
      forged_blob = raw.Blob("SELECT plan_blob FROM plans WHERE id = " + std::to_string(forged));
    }
    const Report warm = RunChild(dir.path().string(), env);
    EXPECT_EQ(warm.at("rows_quarantined"), 1);
    EXPECT_EQ(warm.at("explorations"), 1);
    EXPECT_EQ(warm.at("checksum"), cold.at("checksum"));
    // The forged bytes are never served again: the row stays quarantined, or the exploration's
    // genuine plan repaired it (which of the writer's two writes lands last varies).
    sqlite_test::RawDb raw(path);
    const std::string row = " FROM plans WHERE id = " + std::to_string(forged);
    if (raw.Text("SELECT status" + row) == "ok") {
      EXPECT_NE(raw.Blob("SELECT plan_blob" + row), forged_blob);
    }
    const Report third = RunChild(dir.path().string(), env);
    EXPECT_EQ(third.at("checksum"), cold.at("checksum"));
    EXPECT_EQ(third.at("rows_quarantined"), 0);
  }
}

TEST(PlanDatabase, AnUnusableFileLeavesTheProgramInMemory) {
  TempDir dir;
  const std::string path = dir.path().string() + "/garbage.db";
  std::ofstream(path) << std::string(4096, 'x');
  const Report report =
      RunChild(dir.path().string(), {"EMBER_PLAN_DB=" + path, "EMBER_TEST_WORKLOAD=seed"});
  EXPECT_GT(report.at("explorations"), 0);
  EXPECT_EQ(report.at("plans_published"), 0);
  EXPECT_EQ(test::ReadFile(path), std::string(4096, 'x'));  // untouched
}

}  // namespace
}  // namespace ember

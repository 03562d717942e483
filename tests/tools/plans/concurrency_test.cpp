// Read commands and live writers: they read a database that another process is writing
// (WAL), and they never modify the file.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>

#include <xxhash.h>

#include "tests/tools/plans/plans_test_util.h"

namespace ember::plans_test {
namespace {

uint64_t FileHash(const std::string& path) {
  const std::string bytes = ReadFile(path);
  return XXH3_64bits(bytes.data(), bytes.size());
}

// The contents of a database: the main file and the -wal a live (or exited) engine left. A
// reader of a WAL database may create an empty -wal (and a -shm, SQLite's shared index, which
// holds no data): a missing -wal and an empty one hash alike.
uint64_t DatabaseHash(const std::string& db) { return FileHash(db) * 31 + FileHash(db + "-wal"); }

void ExpectReadCommandsLeaveItAlone(const std::string& db, const TempDir& dir) {
  const uint64_t before = DatabaseHash(db);
  const auto size_before = std::filesystem::file_size(db);
  const nlohmann::json plans = Json(PlansOn(db, {"ls", "--json"}));
  ASSERT_FALSE(plans.empty());
  const std::string id = std::to_string(plans[0]["id"].get<int64_t>());
  const std::vector<std::vector<std::string>> commands = {
      {"stats"},
      {"stats", "--json"},
      {"ls"},
      {"ls", "--sort", "score"},
      {"show", id},
      {"show", id, "--json"},
      {"dot", id},
      {"workloads"},
      {"workloads", "--json"},
      {"verify"},
      {"verify", "--json"},
      {"gc", "--max-bytes", "0", "--dry-run"},
      {"gc", "--older-than", "1ms", "--dry-run", "--json"},
      {"quarantine", "ls"},
      {"export", dir.File("out.bundle")}};
  for (const std::vector<std::string>& command : commands) {
    const PlansRun run = PlansOn(db, command);
    EXPECT_EQ(run.code, 0) << command[0] << ": " << run.err;
    EXPECT_EQ(DatabaseHash(db), before) << command[0] << " modified the database";
    std::filesystem::remove(dir.File("out.bundle"));
  }
  EXPECT_EQ(std::filesystem::file_size(db), size_before);
}

TEST(PlansConcurrency, ReadCommandsLeaveTheFileByteIdentical) {
  TempDir dir;
  // As the engine left it (its last commits in the -wal), then as one checkpointed file.
  const std::string db = MakeEngineDatabase(dir);
  ExpectReadCommandsLeaveItAlone(db, dir);
  const std::string copy = CopyDatabase(db, dir.File("copy.db"));
  ExpectReadCommandsLeaveItAlone(copy, dir);
}

// The engine child publishing until told to stop (the program "stream-until-stopped"):
// stopped and reaped at the latest when this goes, also when an assertion ends a test early.
class LiveWriter {
 public:
  LiveWriter(const std::string& db, const TempDir& dir) : stop_(dir.File("stop-writing")) {
    pid_ = StartEngine(db, "stream-until-stopped",
                       {"EMBER_WORKLOAD=writer", "EMBER_TEST_STOP_FILE=" + stop_});
  }
  ~LiveWriter() {
    if (!reaped_) Stop();
  }
  LiveWriter(const LiveWriter&) = delete;
  LiveWriter& operator=(const LiveWriter&) = delete;

  // Whether it is still running (it ends only when asked, or when it fails).
  bool Running() {
    const pid_t done = waitpid(pid_, &status_, WNOHANG);
    reaped_ = done == pid_;
    return done == 0;
  }
  // Asks it to stop and waits for it; its wait status.
  int Stop() {
    std::ofstream(stop_).put('\n');
    if (!reaped_) reaped_ = waitpid(pid_, &status_, 0) == pid_;
    return status_;
  }

 private:
  std::string stop_;
  pid_t pid_ = -1;
  int status_ = 0;
  bool reaped_ = false;
};

TEST(PlansConcurrency, ReadCommandsWorkWhileAProcessWrites) {
  TempDir dir;
  const std::string db = dir.File("live.db");
  RunEngine(db, "seed", {"EMBER_WORKLOAD=seed-job"});  // the file exists with a schema
  const int64_t plans_before = Json(PlansOn(db, {"stats", "--json"}))["plans"];
  // The writer publishes until it is told to stop, not for a fixed time: on a loaded machine a
  // round of reads (four processes) could outlast a writer that stopped on a clock, and the
  // reads would then not overlap it at all.
  LiveWriter writer(db, dir);
  int64_t last_plans = plans_before;
  int rounds = 0;
  int rounds_after_growth = 0;
  // Read until the reads have seen the writer's plans land, and two rounds more while it goes
  // on (hits, and new plans until its forty programs repeat). Two minutes is a bound for a
  // writer that never publishes, not a wait that a slow machine could reach.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (rounds_after_growth < 2) {
    ASSERT_LT(std::chrono::steady_clock::now(), give_up)
        << "the writer published nothing the reads saw in " << rounds << " rounds";
    ++rounds;
    const PlansRun stats = PlansOn(db, {"stats", "--json"});
    ASSERT_EQ(stats.code, 0) << stats.err;
    const int64_t plans = Json(stats)["plans"];
    EXPECT_GE(plans, last_plans);
    last_plans = plans;
    const PlansRun ls = PlansOn(db, {"ls", "--json"});
    ASSERT_EQ(ls.code, 0) << ls.err;
    for (const nlohmann::json& p : Json(ls)) EXPECT_TRUE(p["problem"].is_null()) << p.dump();
    const PlansRun verify = PlansOn(db, {"verify"});
    EXPECT_EQ(verify.code, 0) << verify.out << verify.err;
    EXPECT_EQ(PlansOn(db, {"workloads", "--json"}).code, 0);
    // Every round overlapped the writer: it was running when the round ended.
    ASSERT_TRUE(writer.Running()) << "the writer ended before it was told to stop";
    if (last_plans > plans_before) ++rounds_after_growth;
  }
  const int status = writer.Stop();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const nlohmann::json after = Json(PlansOn(db, {"stats", "--json"}));
  EXPECT_GT(after["plans"].get<int64_t>(), plans_before) << "the writer published nothing";
  EXPECT_EQ(PlansOn(db, {"verify"}).code, 0);
}

}  // namespace
}  // namespace ember::plans_test

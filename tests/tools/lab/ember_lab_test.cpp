// ember-lab end to end: each test runs the real binary (tools/lab, path from CMake as
// EMBER_LAB_BINARY) as a child process on a temporary plan database with small sizes, and
// checks its --json output and exit status.
#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "store/shm/shared_segment.h"
#include "tests/common/temp_dir.h"
#include "tests/tools/lab/lab_runner.h"

namespace ember {
namespace {

using test::ExpectCorrect;
using test::LabRun;
using test::RunLab;
using test::RunLabJson;

TEST(EmberLab, ReuseFollowsTheSeedWalkthrough) {
  test::TempDir dir;
  const nlohmann::json r = RunLabJson(dir, {"reuse", "--db", dir.File("plans.db")});
  ExpectCorrect(r);
  EXPECT_EQ(r["scenario"], "reuse");
  EXPECT_EQ(r["device"], "cpu");
  const auto& steps = r["step_rows"];
  ASSERT_EQ(steps.size(), 6u) << r.dump(2);
  // Explored once at 64x64; the repeats, the other scalar and 32x32 hit; 64x32 explores again.
  EXPECT_GT(steps[0]["explorations"].get<int>(), 0);
  for (int i : {1, 2, 3, 4}) {
    EXPECT_EQ(steps[i]["explorations"].get<int>(), 0) << steps[i]["label"];
    EXPECT_GT(steps[i]["cache_hits"].get<int>(), 0) << steps[i]["label"];
  }
  EXPECT_EQ(steps[5]["label"], "non-square (64x32, s=2)");
  EXPECT_GT(steps[5]["explorations"].get<int>(), 0);
  for (const auto& s : steps) EXPECT_EQ(s["fused_executions"].get<int>(), 1) << s["label"];
  EXPECT_GT(r["plans_published"].get<int>(), 0);
  // The 64x32 step says why it explored (issue 21): the expression's relative shape.
  bool explained = false;
  for (const auto& line : steps[5]["misses"]) {
    explained |= line.get<std::string>().find("[plan] miss (shape): nearest plan #") == 0 &&
                 line.get<std::string>().find(
                     "(NumericFloat::Mul): input 0 shape [1,2] vs [1,1] (64×32 gives [1,2], the "
                     "stored plan has [1,1] from 64×64): dim 1 differs") != std::string::npos;
  }
  EXPECT_TRUE(explained) << steps[5].dump(2);
  for (int i : {1, 2, 3, 4}) EXPECT_TRUE(steps[i]["misses"].empty()) << steps[i].dump(2);
}

TEST(EmberLab, ReuseTablesShowWhyThe64By32StepExplored) {
  test::TempDir dir;
  const LabRun run = RunLab(dir, {"reuse", "--no-store"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("why non-square (64x32, s=2) explored, although plans were stored:"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("shape: nearest plan #"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("(64×32 gives [1,2], the stored plan has [1,1] from 64×64)"),
            std::string::npos)
      << run.out;
  // First sightings (iteration 0) are not near misses: no explanation for that step.
  EXPECT_EQ(run.out.find("why iteration 0"), std::string::npos) << run.out;
}

TEST(EmberLab, ReuseWithLogFullShowsTheSeedsLogLines) {
  test::TempDir dir;
  const LabRun run = RunLab(dir, {"reuse", "--no-store", "--log", "full", "--steps", "2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const char* line :
       {"--- iteration 0: (64x64) (a * b + c * 2).exp()",
        "op 2 NumericFloat::Add → accepted in 1/1 block(s)",
        "[plan] exploration completed: sync, 4/4 ops optimized",
        "▸ fused ElementWise (score=630, 4 ops)", "--- other scalar: (64x64) (a * b + c * 3).exp()",
        "(sync, segment has 4 ops)", "--- non-square: (64x32)"}) {
    EXPECT_NE(run.err.find(line), std::string::npos) << "missing: " << line;
  }
}

TEST(EmberLab, UnrelatedChainsRunAsOneFusedLaunch) {
  test::TempDir dir;
  const nlohmann::json r =
      RunLabJson(dir, {"unrelated", "--db", dir.File("plans.db"), "--width", "64", "--steps", "2"});
  ExpectCorrect(r);
  EXPECT_EQ(r["details"]["ops_per_sync"].get<int>(), 40);
  EXPECT_EQ(r["details"]["first_sync_launches"].get<int>(), 1);
  EXPECT_EQ(r["details"]["first_sync_fused_executions"].get<int>(), 1);
  EXPECT_EQ(r["details"]["last_sync_launches"].get<int>(), 1);
}

TEST(EmberLab, UnrelatedKernelScoresSevenThousandThreeHundredNinety) {
  test::TempDir dir;
  const LabRun run =
      RunLab(dir, {"unrelated", "--no-store", "--width", "32", "--steps", "1", "--log", "full"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("▸ fused ElementWise (score=7390, 40 ops)"), std::string::npos) << run.err;
}

TEST(EmberLab, MlpTrainsAndMatchesTheReference) {
  test::TempDir dir;
  const nlohmann::json r = RunLabJson(
      dir, {"mlp", "--db", dir.File("plans.db"), "--batch", "8", "--width", "16", "--steps", "4"});
  ExpectCorrect(r);
  EXPECT_EQ(r["steps"].get<int>(), 4);
  EXPECT_EQ(r["details"]["batch"].get<int>(), 8);
  EXPECT_GT(r["fused_executions"].get<int>(), 0);
  EXPECT_GT(r["explorations"].get<int>(), 0);
}

// The SQLite tier alone (the shared-memory tier off): a later process starts warm.
TEST(EmberLab, TransformerSecondRunStartsWarm) {
  test::TempDir dir;
  const std::vector<std::string> args = {
      "transformer", "--db", dir.File("plans.db"), "--seq", "16", "--width", "32", "--steps", "3",
      "--shm",       "off"};
  const nlohmann::json cold = RunLabJson(dir, args);
  ExpectCorrect(cold);
  EXPECT_GT(cold["explorations"].get<int>(), 0);
  EXPECT_GT(cold["plans_published"].get<int>(), 0);
  const nlohmann::json warm = RunLabJson(dir, args);
  ExpectCorrect(warm);
  EXPECT_EQ(warm["explorations"].get<int>(), 0);
  EXPECT_GT(warm["cache_hits"].get<int>(), 0);
  EXPECT_GT(warm["cache_hits_from_db"].get<int>(), 0);
  EXPECT_GT(warm["plans_loaded_from_db"].get<int>(), 0);
  EXPECT_EQ(warm["plans_published"].get<int>(), 0);
  EXPECT_EQ(warm["fused_executions"], cold["fused_executions"]);
}

// With the shared-memory tier: the second run reads every plan from the segment the first
// one filled, including the triggers the first run added to plans after finding them (a
// regression: a warm transformer explored its layernorm segment once more).
TEST(EmberLab, TransformerSecondRunStartsWarmFromSharedMemory) {
  test::TempDir dir;
  const std::string db = dir.File("plans.db");
  const std::vector<std::string> args = {"transformer", "--db",    db,  "--seq", "16", "--width",
                                         "32",          "--steps", "3", "--shm", "on"};
  const nlohmann::json cold = RunLabJson(dir, args);
  const nlohmann::json warm = RunLabJson(dir, args);
  SharedSegment::RemoveAll(db);
  ExpectCorrect(warm);
  EXPECT_GT(cold["explorations"].get<int>(), 0);
  EXPECT_EQ(warm["explorations"].get<int>(), 0);
  EXPECT_GT(warm["plans_loaded_from_shm"].get<int>(), 0);
  EXPECT_EQ(warm["plans_loaded_from_db"].get<int>(), 0);
  EXPECT_EQ(warm["cache_hits_from_shm"], warm["cache_hits"]);
}

TEST(EmberLab, DefaultRunsColdThenWarm) {
  test::TempDir dir;
  const nlohmann::json r = RunLabJson(dir, {"--seq", "16", "--width", "32", "--steps", "2"});
  ASSERT_TRUE(r.contains("cold") && r.contains("warm")) << r.dump();
  for (const char* key :
       {"explorations", "cache_hits", "time_to_first_result_ms", "total_ms", "max_rel_error"}) {
    EXPECT_TRUE(r["cold"].contains(key)) << key;
    EXPECT_TRUE(r["warm"].contains(key)) << key;
  }
  ExpectCorrect(r["cold"]);
  ExpectCorrect(r["warm"]);
  EXPECT_GT(r["cold"]["explorations"].get<int>(), 0);
  EXPECT_EQ(r["warm"]["explorations"].get<int>(), 0);
  EXPECT_GT(r["warm"]["cache_hits_from_db"].get<int>(), 0);
  EXPECT_GT(r["cold_warm_ratio"]["time_to_first_result"].get<double>(), 0.0);
  // The scratch database is gone.
  EXPECT_FALSE(std::filesystem::exists(dir.path() / ".ember" / r["database"].get<std::string>()));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / r["database"].get<std::string>()));
}

TEST(EmberLab, DefaultKeepsANamedDatabaseAndRefusesAnExistingOne) {
  test::TempDir dir;
  const std::string db = dir.File("kept.db");
  const nlohmann::json r =
      RunLabJson(dir, {"--db", db, "--seq", "8", "--width", "16", "--steps", "1"});
  EXPECT_TRUE(r["database_kept"].get<bool>());
  EXPECT_TRUE(std::filesystem::exists(db));
  const LabRun again = RunLab(dir, {"--db", db, "--steps", "1"});
  EXPECT_EQ(again.exit_code, 3);
  EXPECT_NE(again.err.find("needs a fresh database"), std::string::npos) << again.err;
}

TEST(EmberLab, DynamicHonoursTheCapAndPersistsItAcrossRuns) {
  test::TempDir dir;
  const std::vector<std::string> args = {
      "dynamic", "--db", dir.File("plans.db"), "--max-explorations", "9", "--steps", "6",
      "--shm",   "off"};
  const nlohmann::json first = RunLabJson(dir, args);
  ExpectCorrect(first);
  EXPECT_EQ(first["explorations"].get<int>(), 9);
  // Once the cap is spent, a new length explores nothing.
  const auto& steps = first["step_rows"];
  ASSERT_EQ(steps.size(), 6u);
  EXPECT_EQ(steps[5]["explorations"].get<int>(), 0) << steps.dump(2);
  const nlohmann::json second = RunLabJson(dir, args);
  ExpectCorrect(second);
  EXPECT_EQ(second["explorations"].get<int>(), 0);
  EXPECT_GT(second["plans_loaded_from_db"].get<int>(), 0);
  // Another workload on the same database has its own budget.
  std::vector<std::string> other = args;
  other.insert(other.end(), {"--workload", "someone-else"});
  EXPECT_GT(RunLabJson(dir, other)["explorations"].get<int>(), 0);
}

TEST(EmberLab, WorkersShareOneDatabase) {
  test::TempDir dir;
  const nlohmann::json r = RunLabJson(dir, {"workers", "3", "reuse", "--db", dir.File("plans.db")});
  SharedSegment::RemoveAll(dir.File("plans.db"));  // the workers share one (outlives them)
  ASSERT_TRUE(r.contains("workers")) << r.dump();
  ASSERT_EQ(r["workers"].size(), 3u);
  int explorations = 0;
  std::set<int> workers;
  for (const auto& w : r["workers"]) {
    for (const char* key : {"explorations", "cache_hits", "plans_loaded_from_shm",
                            "plans_loaded_from_db", "time_to_first_result_ms"}) {
      EXPECT_TRUE(w.contains(key)) << key;
    }
    ExpectCorrect(w);
    EXPECT_EQ(w["database"], dir.File("plans.db"));
    EXPECT_GE(w["cache_hits"].get<int>(),
              w["cache_hits_from_shm"].get<int>() + w["cache_hits_from_db"].get<int>());
    EXPECT_EQ(w["cache_hits_memory"].get<int>(), w["cache_hits"].get<int>() -
                                                     w["cache_hits_from_shm"].get<int>() -
                                                     w["cache_hits_from_db"].get<int>());
    explorations += w["explorations"].get<int>();
    workers.insert(w["worker"].get<int>());
  }
  // The database started empty, so somebody explored; every worker reported once.
  EXPECT_GT(explorations, 0);
  EXPECT_EQ(workers, (std::set<int>{0, 1, 2}));
}

TEST(EmberLab, AWorkerThatFailsFailsTheGroup) {
  test::TempDir dir;
  // --steps 0 is refused by the scenario inside every worker.
  const LabRun run = RunLab(dir, {"workers", "2", "reuse", "--no-store", "--steps", "0"});
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_NE(run.err.find("worker 0 exited with status 3"), std::string::npos) << run.err;
}

TEST(EmberLab, CudaDeviceFailsClearly) {
  test::TempDir dir;
  const LabRun run = RunLab(dir, {"reuse", "--device", "cuda", "--no-store"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--device cuda"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("CUDA is unavailable"), std::string::npos) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
}

TEST(EmberLab, UnknownScenarioIsAUsageError) {
  test::TempDir dir;
  const LabRun run = RunLab(dir, {"resnet"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("unknown command \"resnet\""), std::string::npos) << run.err;
}

TEST(EmberLab, TableOutputNamesEveryFigure) {
  test::TempDir dir;
  const LabRun run =
      RunLab(dir, {"mlp", "--no-store", "--batch", "4", "--width", "8", "--steps", "2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const char* figure :
       {"steps", "explorations", "cache hits", "plans published", "fused executions", "launches",
        "kernels compiled", "kernels loaded", "time to first result", "steady state per step",
        "max relative error"}) {
    EXPECT_NE(run.out.find(figure), std::string::npos) << figure;
  }
  EXPECT_EQ(run.out.find("\033["), std::string::npos) << "color on a pipe";
  size_t start = 0;
  while (start < run.out.size()) {
    size_t end = run.out.find('\n', start);
    if (end == std::string::npos) end = run.out.size();
    EXPECT_LE(end - start, 100u) << run.out.substr(start, end - start);
    start = end + 1;
  }
}

}  // namespace
}  // namespace ember

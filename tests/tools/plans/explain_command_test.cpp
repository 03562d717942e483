// ember-plans explain (tools/plans/explain_command.cpp) and the misses column of `workloads`,
// on databases and logs the real engine wrote (engine children, engine_child_test.cpp): the
// seed's 64x32 question across processes, a length that changes every step (the bucketing
// advice), another max_blocks (an environment miss), a recorded EMBER_LOG=medium log, and the
// refusals (no such workload, no log, a schema without the misses table).
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/tools/plans/plans_test_util.h"

namespace ember::plans_test {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// The group of `report` (one workload of explain --json) with `cause` and `op_name`, or null.
nlohmann::json FindGroup(const nlohmann::json& report, const std::string& cause,
                         const std::string& op_name) {
  for (const nlohmann::json& g : report["groups"]) {
    if (g["cause"] == cause && g["op_name"] == op_name) return g;
  }
  return nullptr;
}

// explain --json --workload `workload`: its one report.
nlohmann::json ExplainWorkload(const std::string& db, const std::string& workload) {
  const PlansRun run = PlansOn(db, {"explain", "--workload", workload, "--json"});
  EXPECT_EQ(run.code, 0) << run.err;
  const nlohmann::json j = Json(run);
  EXPECT_EQ(j["source"], "database");
  EXPECT_EQ(j["workloads"].size(), 1u) << j.dump(2);
  return j["workloads"].empty() ? nlohmann::json() : j["workloads"][0];
}

class PlansExplain : public testing::Test {
 protected:
  TempDir dir_;
};

TEST_F(PlansExplain, TheSeeds64By32StepIsExplainedFromTheDatabase) {
  const std::string db = dir_.File("plans.db");
  RunEngine(db, "seed64x64", {"EMBER_WORKLOAD=seed-question"});
  RunEngine(db, "seed64x32", {"EMBER_WORKLOAD=seed-question"});
  const nlohmann::json report = ExplainWorkload(db, "seed-question");
  EXPECT_EQ(report["name"], "seed-question");
  const nlohmann::json mul = FindGroup(report, "shape", "NumericFloat::Mul");
  ASSERT_FALSE(mul.is_null()) << report.dump(2);
  EXPECT_EQ(mul["count"], 1);
  EXPECT_EQ(mul["op"], 0);
  // The second process compared with the row the first one stored.
  EXPECT_THAT(mul["nearest_plan"].get<std::string>(), StartsWith("stored plan "));
  EXPECT_THAT(mul["latest_detail"].get<std::string>(),
              HasSubstr("input 0 shape [1,2] vs [1,1] (64×32 gives [1,2], the stored plan has "
                        "[1,1] from 64×64): dim 1 differs"));
  EXPECT_EQ(mul["values"], nlohmann::json::array({32}));
  EXPECT_THAT(mul["advice"].get<std::string>(), HasSubstr("another shape"));
  // The first process's first sighting of the expression is there too.
  EXPECT_FALSE(FindGroup(report, "no_candidate", "NumericFloat::Mul").is_null());
  EXPECT_GE(report["by_cause"]["shape"].get<int64_t>(), 1);
  EXPECT_EQ(report["misses"].get<int64_t>(), [&] {
    int64_t n = 0;
    for (const auto& [cause, count] : report["by_cause"].items()) n += count.get<int64_t>();
    return n;
  }());

  const PlansRun text = PlansOn(db, {"explain", "--workload", "seed-question"});
  EXPECT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("× shape at op 0 (NumericFloat::Mul)"));
  EXPECT_THAT(text.out, HasSubstr("64×32 gives [1,2], the stored plan has [1,1] from 64×64"));
  EXPECT_THAT(text.out, HasSubstr("advice: "));
}

TEST_F(PlansExplain, ALengthThatChangesEveryStepGetsTheBucketingAdvice) {
  const std::string db = dir_.File("plans.db");
  RunEngine(db, "lengths", {"EMBER_WORKLOAD=dynamic"});
  const nlohmann::json report = ExplainWorkload(db, "dynamic");
  ASSERT_FALSE(report["groups"].empty()) << report.dump(2);
  // The most frequent pattern comes first: the Cat of another arity, once per new length.
  const nlohmann::json top = report["groups"][0];
  EXPECT_EQ(top["cause"], "attribute") << report.dump(2);
  EXPECT_EQ(top["op_name"], "BaseFloat::Cat");
  EXPECT_EQ(top["count"], 7);  // lengths 5 ... 11 against the plan of length 4 and later ones
  EXPECT_EQ(top["values"].size(), 7u);
  EXPECT_THAT(top["values"], Contains(11));
  EXPECT_THAT(top["advice"].get<std::string>(),
              HasSubstr("shape id of the sequence dim changes every step"));
  EXPECT_THAT(top["advice"].get<std::string>(), HasSubstr("consider bucketing lengths"));

  const PlansRun workloads = PlansOn(db, {"workloads", "--json"});
  ASSERT_EQ(workloads.code, 0) << workloads.err;
  const nlohmann::json rows = Json(workloads);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["misses_by_cause"]["attribute"], 7);
  const PlansRun table = PlansOn(db, {"workloads"});
  EXPECT_THAT(table.out, HasSubstr("miss causes"));
  EXPECT_THAT(table.out, HasSubstr("attribute 7"));
}

TEST_F(PlansExplain, AnotherMaxBlocksIsAnEnvironmentMiss) {
  const std::string db = dir_.File("plans.db");
  RunEngine(db, "seed64x64", {"EMBER_WORKLOAD=blocks", "EMBER_MAX_BLOCKS=5"});
  RunEngine(db, "seed64x64", {"EMBER_WORKLOAD=blocks", "EMBER_MAX_BLOCKS=3"});
  // Two environments, so two workload rows of that name; the second one's misses explain it.
  const PlansRun run = PlansOn(db, {"explain", "--workload", "blocks", "--json"});
  ASSERT_EQ(run.code, 0) << run.err;
  const nlohmann::json j = Json(run);
  ASSERT_EQ(j["workloads"].size(), 2u) << j.dump(2);
  nlohmann::json environment;
  for (const nlohmann::json& report : j["workloads"]) {
    const nlohmann::json g = FindGroup(report, "environment", "NumericFloat::Mul");
    if (!g.is_null()) environment = g;
  }
  ASSERT_FALSE(environment.is_null()) << j.dump(2);
  EXPECT_THAT(
      environment["latest_detail"].get<std::string>(),
      HasSubstr("stored under another environment: max_blocks: 3 here, 5 in the stored plan's"));
  EXPECT_THAT(environment["advice"].get<std::string>(), HasSubstr("per environment"));
}

TEST_F(PlansExplain, ARecordedMediumLogIsGroupedLikeTheDatabase) {
  const std::string db = dir_.File("plans.db");
  const std::string log = dir_.File("run.log");
  const std::string config = dir_.File("ember.toml");
  std::ofstream(config) << "[fusion.log]\nlevel = \"medium\"\nfile = \"" << log << "\"\n";
  RunEngine(db, "lengths", {"EMBER_CONFIG=" + config, "EMBER_WORKLOAD=dynamic"});
  ASSERT_THAT(ReadFile(log), HasSubstr("[plan] miss (attribute): nearest plan "));

  const PlansRun run = Plans({"explain", "--log", log, "--json"});
  ASSERT_EQ(run.code, 0) << run.err;
  const nlohmann::json j = Json(run);
  EXPECT_EQ(j["source"], "log");
  ASSERT_EQ(j["workloads"].size(), 1u);
  const nlohmann::json report = j["workloads"][0];
  EXPECT_EQ(report["name"], log);
  EXPECT_TRUE(report["environment_id"].is_null());
  const nlohmann::json top = report["groups"][0];
  EXPECT_EQ(top["cause"], "attribute");
  EXPECT_EQ(top["count"], 7);
  EXPECT_EQ(top["values"].size(), 7u);
  EXPECT_THAT(top["advice"].get<std::string>(), HasSubstr("consider bucketing lengths"));
  // The same counts by cause as the database kept for the run.
  EXPECT_EQ(report["by_cause"], ExplainWorkload(db, "dynamic")["by_cause"]);
}

// A log read back whatever else it holds: other lines, the budget note, values that differ.
TEST_F(PlansExplain, ALogsMissLinesAreFoundAmongOtherOutput) {
  const std::string log = dir_.File("mixed.log");
  std::ofstream(log)
      << "[stream] something else\n"
      << "worker 3: [plan] miss (shape): nearest plan #2 differs at op 0 (NumericFloat::Mul): "
         "input 0 shape [1,2] vs [1,1] (64×32 gives [1,2], the stored plan has [1,1] from "
         "64×64): dim 1 differs\n"
      << "[plan] miss (shape): nearest plan stored plan 7 differs at op 0 (NumericFloat::Mul): "
         "input 0 shape [1,2] vs [1,1] (64×48 gives [1,2], the stored plan has [1,1] from "
         "64×64): dim 1 differs (exploration budget spent: runs unfused)\n"
      << "[plan] miss (status): nearest plan #4 differs at op 1 (NumericFloat::Add): input 1 is "
         "ReadOnly vs ReadWrite (here kept alive, in the stored plan last use)\n"
      << "[plan] miss (no_candidate): no stored plan starts with Float::Matmul\n"
      << "[plan] miss (malformed\n";
  const PlansRun run = Plans({"explain", "--log", log, "--json"});
  ASSERT_EQ(run.code, 0) << run.err;
  const nlohmann::json report = Json(run)["workloads"][0];
  EXPECT_EQ(report["misses"], 4);
  ASSERT_EQ(report["groups"].size(), 3u) << report.dump(2);
  const nlohmann::json shape = report["groups"][0];
  EXPECT_EQ(shape["cause"], "shape");
  EXPECT_EQ(shape["count"], 2);
  EXPECT_EQ(shape["op_name"], "NumericFloat::Mul");
  EXPECT_EQ(shape["nearest_plan"], "stored plan 7");
  EXPECT_EQ(shape["values"], nlohmann::json::array({32, 48}));
  const nlohmann::json status = FindGroup(report, "status", "NumericFloat::Add");
  ASSERT_FALSE(status.is_null());
  EXPECT_EQ(status["op"], 1);
  EXPECT_THAT(status["advice"].get<std::string>(), HasSubstr("kept alive"));
  EXPECT_FALSE(FindGroup(report, "no_candidate", "Float::Matmul").is_null());

  // --limit cuts the patterns per workload (the most frequent first) and says so; 0 lists all.
  const PlansRun one = Plans({"explain", "--log", log, "--limit", "1"});
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_THAT(one.out, HasSubstr("1. 2× shape at op 0 (NumericFloat::Mul)"));
  EXPECT_THAT(one.out, Not(HasSubstr("2. ")));
  EXPECT_THAT(one.out, HasSubstr("… 2 more patterns (--limit)"));
  const PlansRun all = Plans({"explain", "--log", log, "--limit", "0", "--json"});
  ASSERT_EQ(all.code, 0) << all.err;
  EXPECT_EQ(Json(all)["workloads"][0]["groups"].size(), 3u);
}

TEST_F(PlansExplain, RefusalsAreClear) {
  const std::string db = dir_.File("plans.db");
  RunEngine(db, "seed64x64", {"EMBER_WORKLOAD=seed-question"});
  const PlansRun unknown = PlansOn(db, {"explain", "--workload", "nope"});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("has no workload 'nope'"));
  const PlansRun no_log = Plans({"explain", "--log", dir_.File("absent.log")});
  EXPECT_EQ(no_log.code, 1);
  EXPECT_THAT(no_log.err, HasSubstr("cannot read the log"));
  const std::string empty = dir_.File("empty.log");
  std::ofstream(empty) << "nothing here\n";
  const PlansRun quiet = Plans({"explain", "--log", empty});
  EXPECT_EQ(quiet.code, 0) << quiet.err;
  EXPECT_THAT(quiet.out, HasSubstr("EMBER_LOG=medium"));

  // A database of schema 2 (before workload_misses), read-only: explain says what to do and
  // leaves it alone; workloads still lists it.
  const char* data = std::getenv("EMBER_TEST_DATA");
  ASSERT_NE(data, nullptr);
  const std::string old = CopyDatabase(std::string(data) + "/plans-v2.db", dir_.File("v2.db"));
  const std::string before = ReadFile(old);
  const PlansRun refused = PlansOn(old, {"explain"});
  EXPECT_EQ(refused.code, 1);
  EXPECT_THAT(refused.err, HasSubstr("has schema 2"));
  EXPECT_THAT(refused.err, HasSubstr("ember-plans migrate"));
  EXPECT_EQ(PlansOn(old, {"workloads"}).code, 0);
  EXPECT_EQ(ReadFile(old), before) << "a read command changed the file";
}

}  // namespace
}  // namespace ember::plans_test

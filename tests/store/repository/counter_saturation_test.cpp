// Counters that reach INT64_MAX stay there (issue 40, item 5): every `x = x + n` of the
// repository saturates on both databases, so that a hit, miss, exploration or plan-use counter
// at its limit neither raises SQLSTATE 22003 on a server nor turns REAL (and then negative) in
// a file, and the background writer goes on storing plans beside it.
#include <cstdint>
#include <limits>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/core/log.h"
#include "store/admin/plan_inventory.h"
#include "store/repository/plan_writer.h"
#include "tests/store/repository_backends.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::OnSync;
using sqlite_test::SamplePlan;
using testing::HasSubstr;
using testing::Not;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
const std::string kNearMax = std::to_string(kMax - 1);

class CounterSaturation : public test::WorkloadBackendFixture {
 protected:
  WorkloadRow Workload() {
    WorkloadRow row;
    const Status s = repo_->GetWorkload(workload_, &row);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return row;
  }
  // The column's one value as the database holds it.
  std::string Text(const std::string& column, const std::string& table) {
    return Raw("SELECT CAST(" + column + " AS TEXT) FROM " + table);
  }
};
EMBER_ON_EVERY_BACKEND(CounterSaturation);

TEST_P(CounterSaturation, WorkloadCountersStopAtTheLargestInteger) {
  RawExec("UPDATE workloads SET hits = " + kNearMax + ", misses = " + kNearMax +
          ", unfused_runs = " + kNearMax);
  const Status s = repo_->AddCounters(workload_, {.hits = 5, .misses = 4, .unfused_runs = 3});
  ASSERT_TRUE(s.ok()) << s.ToString();
  const WorkloadRow row = Workload();
  EXPECT_EQ(row.hits, kMax);
  EXPECT_EQ(row.misses, kMax);
  EXPECT_EQ(row.unfused_runs, kMax);
  // Stored as an integer, not a REAL that reads back as something else.
  EXPECT_EQ(Text("hits", "workloads"), std::to_string(kMax));
}

TEST_P(CounterSaturation, ExplorationsStopAtTheLargestInteger) {
  RawExec("UPDATE workloads SET explorations = " + kNearMax);
  int64_t count = 0;
  Status s = repo_->AddExplorations(workload_, 7, &count);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(count, kMax);
  bool granted = false;
  s = repo_->TryReserveExploration(workload_, std::nullopt, &granted, &count);
  ASSERT_TRUE(s.ok()) << s.ToString();  // unlimited: granted, and the count stays at the limit
  EXPECT_TRUE(granted);
  EXPECT_EQ(count, kMax);
  EXPECT_EQ(Workload().explorations, kMax);
}

TEST_P(CounterSaturation, PlanHitsAndPlanUseStopAtTheLargestInteger) {
  InsertResult plan;
  ASSERT_TRUE(repo_->InsertPlan(env_, SamplePlan(1), &plan).ok());
  const std::pair<PlanRowId, int64_t> one_hit{plan.plan_id, 1};
  ASSERT_TRUE(repo_->RecordHitCounts(std::span(&one_hit, 1), workload_).ok());
  RawExec("UPDATE plans SET hits = " + kNearMax);
  RawExec("UPDATE plan_usage SET hits = " + kNearMax);
  const std::pair<PlanRowId, int64_t> hits{plan.plan_id, 9};
  const Status s = repo_->RecordHitCounts(std::span(&hits, 1), workload_);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Text("hits", "plans"), std::to_string(kMax));
  EXPECT_EQ(Text("hits", "plan_usage"), std::to_string(kMax));
}

TEST_P(CounterSaturation, MissCountsStopAtTheLargestIntegerAndReadBackPositive) {
  WorkloadMiss miss{.pattern = 0xabc,
                    .cause = "shape",
                    .op_position = 0,
                    .op_name = "Exp",
                    .nearest_plan = "",
                    .detail = "input 0 differs",
                    .count = 1,
                    .values = {3}};
  ASSERT_TRUE(repo_->RecordMisses(workload_, std::span(&miss, 1)).ok());
  RawExec("UPDATE workload_misses SET count = " + kNearMax);
  miss.count = 5;
  const Status s = repo_->RecordMisses(workload_, std::span(&miss, 1));
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::vector<WorkloadMiss> listed;
  ASSERT_TRUE(repo_->ListMisses(workload_, &listed).ok());
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].count, kMax);
  EXPECT_EQ(Text("count", "workload_misses"), std::to_string(kMax));
}

// What PlanWriter::Check once treated as fatal: a counter at its limit never stops plan
// storage, for this process or any other of the workload.
TEST_P(CounterSaturation, AWriterBesideCountersAtTheLimitKeepsStoringPlans) {
  RawExec("UPDATE workloads SET hits = " + kNearMax + ", misses = " + kNearMax +
          ", unfused_runs = " + kNearMax + ", explorations = " + kNearMax);
  ScopedLogCapture capture(LogLevel::kDisabled);
  PlanWriter writer(Open(), env_, workload_);
  for (PlanId id = 0; id < 3; ++id) {
    writer.Publish(id, {SamplePlan(id + 1), {OnSync()}, {}});
    for (int i = 0; i < 4; ++i) writer.Hit(id);
    writer.UnfusedRun();
    writer.Exploration();
    writer.Flush();
  }
  EXPECT_FALSE(writer.failed());
  EXPECT_EQ(writer.plans_published(), 3u);
  EXPECT_THAT(capture.messages(), testing::Each(Not(HasSubstr("not stored"))));
  const WorkloadRow row = Workload();
  EXPECT_EQ(row.hits, kMax);
  EXPECT_EQ(row.misses, kMax);
  EXPECT_EQ(row.explorations, kMax);
}

// `ember-plans stats` sums the counters of every row: two workloads at the limit sum to the
// limit, not to an error.
TEST_P(CounterSaturation, SummedCountersStopAtTheLargestInteger) {
  WorkloadRow other;
  ASSERT_TRUE(repo_->GetOrCreateWorkload(env_, "train", &other).ok());
  InsertResult a, b;
  ASSERT_TRUE(repo_->InsertPlan(env_, SamplePlan(1), &a).ok());
  ASSERT_TRUE(repo_->InsertPlan(env_, SamplePlan(2), &b).ok());
  RawExec("UPDATE workloads SET hits = " + kNearMax + ", misses = " + kNearMax +
          ", unfused_runs = " + kNearMax + ", explorations = " + kNearMax);
  RawExec("UPDATE plans SET hits = " + kNearMax);
  DatabaseSummary summary;
  const Status s = ReadSummary(repo_->sql(), repo_->schema_version(), &summary);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(summary.plan_hits, kMax);
  EXPECT_EQ(summary.workload_hits, kMax);
  EXPECT_EQ(summary.workload_misses, kMax);
  EXPECT_EQ(summary.unfused_runs, kMax);
  EXPECT_EQ(summary.explorations, kMax);
  EXPECT_EQ(summary.plans, 2);
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

using sqlite_test::RawDb;

// A file an older binary let overflow holds a REAL in an INTEGER column: it reads back as the
// largest integer (not negative), and the next addition stores an integer again.
TEST(SqliteCounterSaturation, ACounterAnOlderBinaryTurnedRealReadsAsTheLimit) {
  sqlite_test::TempDir dir;
  const std::string path = dir.File("plans.db");
  auto repo = test::OpenRepository(path);
  EnvironmentRowId env = 0;
  ASSERT_TRUE(repo->EnsureEnvironment(test::SampleEnvironment(), &env).ok());
  WorkloadRow row;
  ASSERT_TRUE(repo->GetOrCreateWorkload(env, "serve", &row).ok());
  RawDb raw(path);
  raw.Exec("UPDATE workloads SET hits = 9223372036854775807.0 + 4096, misses = 1e19");
  ASSERT_TRUE(repo->GetWorkload(row.id, &row).ok());
  EXPECT_EQ(row.hits, kMax);
  EXPECT_EQ(row.misses, kMax);
  ASSERT_TRUE(repo->AddCounters(row.id, {.hits = 1, .misses = 1}).ok());
  EXPECT_EQ(raw.Text("SELECT typeof(hits) || ' ' || typeof(misses) FROM workloads"),
            "integer integer");
  ASSERT_TRUE(repo->GetWorkload(row.id, &row).ok());
  EXPECT_EQ(row.hits, kMax);
}

}  // namespace
}  // namespace ember

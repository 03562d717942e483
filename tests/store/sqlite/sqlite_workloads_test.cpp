// The exploration ledger: per-workload counts and caps persist across reopen (a budget spent
// yesterday is spent today), updates are atomic, counters only grow.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using test::SampleEnvironment;
using testing::HasSubstr;

class SqliteWorkloads : public test::RepositoryFixture {
 protected:
  WorkloadRow Workload(std::string_view name) {
    WorkloadRow row;
    const Status s = repo_->GetOrCreateWorkload(env_, name, &row);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return row;
  }
};

TEST_F(SqliteWorkloads, NewWorkloadStartsEmptyAndUncapped) {
  const WorkloadRow row = Workload("train");
  EXPECT_GT(row.id, 0);
  EXPECT_EQ(row.environment_id, env_);
  EXPECT_EQ(row.name, "train");
  EXPECT_EQ(row.explorations, 0);
  EXPECT_EQ(row.max_explorations, std::nullopt);
  EXPECT_EQ(row.hits, 0);
  EXPECT_EQ(row.misses, 0);
  EXPECT_EQ(row.unfused_runs, 0);
  EXPECT_GT(row.last_seen, 0);
  EXPECT_EQ(Workload("train").id, row.id);
  EXPECT_NE(Workload("eval").id, row.id);
}

TEST_F(SqliteWorkloads, SameNameInAnotherEnvironmentIsAnotherWorkload) {
  EnvironmentRowId other = 0;
  ASSERT_TRUE(repo_->EnsureEnvironment(SampleEnvironment("Other"), &other).ok());
  WorkloadRow there;
  ASSERT_TRUE(repo_->GetOrCreateWorkload(other, "train", &there).ok());
  EXPECT_NE(there.id, Workload("train").id);
}

TEST_F(SqliteWorkloads, AddExplorationsReturnsThePersistedCount) {
  const WorkloadRowId id = Workload("train").id;
  int64_t count = 0;
  ASSERT_TRUE(repo_->AddExplorations(id, 2, &count).ok());
  EXPECT_EQ(count, 2);
  ASSERT_TRUE(repo_->AddExplorations(id, 3, &count).ok());
  EXPECT_EQ(count, 5);
  Reopen();
  EXPECT_EQ(Workload("train").explorations, 5);
  EXPECT_EQ(repo_->AddExplorations(id, -1, &count).code(), Status::Code::kInvalidArgument);
}

TEST_F(SqliteWorkloads, BudgetSpentYesterdayIsSpentToday) {
  const WorkloadRowId id = Workload("train").id;
  ASSERT_TRUE(repo_->SetCap(id, 2).ok());
  bool granted = false;
  int64_t count = 0;
  ASSERT_TRUE(repo_->TryReserveExploration(id, std::nullopt, &granted, &count).ok());
  EXPECT_TRUE(granted);
  ASSERT_TRUE(repo_->TryReserveExploration(id, std::nullopt, &granted, &count).ok());
  EXPECT_TRUE(granted);
  EXPECT_EQ(count, 2);

  Reopen();  // "Tomorrow".
  const WorkloadRow today = Workload("train");
  EXPECT_EQ(today.explorations, 2);
  EXPECT_EQ(today.max_explorations, 2);
  ASSERT_TRUE(repo_->TryReserveExploration(id, std::nullopt, &granted, &count).ok());
  EXPECT_FALSE(granted);
  EXPECT_EQ(count, 2);

  ASSERT_TRUE(repo_->SetCap(id, std::nullopt).ok());
  ASSERT_TRUE(repo_->TryReserveExploration(id, std::nullopt, &granted, &count).ok());
  EXPECT_TRUE(granted);
  EXPECT_EQ(count, 3);
  ASSERT_TRUE(repo_->ResetExplorations(id).ok());
  EXPECT_EQ(Workload("train").explorations, 0);
}

TEST_F(SqliteWorkloads, ZeroCapNeverGrants) {
  const WorkloadRowId id = Workload("train").id;
  ASSERT_TRUE(repo_->SetCap(id, 0).ok());
  bool granted = true;
  int64_t count = -1;
  ASSERT_TRUE(repo_->TryReserveExploration(id, std::nullopt, &granted, &count).ok());
  EXPECT_FALSE(granted);
  EXPECT_EQ(count, 0);
  EXPECT_EQ(repo_->SetCap(id, -1).code(), Status::Code::kInvalidArgument);
}

TEST_F(SqliteWorkloads, CountersAccumulate) {
  const WorkloadRowId id = Workload("train").id;
  ASSERT_TRUE(repo_->AddCounters(id, {.hits = 5, .misses = 2, .unfused_runs = 1}).ok());
  ASSERT_TRUE(repo_->AddCounters(id, {.hits = 1, .misses = 0, .unfused_runs = 3}).ok());
  Reopen();
  const WorkloadRow row = Workload("train");
  EXPECT_EQ(row.hits, 6);
  EXPECT_EQ(row.misses, 2);
  EXPECT_EQ(row.unfused_runs, 4);
  EXPECT_EQ(repo_->AddCounters(id, {.hits = -1}).code(), Status::Code::kInvalidArgument);
}

TEST_F(SqliteWorkloads, UnknownWorkloadIsNotFound) {
  int64_t count = 0;
  bool granted = false;
  WorkloadRow row;
  EXPECT_EQ(repo_->AddExplorations(999, 1, &count).code(), Status::Code::kNotFound);
  EXPECT_EQ(repo_->TryReserveExploration(999, std::nullopt, &granted, &count).code(),
            Status::Code::kNotFound);
  EXPECT_EQ(repo_->SetCap(999, 1).code(), Status::Code::kNotFound);
  EXPECT_EQ(repo_->ResetExplorations(999).code(), Status::Code::kNotFound);
  EXPECT_EQ(repo_->AddCounters(999, {.hits = 1}).code(), Status::Code::kNotFound);
  const Status s = repo_->GetWorkload(999, &row);
  EXPECT_EQ(s.code(), Status::Code::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("no workload 999"));
}

// The reselect after the upsert must find the row; one the file's own trigger deletes is
// corruption, named (SqlPlanRepository::GetOrCreateWorkload).
TEST_F(SqliteWorkloads, AWorkloadThatVanishesAfterItsInsertIsCorruption) {
  sqlite_test::RawDb(path_).Exec(
      "CREATE TRIGGER vanish AFTER INSERT ON workloads BEGIN "
      "DELETE FROM workloads WHERE id = NEW.id; END");
  WorkloadRow row;
  const Status s = repo_->GetOrCreateWorkload(env_, "train", &row);
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_THAT(s.message(), HasSubstr(": workload 'train' vanished after its insert"));
}

}  // namespace
}  // namespace ember

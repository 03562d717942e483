// The fault matrix's SQLite rows that unwritable_database_test.cpp does not cover (issue 20): a
// lock another connection holds past the busy timeout, the write-ahead log deleted or replaced
// while in use, and the -shm index overwritten with garbage. For each: one message per problem
// (ember::Warn, which a ScopedLogCapture receives), nothing committed is lost, and the next
// open works as usual. docs/RELIABILITY.md lists the whole matrix.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/log.h"
#include "store/persistent_plans.h"
#include "store/repository/plan_writer.h"
#include "tests/store/one_op_plans.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::RawDb;
using sqlite_test::SamplePlan;
using sqlite_test::TempDir;
using test::FirstOp;
using test::OpenRepository;
using test::OptionsFor;
using test::PlanStartingWith;
using test::SampleEnvironment;
using testing::AllOf;
using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;

const std::vector<OpKind> kKinds = {OpKind::kExp, OpKind::kTanh, OpKind::kSqrt,
                                    OpKind::kSin, OpKind::kNeg,  OpKind::kAbs};
const std::span<const OpKind> kFirstHalf(kKinds.data(), 3);
const std::span<const OpKind> kSecondHalf(kKinds.data() + 3, 3);

std::unique_ptr<PersistentPlans> OpenPlans(const std::string& path) {
  std::unique_ptr<PersistentPlans> plans;
  const Status s = PersistentPlans::Open(
      {.path = path, .environment = SampleEnvironment(), .workload = "serve"}, &plans);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return plans;
}

void Publish(PersistentPlans& plans, std::span<const OpKind> kinds, PlanId first_id) {
  for (OpKind kind : kinds) plans.OnPlanAdded(first_id++, PlanStartingWith(kind), 1.0);
  plans.Flush();
}

// How many of `kinds` have their stored plan handed over.
size_t LoadPlans(PersistentPlans& plans, std::span<const OpKind> kinds) {
  return test::LoadOneOpPlans(plans, kinds);
}

// The plans a copy of the database file alone holds: what a SIGKILL now would leave (the log
// and index are not copied).
int64_t PlansInTheFileAlone(const TempDir& dir, const std::string& path) {
  const std::string copy = dir.File("copy.db");
  std::filesystem::copy_file(path, copy, std::filesystem::copy_options::overwrite_existing);
  RawDb raw(copy);
  return raw.Int("SELECT COUNT(*) FROM plans");
}

// Busy beyond the timeout: the writer holds what it could not write and writes it once the
// lock ends, instead of storing nothing more for the rest of the run.
TEST(SqliteFaults, ALockHeldPastTheBusyTimeoutIsSaidOnceAndThePlansAreWrittenWhenItEnds) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  EnvironmentRowId environment = 0;
  WorkloadRowId workload = 0;
  {
    std::unique_ptr<SqlitePlanRepository> setup = OpenRepository(path);
    ASSERT_TRUE(setup->EnsureEnvironment(SampleEnvironment(), &environment).ok());
    WorkloadRow row;
    ASSERT_TRUE(setup->GetOrCreateWorkload(environment, "serve", &row).ok());
    workload = row.id;
  }
  PlanDbOptions options = OptionsFor(path);
  options.busy_timeout = std::chrono::milliseconds(20);
  std::unique_ptr<SqlitePlanRepository> repo;
  ASSERT_TRUE(SqlitePlanRepository::Open(options, &repo).ok());

  ScopedLogCapture capture(LogLevel::kDisabled);
  PlanWriter writer(std::move(repo), environment, workload);
  RawDb locker(path);
  locker.Exec("BEGIN IMMEDIATE");  // the write lock, as a long transaction of another program
  for (PlanId id = 0; id < 3; ++id) {
    PublishItem item;
    item.plan = SamplePlan(id + 1);
    item.triggers = {sqlite_test::OnSync()};
    writer.Publish(id, std::move(item));
  }
  writer.Flush();  // returns: held writes count as applied, a sync never waits on the lock
  EXPECT_EQ(writer.plans_published(), 0u);
  EXPECT_GT(writer.held(), 0u);
  EXPECT_FALSE(writer.failed());
  locker.Exec("COMMIT");

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (writer.plans_published() < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(writer.plans_published(), 3u);
  EXPECT_EQ(writer.held(), 0u);
  writer.Flush();
  EXPECT_THAT(capture.messages(),
              ElementsAre(AllOf(HasSubstr(path), HasSubstr("out of reach"), HasSubstr("locked"),
                                HasSubstr("held in memory")),
                          AllOf(HasSubstr(path), HasSubstr("reachable again"))));
  RawDb raw(path);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM plans"), 3);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM triggers"), 3);
}

// The -wal deleted under a running process (a clean-up script, a user removing "junk"): what
// was committed is copied into the database file at once, the process says so once and stores
// nothing more through a log nobody else sees; the next run starts a new log and stores again.
TEST(SqliteFaults, AWriteAheadLogDeletedInUseIsSaidOnceAndWhatWasCommittedIsInTheFile) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  {
    ScopedLogCapture capture(LogLevel::kDisabled);
    std::unique_ptr<PersistentPlans> plans = OpenPlans(path);
    ASSERT_NE(plans, nullptr);
    Publish(*plans, kFirstHalf, 0);
    ASSERT_EQ(plans->counters().plans_published, 3u);
    ASSERT_TRUE(std::filesystem::exists(path + "-wal"));
    ASSERT_EQ(unlink((path + "-wal").c_str()), 0);
    Publish(*plans, kSecondHalf, 3);
    EXPECT_EQ(plans->counters().plans_published, 3u);
    EXPECT_EQ(PlansInTheFileAlone(dir, path), 3);  // a SIGKILL now loses nothing committed
    // Reads stop too: the log they would read through is not the path's any more.
    const OpKind unseen[] = {OpKind::kLog};
    EXPECT_EQ(LoadPlans(*plans, unseen), 0u);
    plans->Close();
    const std::vector<std::string> said = capture.messages();
    ASSERT_EQ(said.size(), 2u) << testing::PrintToString(said);
    EXPECT_THAT(said[0], AllOf(HasSubstr(path + "-wal"), HasSubstr("deleted"),
                               HasSubstr("plans committed before are kept")));
    EXPECT_THAT(said[1], AllOf(HasSubstr("reading plans failed"), HasSubstr(path + "-wal")));
  }
  ScopedLogCapture capture(LogLevel::kDisabled);
  std::unique_ptr<PersistentPlans> plans = OpenPlans(path);
  ASSERT_NE(plans, nullptr);
  EXPECT_EQ(LoadPlans(*plans, kFirstHalf), 3u);
  Publish(*plans, kSecondHalf, 3);
  EXPECT_EQ(plans->counters().plans_published, 3u);
  plans->Close();
  EXPECT_THAT(capture.messages(), IsEmpty());
  EXPECT_EQ(PlansInTheFileAlone(dir, path), 6);
}

TEST(SqliteFaults, AWriteAheadLogReplacedInUseIsSaidOnce) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  ScopedLogCapture capture(LogLevel::kDisabled);
  std::unique_ptr<PersistentPlans> plans = OpenPlans(path);
  ASSERT_NE(plans, nullptr);
  Publish(*plans, kFirstHalf, 0);
  const std::string other = dir.File("other-wal");
  std::filesystem::copy_file(path + "-wal", other);
  ASSERT_EQ(rename(other.c_str(), (path + "-wal").c_str()), 0);
  Publish(*plans, kSecondHalf, 3);
  plans->Close();
  EXPECT_EQ(plans->counters().plans_published, 3u);
  EXPECT_THAT(capture.messages(),
              ElementsAre(AllOf(HasSubstr(path + "-wal"), HasSubstr("replaced"))));
  EXPECT_EQ(PlansInTheFileAlone(dir, path), 3);
}

// Garbage over the whole -shm index (a sibling's stray write, a damaged tmpfs page): SQLite
// sees that the index's header checksums fail and rebuilds it from the log; every plan stays
// readable by this connection and a new one, and nothing is said.
TEST(SqliteFaults, GarbageOverTheShmIndexIsRebuiltAndNoPlanIsLost) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  ScopedLogCapture capture(LogLevel::kDisabled);
  std::unique_ptr<PersistentPlans> plans = OpenPlans(path);
  ASSERT_NE(plans, nullptr);
  Publish(*plans, kFirstHalf, 0);
  struct stat st {};
  ASSERT_EQ(stat((path + "-shm").c_str(), &st), 0);
  const int fd = open((path + "-shm").c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  const std::vector<char> garbage(static_cast<size_t>(st.st_size), static_cast<char>(0xa5));
  ASSERT_EQ(pwrite(fd, garbage.data(), garbage.size(), 0), static_cast<ssize_t>(garbage.size()));
  close(fd);
  Publish(*plans, kSecondHalf, 3);
  EXPECT_EQ(plans->counters().plans_published, 6u);
  std::unique_ptr<PersistentPlans> sibling = OpenPlans(path);
  ASSERT_NE(sibling, nullptr);
  EXPECT_EQ(LoadPlans(*sibling, kKinds), kKinds.size());
  sibling->Close();
  plans->Close();
  EXPECT_THAT(capture.messages(), IsEmpty());
  RawDb raw(path);
  EXPECT_EQ(raw.Text("PRAGMA integrity_check"), "ok");
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM plans"), 6);
}

}  // namespace
}  // namespace ember

// A plan database this process cannot write (issue 13, parts 4, 5 and 7): a file marked
// immutable, a read-only mount, a directory or file without write permission, a full
// filesystem — at start or while publishing — and a file deleted, moved or replaced while in
// use. PersistentPlans serves every plan the file has, keeps the exploration budget in memory,
// and says once on stderr (ember::Warn, which a ScopedLogCapture receives) what is not stored.
// Mounts and user switches happen in forked children (RunInForkedChild), mounts in the child's
// own mount namespace (RunInMountNamespace), so nothing outlives the test.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/core/log.h"
#include "store/persistent_plans.h"
#include "store/sqlite/plan_database.h"
#include "tests/store/one_op_plans.h"
#include "tests/store/shm_test_util.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::BindReadOnly;
using sqlite_test::FileSnapshot;
using sqlite_test::FillFilesystem;
using sqlite_test::HasCompanions;
using sqlite_test::ImmutableFile;
using sqlite_test::MountTmpfs;
using sqlite_test::RawDb;
using sqlite_test::RunInMountNamespace;
using sqlite_test::TempDir;
using test::FirstOp;
using test::OptionsFor;
using test::PlanStartingWith;
using test::RunInForkedChild;
using test::SampleEnvironment;
using testing::AllOf;
using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;

// What PersistentPlans says, once, about a database it cannot write.
constexpr char kNothingStored[] = "nothing new can be stored";
constexpr size_t kSmallFilesystem = size_t{1} << 20;

// One plan per kind, each the only plan of its first op (a one-op unfused plan).
const std::vector<OpKind> kKinds = {OpKind::kExp, OpKind::kTanh, OpKind::kSqrt,
                                    OpKind::kSin, OpKind::kNeg,  OpKind::kAbs};

// Workload "serve" with a budget of 3 explorations ([fusion.search] max_explorations).
PersistentPlansOptions OptionsAt(const std::string& path) {
  return {
      .path = path, .environment = SampleEnvironment(), .workload = "serve", .max_explorations = 3};
}

std::unique_ptr<PersistentPlans> OpenPlans(const std::string& path) {
  std::unique_ptr<PersistentPlans> plans;
  const Status s = PersistentPlans::Open(OptionsAt(path), &plans);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return plans;
}

// Publishes the plans of `kinds`, numbered from `first_id`, and waits until the writer is done.
void Publish(PersistentPlans& plans, std::span<const OpKind> kinds, PlanId first_id) {
  for (OpKind kind : kinds) plans.OnPlanAdded(first_id++, PlanStartingWith(kind), 1.0);
  plans.Flush();
}

// A database at `path` with every plan of kKinds and one exploration of "serve" spent, as the
// engine leaves it at exit: one file, no -wal or -shm.
void MakeWarmDatabase(const std::string& path) {
  std::unique_ptr<PersistentPlans> plans = OpenPlans(path);
  ASSERT_NE(plans, nullptr);
  Publish(*plans, kKinds, 0);
  plans->OnExploration();
  plans->Close();
  EXPECT_EQ(plans->counters().plans_published, kKinds.size());
  EXPECT_FALSE(HasCompanions(path));
}

// A new directory `dir` with a warm database (MakeWarmDatabase) in it; returns its path.
std::string MakeWarmDatabaseIn(const std::string& dir) {
  std::filesystem::create_directory(dir);
  const std::string path = dir + "/plans.db";
  MakeWarmDatabase(path);
  return path;
}

// How many plans `plans` hands over for the first ops of `kinds`; each must be the one stored.
size_t LoadPlans(PersistentPlans& plans, std::span<const OpKind> kinds = kKinds) {
  return test::LoadOneOpPlans(plans, kinds);
}

// Explores while the budget allows (at most 10 times); returns how many times it did.
int SpendBudget(PersistentPlans& plans) {
  int explored = 0;
  for (; explored < 10 && plans.ExplorationAllowed(); ++explored) plans.OnExploration();
  return explored;
}

// A warm database opened where it cannot be written: every plan is served, the budget left (3,
// one spent in the file) is spent in memory, and a plan found here is not stored. The caller
// checks what was said.
void ExpectServedReadOnly(const std::string& path) {
  std::unique_ptr<PersistentPlans> plans = OpenPlans(path);
  ASSERT_NE(plans, nullptr);
  EXPECT_EQ(LoadPlans(*plans), kKinds.size());
  EXPECT_EQ(SpendBudget(*plans), 2);
  plans->OnPlanAdded(kKinds.size(), PlanStartingWith(OpKind::kLog), 1.0);
  plans->Flush();
  EXPECT_EQ(plans->counters().plans_loaded, kKinds.size());
  EXPECT_EQ(plans->counters().plans_published, 0u);
  plans->Close();
}

// PlanDatabase::Open on `path`: read-only, for a reason that contains `reason`.
void ExpectReadOnlyBecause(const std::string& path, const std::string& reason) {
  std::unique_ptr<PlanDatabase> db;
  const Status s = PlanDatabase::Open(OptionsFor(path), &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_FALSE(db->writable());
  EXPECT_THAT(db->read_only_reason(), HasSubstr(reason));
}

TEST(UnwritableDatabase, ImmutableFileServesEveryPlanAndSaysSoOnce) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  MakeWarmDatabase(path);
  ImmutableFile immutable(path);
  if (!immutable.why_not().empty()) GTEST_SKIP() << immutable.why_not();
  ScopedLogCapture capture(LogLevel::kDisabled);
  ExpectReadOnlyBecause(path, "marked immutable");
  // Twice: the second open in this process serves as much, finds the budget the file has (the
  // first open's explorations were counted in memory only), and says nothing more.
  ExpectServedReadOnly(path);
  ExpectServedReadOnly(path);
  EXPECT_THAT(capture.messages(), ElementsAre(AllOf(HasSubstr(kNothingStored), HasSubstr(path),
                                                    HasSubstr("marked immutable"))));
  EXPECT_FALSE(HasCompanions(path));  // the reads' -wal and -shm are removed
}

// The database's directory mounted read-only, in WAL mode (read through SQLite's immutable=1:
// no -shm can be made there) and with a rollback journal.
class UnwritableDatabaseMount : public testing::TestWithParam<const char*> {};

TEST_P(UnwritableDatabaseMount, ReadOnlyMountServesEveryPlanAndSaysSoOnce) {
  TempDir dir;
  const std::string volume = dir.File("volume");
  const std::string path = MakeWarmDatabaseIn(volume);
  {
    RawDb raw(path);
    EXPECT_EQ(raw.Text(std::string("PRAGMA journal_mode = ") + GetParam()), GetParam());
  }
  ASSERT_FALSE(HasCompanions(path));
  const std::string skipped = RunInMountNamespace([&] {
    ASSERT_EQ(BindReadOnly(volume), "");
    ScopedLogCapture capture(LogLevel::kDisabled);
    ExpectReadOnlyBecause(path, "read-only filesystem");
    ExpectServedReadOnly(path);
    EXPECT_THAT(capture.messages(), ElementsAre(AllOf(HasSubstr(kNothingStored), HasSubstr(path),
                                                      HasSubstr("read-only filesystem"))));
  });
  if (!skipped.empty()) GTEST_SKIP() << skipped;
}

INSTANTIATE_TEST_SUITE_P(JournalModes, UnwritableDatabaseMount, testing::Values("wal", "delete"),
                         [](const testing::TestParamInfo<const char*>& param) {
                           return std::string(param.param);
                         });

// A copy another user owns (test::kOtherUser), with `dir_mode` on its directory and `file_mode`
// on the file, opened as that user: read-only for a reason that contains `reason`.
struct Permissions {
  const char* name;
  mode_t dir_mode;
  mode_t file_mode;
  const char* reason;
};

class UnwritableDatabasePermissions : public testing::TestWithParam<Permissions> {};

TEST_P(UnwritableDatabasePermissions, NoWritePermissionServesEveryPlanAndSaysSoOnce) {
  TempDir dir;
  ASSERT_EQ(chmod(dir.path().c_str(), 0711), 0);  // the other user may pass through
  const std::string theirs = dir.File("theirs");
  const std::string path = MakeWarmDatabaseIn(theirs);
  for (const std::string& file : {theirs, path}) {
    ASSERT_EQ(chown(file.c_str(), test::kOtherUser, test::kOtherUser), 0) << file;
  }
  ASSERT_EQ(chmod(path.c_str(), GetParam().file_mode), 0);
  ASSERT_EQ(chmod(theirs.c_str(), GetParam().dir_mode), 0);
  const std::string skipped = RunInForkedChild([&] {
    if (!test::BecomeOtherUser()) GTEST_SKIP() << "cannot switch to uid " << test::kOtherUser;
    ScopedLogCapture capture(LogLevel::kDisabled);
    ExpectReadOnlyBecause(path, GetParam().reason);
    ExpectServedReadOnly(path);
    EXPECT_THAT(capture.messages(), ElementsAre(AllOf(HasSubstr(kNothingStored), HasSubstr(path),
                                                      HasSubstr(GetParam().reason))));
    // Nothing is left behind that would keep the database read-only once the owner makes it
    // writable again (SQLite gives the companions the file's mode).
    EXPECT_FALSE(HasCompanions(path));
  });
  if (!skipped.empty()) GTEST_SKIP() << skipped;
}

INSTANTIATE_TEST_SUITE_P(Modes, UnwritableDatabasePermissions,
                         testing::Values(Permissions{.name = "ReadOnlyDirectory",
                                                     .dir_mode = 0500,
                                                     .file_mode = 0600,
                                                     .reason = "its directory"},
                                         Permissions{.name = "ReadOnlyFile",
                                                     .dir_mode = 0700,
                                                     .file_mode = 0400,
                                                     .reason = "no write permission on it"}),
                         [](const testing::TestParamInfo<Permissions>& param) {
                           return std::string(param.param.name);
                         });

// Disk full. Each case runs in a child with a small tmpfs of its own at `fs`.
class DiskFull : public testing::Test {
 protected:
  DiskFull() { std::filesystem::create_directory(fs_); }

  // Runs `body` in a child where `fs_` is a new, empty tmpfs of kSmallFilesystem bytes.
  void InSmallFilesystem(const std::function<void()>& body) {
    const std::string skipped = RunInMountNamespace([&] {
      ASSERT_EQ(MountTmpfs(fs_, kSmallFilesystem), "");
      body();
    });
    if (!skipped.empty()) GTEST_SKIP() << skipped;
  }

  // The warm database copied onto the small filesystem, as a user would put it there.
  void CopyWarmDatabase() {
    std::filesystem::copy_file(warm_, path_);
    ASSERT_EQ(chmod(path_.c_str(), 0600), 0);
  }

  TempDir dir_;
  std::string warm_ = dir_.File("warm.db");
  std::string fs_ = dir_.File("fs");
  std::string path_ = fs_ + "/plans.db";
};

TEST_F(DiskFull, FullFilesystemAtStartServesEveryPlanAndSaysSoOnce) {
  MakeWarmDatabase(warm_);
  InSmallFilesystem([&] {
    CopyWarmDatabase();
    FillFilesystem(fs_);  // not even a -shm fits
    ScopedLogCapture capture(LogLevel::kDisabled);
    ExpectServedReadOnly(path_);
    EXPECT_THAT(capture.messages(),
                ElementsAre(AllOf(HasSubstr(kNothingStored), HasSubstr(path_))));
    EXPECT_FALSE(HasCompanions(path_));
  });
}

TEST_F(DiskFull, DiskFillingWhilePublishingIsSaidOnceAndCommittedPlansStay) {
  const std::span<const OpKind> before(kKinds.data(), 3);
  const std::span<const OpKind> after(kKinds.data() + 3, kKinds.size() - 3);
  InSmallFilesystem([&] {
    {
      ScopedLogCapture capture(LogLevel::kDisabled);
      std::unique_ptr<PersistentPlans> plans = OpenPlans(path_);
      ASSERT_NE(plans, nullptr);
      Publish(*plans, before, 0);
      EXPECT_EQ(plans->counters().plans_published, before.size());
      FillFilesystem(fs_);
      Publish(*plans, after, before.size());  // fails: said once
      plans->OnHit(0);
      plans->OnExploration();
      const OpKind another[] = {OpKind::kLog};
      Publish(*plans, another, kKinds.size());
      plans->Close();
      EXPECT_EQ(plans->counters().plans_published, before.size());
      EXPECT_THAT(capture.messages(),
                  ElementsAre(AllOf(HasSubstr(path_), HasSubstr("publishing plans failed"),
                                    HasSubstr("plans committed before are kept"))));
    }
    // The next process, on the still full disk, serves what was committed and says that
    // nothing new can be stored.
    {
      ScopedLogCapture capture(LogLevel::kDisabled);
      std::unique_ptr<PersistentPlans> plans = OpenPlans(path_);
      ASSERT_NE(plans, nullptr);
      EXPECT_EQ(LoadPlans(*plans, before), before.size());
      plans->Close();
      EXPECT_THAT(capture.messages(), ElementsAre(HasSubstr("nothing new can be stored")));
    }
    // Once there is room again, the next process reads what was committed and stores again.
    std::filesystem::remove(fs_ + "/filler");
    ScopedLogCapture capture(LogLevel::kDisabled);
    std::unique_ptr<PersistentPlans> plans = OpenPlans(path_);
    ASSERT_NE(plans, nullptr);
    EXPECT_EQ(LoadPlans(*plans, before), before.size());
    EXPECT_EQ(LoadPlans(*plans, after), 0u);
    plans->Close();
    EXPECT_THAT(capture.messages(), IsEmpty());
  });
}

// The database file deleted, moved or replaced while the process uses it: the writer says so
// once, naming the file, and stops; the program goes on with its plans in memory.
class VanishedDatabase : public testing::Test {
 protected:
  // Opens the database and publishes the first half of kKinds.
  void SetUp() override {
    plans_ = OpenPlans(path_);
    ASSERT_NE(plans_, nullptr);
    Publish(*plans_, first_half_, 0);
    ASSERT_EQ(plans_->counters().plans_published, first_half_.size());
  }

  // Publishes the second half, hits a plan and explores; nothing more reaches a file. Returns
  // what was said.
  std::vector<std::string> PublishTheRest() {
    Publish(*plans_, second_half_, first_half_.size());
    plans_->OnHit(0);
    plans_->OnExploration();
    plans_->Flush();
    EXPECT_TRUE(plans_->ExplorationAllowed());  // in memory: 1 of 3
    plans_->Close();
    EXPECT_EQ(plans_->counters().plans_published, first_half_.size());
    return capture_.messages();
  }

  TempDir dir_;
  std::string path_ = dir_.File("plans.db");
  ScopedLogCapture capture_{LogLevel::kDisabled};
  std::unique_ptr<PersistentPlans> plans_;
  std::span<const OpKind> first_half_{kKinds.data(), 3};
  std::span<const OpKind> second_half_{kKinds.data() + 3, kKinds.size() - 3};
};

TEST_F(VanishedDatabase, DeletedFileIsSaidOnceNamingIt) {
  ASSERT_EQ(unlink(path_.c_str()), 0);
  EXPECT_THAT(PublishTheRest(), ElementsAre(AllOf(HasSubstr(path_), HasSubstr("deleted or moved"),
                                                  HasSubstr("not stored"))));
}

TEST_F(VanishedDatabase, MovedFileIsSaidOnceNamingIt) {
  ASSERT_EQ(rename(path_.c_str(), dir_.File("moved.db").c_str()), 0);
  EXPECT_THAT(PublishTheRest(),
              ElementsAre(AllOf(HasSubstr(path_), HasSubstr("deleted or moved"))));
}

TEST_F(VanishedDatabase, ReplacedFileIsSaidOnceAndLeftUntouched) {
  // Another database put at the path, as a restored backup would be.
  const std::string restored = dir_.File("restored.db");
  {
    RawDb raw(restored);
    raw.Exec("CREATE TABLE t(x); INSERT INTO t VALUES (42)");
  }
  ASSERT_EQ(rename(restored.c_str(), path_.c_str()), 0);
  const FileSnapshot before = FileSnapshot::Of(path_);
  EXPECT_THAT(PublishTheRest(), ElementsAre(AllOf(HasSubstr(path_), HasSubstr("replaced"))));
  plans_.reset();
  EXPECT_EQ(FileSnapshot::Of(path_), before);  // this process wrote nothing into it
}

}  // namespace
}  // namespace ember

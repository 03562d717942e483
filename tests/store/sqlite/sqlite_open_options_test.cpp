// Open options and Note [Plan database trust] / Note [Journal mode]: new files are 0600 in 0700
// directories whatever the umask; files and directories other users could write are refused
// (unless allowed); a network filesystem gets a rollback journal instead of WAL, with one log
// line, and the store still works.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "engine/core/log.h"
#include "store/sqlite/file_trust.h"
#include "store/sqlite/network_filesystem.h"
#include "store/sqlite/plan_database.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::ModeOf;
using sqlite_test::RawDb;
using sqlite_test::SamplePlan;
using sqlite_test::TempDir;
using test::OpenRepository;
using test::OptionsFor;
using test::SampleEnvironment;
using testing::HasSubstr;
using testing::SizeIs;

// Sets the process umask for the scope of the object.
class ScopedUmask {
 public:
  explicit ScopedUmask(mode_t mask) : previous_(umask(mask)) {}
  ~ScopedUmask() { umask(previous_); }

 private:
  mode_t previous_;
};

TEST(SqliteOpenOptions, NewDatabaseIs0600InA0700DirectoryWhateverTheUmask) {
  TempDir dir;
  const std::string path = dir.File("a/b/plans.db");
  {
    ScopedUmask open_umask(0);
    auto repo = OpenRepository(path);
    ASSERT_NE(repo, nullptr);
    EnvironmentRowId env = 0;
    ASSERT_TRUE(repo->EnsureEnvironment(SampleEnvironment(), &env).ok());
    EXPECT_EQ(ModeOf(path + "-wal"), 0600u);
    EXPECT_EQ(ModeOf(path + "-shm"), 0600u);
  }
  EXPECT_EQ(ModeOf(path), 0600u);
  EXPECT_EQ(ModeOf(dir.File("a")), 0700u);
  EXPECT_EQ(ModeOf(dir.File("a/b")), 0700u);
}

TEST(SqliteOpenOptions, RestrictiveUmaskStillGivesAWritableDatabase) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  ScopedUmask open_umask(0277);
  auto repo = OpenRepository(path);
  ASSERT_NE(repo, nullptr);
  EXPECT_EQ(ModeOf(path), 0600u);
  EnvironmentRowId env = 0;
  EXPECT_TRUE(repo->EnsureEnvironment(SampleEnvironment(), &env).ok());
}

TEST(SqliteOpenOptions, WorldWritableFileIsRefusedUnlessAllowed) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  OpenRepository(path);
  chmod(path.c_str(), 0666);
  std::unique_ptr<SqlitePlanRepository> repo;
  const Status s = SqlitePlanRepository::Open(OptionsFor(path), &repo);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr(path));
  EXPECT_THAT(s.message(), HasSubstr("writable by its group and by other users (mode 0666)"));
  EXPECT_THAT(s.message(), HasSubstr("compiled kernels"));
  EXPECT_THAT(s.message(), HasSubstr("chmod go-w"));
  EXPECT_EQ(ModeOf(path), 0666u);  // Refused, not "fixed" behind the user's back.

  PlanDbOptions allow = OptionsFor(path);
  allow.allow_shared_writable = true;
  EXPECT_TRUE(SqlitePlanRepository::Open(allow, &repo).ok());
}

TEST(SqliteOpenOptions, GroupWritableDirectoryIsRefused) {
  TempDir dir;
  const std::string shared = dir.File("shared");
  std::filesystem::create_directory(shared);
  chmod(shared.c_str(), 0770);
  std::unique_ptr<SqlitePlanRepository> repo;
  const Status s = SqlitePlanRepository::Open(OptionsFor(shared + "/plans.db"), &repo);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("writable by its group (mode 0770)"));
  EXPECT_FALSE(std::filesystem::exists(shared + "/plans.db"));  // Checked before creating.
}

// A shared scratch directory (sticky, writable by all, like /tmp): the fix is a directory of
// one's own, not chmod.
TEST(SqliteOpenOptions, AStickySharedDirectoryIsRefusedWithTheRightFix) {
  TempDir dir;
  const std::string scratch = dir.File("scratch");
  std::filesystem::create_directory(scratch);
  chmod(scratch.c_str(), 01777);
  std::unique_ptr<SqlitePlanRepository> repo;
  const Status s = SqlitePlanRepository::Open(OptionsFor(scratch + "/plans.db"), &repo);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("a shared directory writable by"));
  EXPECT_THAT(s.message(), HasSubstr("mkdir -m 700 " + scratch + "/mine"));
  EXPECT_THAT(s.message(), HasSubstr("[store] allow_shared_writable = true"));
  EXPECT_THAT(s.message(), testing::Not(HasSubstr("chmod go-w")));
}

TEST(SqliteOpenOptions, WorldWritableCompanionFileIsRefused) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  OpenRepository(path);
  sqlite_test::WriteBytes(path + "-journal", "");
  chmod((path + "-journal").c_str(), 0602);
  std::unique_ptr<SqlitePlanRepository> repo;
  const Status s = SqlitePlanRepository::Open(OptionsFor(path), &repo);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("plans.db-journal"));
}

TEST(SqliteOpenOptions, FileOwnedByAnotherUserIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a file away";
  TempDir dir;
  const std::string path = dir.File("plans.db");
  OpenRepository(path);
  ASSERT_EQ(chown(path.c_str(), 4242, 4242), 0);
  std::unique_ptr<SqlitePlanRepository> repo;
  const Status s = SqlitePlanRepository::Open(OptionsFor(path), &repo);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("owned by uid 4242"));
}

TEST(SqliteOpenOptions, MissingFileIsNotCreatedWhenReadOnlyOrCreateIsOff) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  PlanDbOptions options = OptionsFor(path);
  options.read_only = true;
  std::unique_ptr<SqlitePlanRepository> repo;
  EXPECT_EQ(SqlitePlanRepository::Open(options, &repo).code(), Status::Code::kNotFound);
  options.read_only = false;
  options.create = false;
  EXPECT_EQ(SqlitePlanRepository::Open(options, &repo).code(), Status::Code::kNotFound);
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(SqliteOpenOptions, DirectoryInPlaceOfTheFileIsRefused) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  std::filesystem::create_directory(path);
  chmod(path.c_str(), 0700);
  std::unique_ptr<SqlitePlanRepository> repo;
  const Status s = SqlitePlanRepository::Open(OptionsFor(path), &repo);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("not a regular file"));
}

TEST(SqliteOpenOptions, EmptyPathIsInvalid) {
  std::unique_ptr<SqlitePlanRepository> repo;
  EXPECT_EQ(SqlitePlanRepository::Open(PlanDbOptions{}, &repo).code(),
            Status::Code::kInvalidArgument);
}

TEST(SqliteOpenOptions, LocalFilesystemUsesWal) {
  TempDir dir;
  auto repo = OpenRepository(dir.File("plans.db"));
  ASSERT_NE(repo, nullptr);
  EXPECT_EQ(repo->database().journal_mode(), "wal");
  EXPECT_EQ(repo->database().network_filesystem(), "");
}

TEST(SqliteOpenOptions, NetworkFilesystemUsesARollbackJournalSaysSoOnceAndWorks) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  OpenRepository(path);  // Created locally, in WAL: the switch back is tested too.
  ScopedLogCapture log(LogLevel::kBasic);
  PlanDbOptions options = OptionsFor(path);
  options.network_filesystem = true;
  std::unique_ptr<SqlitePlanRepository> repo;
  const Status open = SqlitePlanRepository::Open(options, &repo);
  ASSERT_TRUE(open.ok()) << open.ToString();
  EXPECT_EQ(repo->database().journal_mode(), "delete");
  EXPECT_TRUE(repo->writable());
  ASSERT_THAT(log.messages(), SizeIs(1));
  EXPECT_THAT(log.messages()[0], HasSubstr("network filesystem"));
  EXPECT_THAT(log.messages()[0], HasSubstr("rollback journal"));

  EnvironmentRowId env = 0;
  ASSERT_TRUE(repo->EnsureEnvironment(SampleEnvironment(), &env).ok());
  InsertResult inserted;
  ASSERT_TRUE(repo->InsertPlan(env, SamplePlan(1), &inserted).ok());
  LoadedPlans loaded;
  ASSERT_TRUE(repo->LoadPlansByFirstOp(env, 7, &loaded).ok());
  EXPECT_THAT(loaded.plans, SizeIs(1));
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
  RawDb raw(path);
  EXPECT_EQ(raw.Text("PRAGMA journal_mode"), "delete");
}

TEST(NetworkFilesystem, KnownMagicNumbersAreNamed) {
  EXPECT_EQ(NetworkFilesystemName(0x6969), "nfs");
  EXPECT_EQ(NetworkFilesystemName(0xFF534D42), "cifs");
  EXPECT_EQ(NetworkFilesystemName(0x517B), "smb");
  EXPECT_EQ(NetworkFilesystemName(0xFE534D42), "smb2");
  EXPECT_EQ(NetworkFilesystemName(0xEF53), "");      // ext4
  EXPECT_EQ(NetworkFilesystemName(0x01021994), "");  // tmpfs
  EXPECT_EQ(NetworkFilesystemName(0x58465342), "");  // xfs
  EXPECT_EQ(NetworkFilesystemOf("/proc"), "");       // procfs
}

TEST(FileTrust, DatabaseDirectoryOfABareNameIsTheWorkingDirectory) {
  EXPECT_EQ(DatabaseDirectory("plans.db"), ".");
  EXPECT_EQ(DatabaseDirectory(".ember/plans.db"), ".ember");
  EXPECT_EQ(DatabaseDirectory("/var/x/plans.db"), "/var/x");
}

}  // namespace
}  // namespace ember

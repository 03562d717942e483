// Symlinks and swaps on the plan database path (issue 20, Note [Plan database trust]): the
// checks judge the file a symlink leads to and its directory, and the file opened must be the
// one judged. Files of another user are made with chown, so those cases need root (skipped
// otherwise).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "store/sqlite/plan_database.h"
#include "tests/store/shm_test_util.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::FileSnapshot;
using sqlite_test::TempDir;
using test::OptionsFor;
using testing::AllOf;
using testing::HasSubstr;

Status OpenAt(const PlanDbOptions& options) {
  std::unique_ptr<PlanDatabase> db;
  return PlanDatabase::Open(options, &db);
}

// A file of another user (test::kOtherUser) in `dir`, not a database; empty when chown failed.
std::string OtherUsersFile(const TempDir& dir) {
  const std::string path = dir.Write("theirs.db", "their bytes, not a database");
  if (chown(path.c_str(), test::kOtherUser, test::kOtherUser) != 0) return "";
  return path;
}

TEST(DatabasePathTrust, ASymlinkToAnotherUsersFileIsRefusedAndTheFileLeftAlone) {
  TempDir dir;
  const std::string theirs = OtherUsersFile(dir);
  if (theirs.empty()) GTEST_SKIP() << "chown needs root";
  const std::string path = dir.File("plans.db");
  ASSERT_EQ(symlink(theirs.c_str(), path.c_str()), 0);
  const FileSnapshot before = FileSnapshot::Of(theirs);
  const Status s = OpenAt(OptionsFor(path));
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("owned by uid " + std::to_string(test::kOtherUser)));
  EXPECT_EQ(FileSnapshot::Of(theirs), before);
  EXPECT_FALSE(std::filesystem::exists(theirs + "-wal"));
}

TEST(DatabasePathTrust, ASymlinkToAFileOthersCanWriteIsRefused) {
  TempDir dir;
  const std::string target = dir.File("open.db");
  {
    std::unique_ptr<PlanDatabase> db;
    ASSERT_TRUE(PlanDatabase::Open(OptionsFor(target), &db).ok());
  }
  ASSERT_EQ(chmod(target.c_str(), 0666), 0);
  const std::string path = dir.File("plans.db");
  ASSERT_EQ(symlink(target.c_str(), path.c_str()), 0);
  const Status s = OpenAt(OptionsFor(path));
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("writable by"));
}

// A symlinked directory is judged as the directory it leads to: a shared sticky one (/tmp's
// kind) is refused, as it is when named directly.
TEST(DatabasePathTrust, ADirectorySymlinkedToASharedDirectoryIsRefused) {
  TempDir dir;
  const std::string shared = dir.File("shared");
  ASSERT_EQ(mkdir(shared.c_str(), 0700), 0);
  ASSERT_EQ(chmod(shared.c_str(), 01777), 0);
  const std::string link = dir.File("mine");
  ASSERT_EQ(symlink(shared.c_str(), link.c_str()), 0);
  const Status s = OpenAt(OptionsFor(link + "/plans.db"));
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("shared directory"));
  EXPECT_FALSE(std::filesystem::exists(shared + "/plans.db"));
}

// A dangling symlink is not followed into creating a file elsewhere.
TEST(DatabasePathTrust, ADanglingSymlinkIsNotFollowedToCreateItsTarget) {
  TempDir dir;
  const std::string target = dir.File("elsewhere.db");
  const std::string path = dir.File("plans.db");
  ASSERT_EQ(symlink(target.c_str(), path.c_str()), 0);
  const Status s = OpenAt(OptionsFor(path));
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(path));
  EXPECT_FALSE(std::filesystem::exists(target));
}

// A symlink to a database of this user's is that database (a user's own choice).
TEST(DatabasePathTrust, ASymlinkToADatabaseOfThisUserIsUsed) {
  TempDir dir;
  const std::string target = dir.File("real.db");
  {
    std::unique_ptr<PlanDatabase> db;
    ASSERT_TRUE(PlanDatabase::Open(OptionsFor(target), &db).ok());
  }
  const std::string path = dir.File("plans.db");
  ASSERT_EQ(symlink(target.c_str(), path.c_str()), 0);
  const Status s = OpenAt(OptionsFor(path));
  EXPECT_TRUE(s.ok()) << s.ToString();
}

// The file swapped for another between the checks and the open: refused before anything reads
// or writes it, and left byte for byte as it was.
TEST(DatabasePathTrust, AFileSwappedBetweenTheChecksAndTheOpenIsRefusedUntouched) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  {
    std::unique_ptr<PlanDatabase> db;
    ASSERT_TRUE(PlanDatabase::Open(OptionsFor(path), &db).ok());
  }
  // Their file is a plan database too: without the identity check it would be opened and
  // written (journal mode, migrations, this process's rows) as if it were ours.
  const std::string theirs = dir.File("theirs.db");
  {
    std::unique_ptr<PlanDatabase> db;
    ASSERT_TRUE(PlanDatabase::Open(OptionsFor(theirs), &db).ok());
    ASSERT_TRUE(db->sqlite().Exec("PRAGMA journal_mode = DELETE", "test").ok());
  }
  if (chown(theirs.c_str(), test::kOtherUser, test::kOtherUser) != 0) {
    GTEST_SKIP() << "chown needs root";
  }
  const FileSnapshot before = FileSnapshot::Of(theirs);
  PlanDbOptions options = OptionsFor(path);
  options.after_checks_for_testing = [&] { ASSERT_EQ(rename(theirs.c_str(), path.c_str()), 0); };
  const Status s = OpenAt(options);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  EXPECT_THAT(s.message(), AllOf(HasSubstr(path), HasSubstr("changed between the trust checks")));
  EXPECT_EQ(FileSnapshot::Of(path), before);
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
}

}  // namespace
}  // namespace ember

// Note [Write-ahead log binding] (store/sqlite/wal_companions.h): no log is left behind to be
// replayed onto another file, and a log that a killed writer left is replayed only onto the
// database it belongs to. Real files, real forked writers killed with SIGKILL, and the "other
// program" as a plain SQLite connection.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/core/log.h"
#include "store/sqlite/plan_database.h"
#include "store/sqlite/sqlite_plan_repository.h"
#include "store/sqlite/wal_companions.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::RawDb;
using sqlite_test::SamplePlan;
using sqlite_test::TempDir;
using test::ForkChild;
using test::KillChild;
using test::kKilledBySignal;
using test::OpenRepository;
using test::OptionsFor;
using test::SampleEnvironment;
using test::WaitChild;
using testing::HasSubstr;

namespace fs = std::filesystem;

bool Exists(const std::string& path) { return fs::exists(path); }

// The files of `dir` whose names start with `prefix`.
std::vector<std::string> FilesStartingWith(const fs::path& dir, const std::string& prefix) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0) names.push_back(name);
  }
  return names;
}

// Inserts plans first..last-1 into `path`, one transaction each.
void InsertPlans(PlanRepository& repo, uint64_t first, uint64_t last) {
  EnvironmentRowId env = 0;
  ASSERT_TRUE(repo.EnsureEnvironment(SampleEnvironment(), &env).ok());
  for (uint64_t n = first; n < last; ++n) {
    InsertResult result;
    const Status s = repo.InsertPlan(env, SamplePlan(n), &result);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
}

// The plans of first op 7 as a read-only open sees them; `while_open` runs before it closes.
size_t PlansReadOnly(
    const std::string& path, const std::function<void()>& while_open = [] {}) {
  PlanDbOptions options = OptionsFor(path);
  options.read_only = true;
  std::unique_ptr<SqlitePlanRepository> repo;
  const Status s = SqlitePlanRepository::Open(options, &repo);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return 0;
  LoadedPlans loaded;
  EXPECT_TRUE(repo->LoadPlansByFirstOp(1, 7, &loaded).ok());
  while_open();
  return loaded.plans.size();
}

// A run that inserts plans first..last-1 and exits cleanly.
void WritePlansAndClose(const std::string& path, uint64_t first, uint64_t last) {
  std::unique_ptr<SqlitePlanRepository> repo = OpenRepository(path);
  ASSERT_NE(repo, nullptr);
  InsertPlans(*repo, first, last);
}

int64_t CountPlans(const std::string& path) {
  std::unique_ptr<SqlitePlanRepository> repo = OpenRepository(path);
  if (repo == nullptr) return -1;
  std::string text;
  EXPECT_TRUE(
      repo->database().sqlite().QueryText("SELECT COUNT(*) FROM plans", "counting", &text).ok());
  return std::stoll(text);
}

// A writer in another process that inserts plans first..last-1 (one transaction each; with
// `checkpoint_after`, it checkpoints after that many, so part of its log is in the file), then
// holds its connection open until Finish(), which makes it insert one more plan and exit (its
// exit code is returned), or Kill().
class LiveWriter {
 public:
  LiveWriter(const std::string& path, uint64_t first, uint64_t last, int checkpoint_after = -1) {
    int ready[2], go[2];
    EXPECT_EQ(pipe(ready), 0);
    EXPECT_EQ(pipe(go), 0);
    pid_ = ForkChild([&] {
      close(ready[0]);
      close(go[1]);
      std::unique_ptr<SqlitePlanRepository> repo;
      if (!SqlitePlanRepository::Open(OptionsFor(path), &repo).ok()) return 2;
      EnvironmentRowId env = 0;
      if (!repo->EnsureEnvironment(SampleEnvironment(), &env).ok()) return 3;
      InsertResult result;
      for (uint64_t n = first; n < last; ++n) {
        if (!repo->InsertPlan(env, SamplePlan(n), &result).ok()) return 4;
        if (static_cast<int>(n - first + 1) == checkpoint_after) {
          repo->database().sqlite().Exec("PRAGMA wal_checkpoint(PASSIVE)", "checkpoint");
        }
      }
      char byte = 1;
      if (write(ready[1], &byte, 1) != 1 || read(go[0], &byte, 1) != 1) return 5;
      return repo->InsertPlan(env, SamplePlan(last), &result).ok() ? 0 : 6;
    });
    close(ready[1]);
    close(go[0]);
    go_ = go[1];
    char byte = 0;
    EXPECT_EQ(read(ready[0], &byte, 1), 1) << "the writer failed";
    close(ready[0]);
  }
  ~LiveWriter() {
    if (go_ >= 0) Finish();
  }
  // SIGKILL, its connection open; returns how it ended.
  int Kill() {
    const int how = KillChild(pid_);
    close(go_);
    go_ = -1;
    return how;
  }
  int Finish() {
    const char byte = 1;
    EXPECT_EQ(write(go_, &byte, 1), 1);
    close(go_);
    go_ = -1;
    return WaitChild(pid_);
  }

 private:
  pid_t pid_ = 0;
  int go_ = -1;
};

// A writer killed with SIGKILL while its connection is open, leaving its log behind.
void KilledWriter(const std::string& path, uint64_t first, uint64_t last,
                  int checkpoint_after = -1) {
  LiveWriter writer(path, first, last, checkpoint_after);
  EXPECT_EQ(writer.Kill(), kKilledBySignal + SIGKILL);
  ASSERT_TRUE(Exists(path + "-wal"));
  ASSERT_GT(fs::file_size(path + "-wal"), 0u);
}

// Another program's database, in rollback-journal mode as the sqlite3 shell makes it.
void WriteOtherProgramsDatabase(const std::string& path) {
  RawDb other(path);
  other.Exec("CREATE TABLE t(x); INSERT INTO t VALUES (42)");
}

TEST(WalBinding, ClosingTheLastConnectionLeavesNoCompanions) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  {
    std::unique_ptr<SqlitePlanRepository> repo = OpenRepository(path);
    ASSERT_NE(repo, nullptr);
    InsertPlans(*repo, 1, 5);
    EXPECT_TRUE(Exists(path + "-wal"));
  }
  EXPECT_FALSE(Exists(path + "-wal"));
  EXPECT_FALSE(Exists(path + "-shm"));
  EXPECT_EQ(CountPlans(path), 4);
}

TEST(WalBinding, AReadOnlyOpenRemovesTheCompanionsItCreated) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  WritePlansAndClose(path, 1, 3);
  ASSERT_FALSE(Exists(path + "-wal"));
  EXPECT_EQ(PlansReadOnly(path, /*while_open=*/
                          [&] {
                            EXPECT_TRUE(
                                Exists(path + "-shm"));  // SQLite made them to read a WAL database
                          }),
            2u);
  EXPECT_FALSE(Exists(path + "-wal"));
  EXPECT_FALSE(Exists(path + "-shm"));
}

TEST(WalBinding, AReadOnlyOpenBesideALiveWriterLeavesItsCompanionsAlone) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  LiveWriter writer(path, 1, 3);
  EXPECT_EQ(PlansReadOnly(path), 2u);
  // The writer's log and index are its own: closing the reader removed neither.
  EXPECT_TRUE(Exists(path + "-wal"));
  EXPECT_TRUE(Exists(path + "-shm"));
  EXPECT_EQ(writer.Finish(), 0);  // it writes again, then closes
  EXPECT_EQ(CountPlans(path), 3);
}

TEST(WalBinding, EveryWriteTransactionBumpsTheCommitCounter) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  std::unique_ptr<SqlitePlanRepository> repo = OpenRepository(path);
  ASSERT_NE(repo, nullptr);
  std::string before;
  ASSERT_TRUE(repo->database().sqlite().QueryText("PRAGMA user_version", "reading", &before).ok());
  InsertPlans(*repo, 1, 4);  // an environment lookup (a read) and three inserts
  std::string after;
  ASSERT_TRUE(repo->database().sqlite().QueryText("PRAGMA user_version", "reading", &after).ok());
  EXPECT_GE(std::stoll(after) - std::stoll(before), 3);
}

TEST(WalBinding, AKilledWritersLogIsReplayedOntoItsOwnDatabase) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  KilledWriter(path, 1, 20);
  ScopedLogCapture capture(LogLevel::kDisabled);
  EXPECT_EQ(CountPlans(path), 19);  // every committed plan, none lost
  EXPECT_TRUE(capture.messages().empty());
  EXPECT_TRUE(FilesStartingWith(dir.path(), "plans.db-wal.stale").empty());
}

TEST(WalBinding, ALogPartlyCheckpointedIntoTheFileIsReplayedOntoIt) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  KilledWriter(path, 1, 30, /*checkpoint_after=*/12);
  EXPECT_EQ(CountPlans(path), 29);
  EXPECT_TRUE(FilesStartingWith(dir.path(), "plans.db-wal.stale").empty());
}

TEST(WalBinding, AKilledWritersLogIsNotReplayedOntoAnotherProgramsDatabase) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  KilledWriter(path, 1, 20);
  // The database is replaced by another program's while the log is still beside it (made
  // elsewhere: any SQLite connection at `path` would replay the log at once).
  WriteOtherProgramsDatabase(dir.File("other.db"));
  fs::copy_file(dir.File("other.db"), path, fs::copy_options::overwrite_existing);
  ScopedLogCapture capture(LogLevel::kDisabled);
  std::unique_ptr<PlanDatabase> db;
  const Status s = PlanDatabase::Open(OptionsFor(path), &db);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();  // not ours
  ASSERT_EQ(capture.messages().size(), 1u);
  EXPECT_THAT(capture.messages()[0], HasSubstr("plans.db-wal does not belong to plan database"));
  EXPECT_THAT(capture.messages()[0], HasSubstr("was moved to"));
  // The other program's data is intact, and stays so for any SQLite program that opens it:
  // the log is no longer beside it, but nothing was deleted.
  EXPECT_FALSE(Exists(path + "-wal"));
  EXPECT_FALSE(Exists(path + "-shm"));
  ASSERT_EQ(FilesStartingWith(dir.path(), "plans.db-wal.stale-").size(), 1u);
  RawDb other(path);
  EXPECT_EQ(other.Int("SELECT x FROM t"), 42);
}

TEST(WalBinding, AKilledWritersLogIsNotReplayedOntoARestoredBackup) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  WritePlansAndClose(path, 1, 7);
  fs::copy_file(path, dir.File("backup.db"));
  WritePlansAndClose(path, 7, 10);
  KilledWriter(path, 10, 40);
  fs::copy_file(dir.File("backup.db"), path, fs::copy_options::overwrite_existing);
  ScopedLogCapture capture(LogLevel::kDisabled);
  EXPECT_EQ(CountPlans(path), 6);  // the backup, as restored
  ASSERT_EQ(capture.messages().size(), 1u);
  EXPECT_THAT(capture.messages()[0], HasSubstr("does not belong"));
  // The moved log still holds the later plans: put back with the database it belongs to, it
  // gives them back.
  const std::vector<std::string> stale = FilesStartingWith(dir.path(), "plans.db-wal.stale-");
  ASSERT_EQ(stale.size(), 1u);
  EXPECT_GT(fs::file_size(dir.path() / stale[0]), 0u);
}

TEST(WalBinding, ACopyOfTheStateTheLogStartedFromGetsTheLogsCommits) {
  // Note [Write-ahead log binding]'s one ambiguous case: the log's own base put back. It is
  // replayed — the database as the killed run left it, not another database's pages.
  TempDir dir;
  const std::string path = dir.File("plans.db");
  WritePlansAndClose(path, 1, 7);
  fs::copy_file(path, dir.File("base.db"));
  KilledWriter(path, 7, 20);
  fs::copy_file(dir.File("base.db"), path, fs::copy_options::overwrite_existing);
  EXPECT_EQ(CountPlans(path), 19);
  EXPECT_TRUE(FilesStartingWith(dir.path(), "plans.db-wal.stale").empty());
}

TEST(WalBinding, AReadOnlyOpenRefusesAForeignLogAndTouchesNeitherFile) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  WritePlansAndClose(path, 1, 4);
  fs::copy_file(path, dir.File("backup.db"));
  WritePlansAndClose(path, 4, 6);
  KilledWriter(path, 6, 30);
  fs::copy_file(dir.File("backup.db"), path, fs::copy_options::overwrite_existing);
  const std::string wal_before = test::ReadFile(path + "-wal");
  const std::string db_before = test::ReadFile(path);
  PlanDbOptions options = OptionsFor(path);
  options.read_only = true;
  std::unique_ptr<PlanDatabase> db;
  const Status s = PlanDatabase::Open(options, &db);
  EXPECT_EQ(s.code(), Status::Code::kCorruption) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("does not belong"));
  EXPECT_THAT(s.message(), HasSubstr("move " + path + "-wal away"));
  EXPECT_EQ(test::ReadFile(path + "-wal"), wal_before);
  EXPECT_EQ(test::ReadFile(path), db_before);
}

TEST(WalBinding, ALogInUseByALiveProcessIsNeverMoved) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  WritePlansAndClose(path, 1, 3);
  fs::copy_file(path, dir.File("backup.db"));
  LiveWriter writer(path, 3, 30);
  // The file is replaced under the running writer; its log does not belong to the backup, but
  // it is the writer's live log, not a stale one: an open beside it leaves it in place.
  fs::copy_file(dir.File("backup.db"), path, fs::copy_options::overwrite_existing);
  {
    ScopedLogCapture capture(LogLevel::kDisabled);
    std::unique_ptr<PlanDatabase> db;
    const Status s = PlanDatabase::Open(OptionsFor(path), &db);
    EXPECT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(capture.messages().empty());
  }
  EXPECT_TRUE(FilesStartingWith(dir.path(), "plans.db-wal.stale").empty());
  EXPECT_EQ(writer.Finish(), 0);
}

}  // namespace
}  // namespace ember

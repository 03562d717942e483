// A writable database stays writable when another process's last close removes its -wal and
// -shm while this one starts (issue 40, item 8: "exists", then "cannot be written", read a
// removal as a refusal, and the run stored nothing; 1 start in 300 beside a closing process).
// The hook removes the companions at the instant PlanDatabase::Open looks at them.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "store/sqlite/plan_database.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::RawDb;
using sqlite_test::TempDir;

class CompanionRace : public testing::Test {
 protected:
  void TearDown() override { SetCompanionCheckHookForTesting(nullptr); }

  // A plan database with a live WAL writer beside it (so -wal and -shm exist).
  std::string MakeDatabaseWithLiveWriter() {
    const std::string path = dir_.File("plans.db");
    {
      std::unique_ptr<PlanDatabase> db;
      EXPECT_TRUE(PlanDatabase::Open({.path = path}, &db).ok());
    }
    writer_ = std::make_unique<RawDb>(path);
    writer_->Exec("PRAGMA journal_mode=WAL; SELECT count(*) FROM sqlite_master;");
    EXPECT_TRUE(std::filesystem::exists(path + "-shm"));
    EXPECT_TRUE(std::filesystem::exists(path + "-wal"));
    return path;
  }

  TempDir dir_;
  std::unique_ptr<RawDb> writer_;
};

TEST_F(CompanionRace, CompanionsRemovedByAClosingWriterAreNotARefusal) {
  for (const char* vanishing : {"-wal", "-shm"}) {
    const std::string path = MakeDatabaseWithLiveWriter();
    // The other process's last close, at the worst moment: after this one saw the companions.
    SetCompanionCheckHookForTesting([&](const std::string& companion) {
      if (!companion.ends_with(vanishing) || writer_ == nullptr) return;
      writer_.reset();  // closes: SQLite removes -wal and -shm
      ASSERT_FALSE(std::filesystem::exists(companion));
    });
    std::unique_ptr<PlanDatabase> db;
    ASSERT_TRUE(PlanDatabase::Open({.path = path}, &db).ok());
    EXPECT_TRUE(db->writable()) << vanishing << ": " << db->read_only_reason();
    SetCompanionCheckHookForTesting(nullptr);
    db.reset();
    std::filesystem::remove(path);
  }
}

TEST_F(CompanionRace, AnUnwritableCompanionIsStillARefusal) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes any file: permissions cannot refuse";
  const std::string path = MakeDatabaseWithLiveWriter();
  writer_.reset();
  RawDb again(path);
  again.Exec("PRAGMA journal_mode=WAL; SELECT count(*) FROM sqlite_master;");
  std::filesystem::permissions(path + "-shm", std::filesystem::perms::owner_read);
  std::unique_ptr<PlanDatabase> db;
  ASSERT_TRUE(PlanDatabase::Open({.path = path}, &db).ok());
  EXPECT_FALSE(db->writable());
}

}  // namespace
}  // namespace ember

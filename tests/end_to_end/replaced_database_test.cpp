// Issue 13's first recipe end to end (Note [Write-ahead log binding],
// store/sqlite/wal_companions.h): real engine processes (tests/end_to_end/engine_child.h) exit
// cleanly and leave no write-ahead log, so a database file replaced afterwards — by another
// program's database or by a backup being restored — is what the next run finds, untouched.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/end_to_end/engine_child.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::RawDb;
using sqlite_test::TempDir;
using test::Report;
using test::RunChild;

namespace fs = std::filesystem;

int64_t PlansIn(const std::string& path) { return RawDb(path).Int("SELECT COUNT(*) FROM plans"); }

TEST(ReplacedDatabase, ARunLeavesNoLogBehindToBeReplayedOntoAnotherProgramsDatabase) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  const std::vector<std::string> env = {"EMBER_PLAN_DB=" + path, "EMBER_TEST_WORKLOAD=seed"};
  const Report cold = RunChild(dir.path().string(), env);
  ASSERT_GT(cold.at("plans_published"), 0);
  EXPECT_FALSE(fs::exists(path + "-wal"));
  EXPECT_FALSE(fs::exists(path + "-shm"));

  {
    RawDb other(dir.File("other.db"));
    other.Exec("CREATE TABLE t(x); INSERT INTO t VALUES (42)");
  }
  fs::copy_file(dir.File("other.db"), path, fs::copy_options::overwrite_existing);
  const Report refused = RunChild(dir.path().string(), env);
  EXPECT_EQ(refused.at("checksum"), cold.at("checksum"));  // it ran, with in-memory plans
  EXPECT_EQ(refused.at("plans_loaded_from_db"), 0);
  RawDb other(path);
  EXPECT_EQ(other.Int("SELECT x FROM t"), 42);
  EXPECT_EQ(other.Int("SELECT COUNT(*) FROM sqlite_master WHERE name = 'plans'"), 0);
}

TEST(ReplacedDatabase, ARestoredBackupComesBackAsItWasBackedUp) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  const Report first =
      RunChild(dir.path().string(), {"EMBER_PLAN_DB=" + path, "EMBER_TEST_WORKLOAD=seed"});
  ASSERT_GT(first.at("plans_published"), 0);
  const int64_t backed_up = PlansIn(path);
  fs::copy_file(path, dir.File("backup.db"));
  const Report more =
      RunChild(dir.path().string(), {"EMBER_PLAN_DB=" + path, "EMBER_TEST_WORKLOAD=shapes"});
  ASSERT_GT(more.at("plans_published"), 0);
  ASSERT_GT(PlansIn(path), backed_up);

  fs::copy_file(dir.File("backup.db"), path, fs::copy_options::overwrite_existing);
  const Report restored =
      RunChild(dir.path().string(), {"EMBER_PLAN_DB=" + path, "EMBER_TEST_WORKLOAD=seed"});
  EXPECT_EQ(restored.at("explorations"), 0);  // warm from the backup
  EXPECT_EQ(restored.at("checksum"), first.at("checksum"));
  EXPECT_EQ(PlansIn(path), backed_up);
}

}  // namespace
}  // namespace ember

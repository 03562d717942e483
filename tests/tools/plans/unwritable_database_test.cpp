// ember-plans' read commands leave no -wal or -shm behind (issue 13, parts 1 and 4), and read a
// database nothing can write: one marked immutable, one on a read-only mount (mounted in a forked
// child's own mount namespace).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/tools/plans/plans_test_util.h"

namespace ember::plans_test {
namespace {

using sqlite_test::BindReadOnly;
using sqlite_test::HasCompanions;
using sqlite_test::ImmutableFile;
using sqlite_test::RunInMountNamespace;

class PlansUnwritable : public EngineDatabaseSuite {
 protected:
  // Every command that only reads the database (show and dot on its first plan).
  static std::vector<std::vector<std::string>> ReadCommands() {
    const nlohmann::json plans = Json(PlansOn(db_, {"ls", "--json", "--limit", "1"}));
    EXPECT_EQ(plans.size(), 1u);
    const std::string id = plans.empty() ? "1" : std::to_string(plans[0]["id"].get<int64_t>());
    return {{"stats"},     {"ls"},     {"show", id},        {"dot", id},
            {"workloads"}, {"verify"}, {"quarantine", "ls"}};
  }
  static int64_t PlanCount(const std::string& db) {
    const PlansRun run = PlansOn(db, {"stats", "--json"});
    EXPECT_EQ(run.code, 0) << run.err;
    const nlohmann::json stats = Json(run);
    return stats.contains("plans") ? stats["plans"].get<int64_t>() : -1;
  }
  // Runs every read command on `db`: each succeeds and leaves no -wal or -shm.
  static void ExpectReadWithoutCompanions(const std::string& db) {
    for (const std::vector<std::string>& command : ReadCommands()) {
      const PlansRun run = PlansOn(db, command);
      EXPECT_EQ(run.code, 0) << command[0] << ": " << run.err;
      EXPECT_FALSE(HasCompanions(db)) << command[0] << " left them";
    }
    EXPECT_EQ(PlanCount(db), PlanCount(db_));
  }

  std::string Copy() { return CopyDatabase(db_, copies_.File("copy.db")); }

  TempDir copies_;
};

TEST_F(PlansUnwritable, ReadCommandsLeaveNoCompanionFiles) {
  const std::string db = Copy();
  ASSERT_FALSE(HasCompanions(db));
  ExpectReadWithoutCompanions(db);
}

TEST_F(PlansUnwritable, ImmutableDatabaseIsReadAndLeftWithoutCompanions) {
  const std::string db = Copy();
  ImmutableFile immutable(db);
  if (!immutable.why_not().empty()) GTEST_SKIP() << immutable.why_not();
  ExpectReadWithoutCompanions(db);
}

TEST_F(PlansUnwritable, DatabaseOnAReadOnlyMountIsRead) {
  const std::string volume = copies_.File("volume");
  std::filesystem::create_directory(volume);
  const std::string db = CopyDatabase(db_, volume + "/plans.db");
  const std::string skipped = RunInMountNamespace([&] {
    ASSERT_EQ(BindReadOnly(volume), "");
    ExpectReadWithoutCompanions(db);
  });
  if (!skipped.empty()) GTEST_SKIP() << skipped;
}

}  // namespace
}  // namespace ember::plans_test

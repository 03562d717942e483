// The engine on a plan database it cannot write (issue 13, parts 4, 5 and 7), in real processes
// (the children of plan_database_test.cpp): a warm database marked immutable, or on a full
// filesystem, still gives the warm start — nothing explored, every hit from SQLite, the cold
// run's results — and the run says once on stderr, at the default log level, that nothing new is
// stored; a database deleted or replaced mid-run is said once and changes no result.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tests/end_to_end/engine_child.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::FillFilesystem;
using sqlite_test::HasCompanions;
using sqlite_test::ImmutableFile;
using sqlite_test::MountTmpfs;
using sqlite_test::RunInMountNamespace;
using sqlite_test::TempDir;
using test::ReadFile;
using test::Report;
using test::RunChild;
using testing::AllOf;
using testing::ElementsAre;
using testing::HasSubstr;

// The lines of the file `path` that contain `text`.
std::vector<std::string> LinesWith(const std::string& path, const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(ReadFile(path));
  for (std::string line; std::getline(in, line);) {
    if (line.find(text) != std::string::npos) lines.push_back(line);
  }
  return lines;
}

TEST(UnwritablePlanDatabase, ImmutableWarmDatabaseStartsWarmAndSaysOnceThatNothingIsStored) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  const std::vector<std::string> env = {"EMBER_PLAN_DB=" + path, "EMBER_TEST_WORKLOAD=seed"};
  const Report cold = RunChild(dir.path().string(), env);
  ASSERT_FALSE(HasCompanions(path));
  ImmutableFile immutable(path);
  if (!immutable.why_not().empty()) GTEST_SKIP() << immutable.why_not();
  const std::string err = dir.File("warm.err");
  const Report warm = RunChild(dir.path().string(), env, err);
  test::ExpectWarmStart(cold, warm);
  EXPECT_THAT(LinesWith(err, "nothing new can be stored"),
              ElementsAre(AllOf(HasSubstr(path), HasSubstr("marked immutable"))));
  EXPECT_FALSE(HasCompanions(path));
}

TEST(UnwritablePlanDatabase, WarmDatabaseOnAFullDiskStartsWarmAndSaysOnceThatNothingIsStored) {
  TempDir dir;
  const std::string warm_db = dir.File("warm.db");
  const Report cold =
      RunChild(dir.path().string(), {"EMBER_PLAN_DB=" + warm_db, "EMBER_TEST_WORKLOAD=seed"});
  const std::string fs = dir.File("fs");
  std::filesystem::create_directory(fs);
  const std::string path = fs + "/plans.db";
  const std::string err = dir.File("warm.err");
  // The forked child only mounts, copies and spawns: no lock another thread may hold is needed.
  const std::string skipped = RunInMountNamespace([&] {
    ASSERT_EQ(MountTmpfs(fs, size_t{1} << 20), "");
    std::filesystem::copy_file(warm_db, path);
    ASSERT_EQ(chmod(path.c_str(), 0600), 0);
    FillFilesystem(fs);
    const Report warm =
        RunChild(dir.path().string(), {"EMBER_PLAN_DB=" + path, "EMBER_TEST_WORKLOAD=seed"}, err);
    test::ExpectWarmStart(cold, warm);
    EXPECT_FALSE(HasCompanions(path));
  });
  if (!skipped.empty()) GTEST_SKIP() << skipped;
  EXPECT_THAT(LinesWith(err, "nothing new can be stored"), ElementsAre(HasSubstr(path)));
}

// EMBER_TEST_VANISH: "delete", or the path of a file moved over the database (a restored
// backup).
class VanishedPlanDatabase : public testing::TestWithParam<const char*> {
 protected:
  // The vanishing, and what the message about it says.
  std::string Vanish() const {
    return GetParam() == std::string("delete") ? "delete" : dir_.File("backup.db");
  }
  std::string Said() const {
    return GetParam() == std::string("delete") ? "deleted or moved" : "replaced";
  }

  TempDir dir_;
};

TEST_P(VanishedPlanDatabase, FileGoneMidRunIsSaidOnceAndResultsStayRight) {
  const std::string path = dir_.File("plans.db");
  const std::string backup = dir_.File("backup.db");
  RunChild(dir_.path().string(), {"EMBER_PLAN_DB=" + backup, "EMBER_TEST_WORKLOAD=seed"});
  const std::string backup_bytes = ReadFile(backup);
  const Report reference =
      RunChild(dir_.path().string(),
               {"EMBER_PLAN_DB=off", "EMBER_TEST_WORKLOAD=many", "EMBER_TEST_VANISH=" + Vanish()});
  const std::string err = dir_.File("run.err");
  const Report run = RunChild(
      dir_.path().string(),
      {"EMBER_PLAN_DB=" + path, "EMBER_TEST_WORKLOAD=many", "EMBER_TEST_VANISH=" + Vanish()}, err);
  EXPECT_EQ(run.at("checksum"), reference.at("checksum"));
  EXPECT_EQ(run.at("explorations"), reference.at("explorations"));
  EXPECT_THAT(LinesWith(err, "ember:"), ElementsAre(AllOf(HasSubstr(path), HasSubstr(Said()))));
  if (GetParam() != std::string("delete")) {
    EXPECT_EQ(ReadFile(path), backup_bytes);  // the restored file: nothing written into it
    // Nor will anything be: the run's log, left at the path, was emptied into the file it
    // belonged to, so a SQLite program opening the path replays nothing onto the newcomer.
    EXPECT_TRUE(!std::filesystem::exists(path + "-wal") ||
                std::filesystem::file_size(path + "-wal") == 0);
    sqlite_test::RawDb(path).Exec("SELECT COUNT(*) FROM plans");
    EXPECT_EQ(ReadFile(path), backup_bytes);
  }
}

INSTANTIATE_TEST_SUITE_P(Ways, VanishedPlanDatabase, testing::Values("delete", "replace"),
                         [](const testing::TestParamInfo<const char*>& param) {
                           return std::string(param.param);
                         });

}  // namespace
}  // namespace ember

// Text that others control never reaches a terminal raw, and --json never aborts on it (issue
// 40, items 1, 2 and 9): workload names and miss rows another host stored, a recorded log from
// another machine, a shared-memory segment name another local user chose. Human output escapes
// control characters (engine/core/printable.h); --json escapes by itself and replaces invalid
// UTF-8.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "store/shm/shared_segment.h"
#include "tests/tools/plans/plans_test_util.h"

namespace ember::plans_test {
namespace {

using testing::HasSubstr;
using testing::Not;

// Set the window title, clear the screen, recolour; a C1 CSI; invalid UTF-8.
constexpr char kHostile[] = "\x1b]0;pwned\x07\x1b[2J\x1b[31m\xc2\x9b\xff";
constexpr char kHostileSql[] =
    "char(27) || ']0;pwned' || char(7) || char(27) || '[2J' || char(27) || '[31m' || char(155) "
    "|| CAST(X'FF' AS TEXT)";

bool HasRawControl(const std::string& text) {
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (b == 0x1b || b == 0x07 || b == 0xff) return true;
  }
  return text.find("\xc2\x9b") != std::string::npos;
}

class PlansHostileText : public EngineDatabaseSuite {
 protected:
  // A copy of the engine's database whose workload name and miss rows carry kHostile.
  std::string HostileCopy() {
    const std::string db =
        CopyDatabase(db_, dir_->File("hostile-" + std::to_string(++copies_) + ".db"));
    RawDb raw(db);
    raw.Exec(std::string("UPDATE workloads SET name = 'job' || ") + kHostileSql);
    raw.Exec(std::string("INSERT INTO workload_misses (workload_id, pattern, cause, op_position, "
                         "op_name, nearest_plan, first_detail, last_detail, count, first_seen, "
                         "last_seen) SELECT id, 4242, 'shape' || ") +
             kHostileSql + ", 1, 'exp' || " + kHostileSql + ", 'stored plan 1', 'first ' || " +
             kHostileSql + ", 'latest ' || " + kHostileSql + ", 3, 1, 2 FROM workloads");
    return db;
  }
  int copies_ = 0;
};

TEST_F(PlansHostileText, StoredTextIsEscapedInEveryHumanPrinter) {
  const std::string db = HostileCopy();
  for (const std::vector<std::string>& command : std::vector<std::vector<std::string>>{
           {"explain"},
           {"explain", "--workload", std::string("job") + kHostile},
           {"workloads"},
           {"ls"},
           {"ls", "--workload", std::string("job") + kHostile},
           {"stats"},
           {"verify"}}) {
    const PlansRun run = PlansOn(db, command);
    EXPECT_FALSE(HasRawControl(run.out)) << command[0] << ":\n" << run.out;
    EXPECT_FALSE(HasRawControl(run.err)) << command[0] << ":\n" << run.err;
  }
  const PlansRun explain = PlansOn(db, {"explain"});
  EXPECT_EQ(explain.code, 0) << explain.err;
  EXPECT_THAT(explain.out, HasSubstr("job\\x1b]0;pwned\\x07"));
  EXPECT_THAT(explain.out, HasSubstr("latest \\x1b]0;pwned"));
}

TEST_F(PlansHostileText, JsonNeverAbortsOnInvalidUtf8) {
  const std::string db = HostileCopy();
  for (const std::vector<std::string>& command : std::vector<std::vector<std::string>>{
           {"explain", "--json"}, {"workloads", "--json"}, {"ls", "--json"}, {"stats", "--json"}}) {
    const PlansRun run = PlansOn(db, command);
    EXPECT_EQ(run.code, 0) << command[0] << ": " << run.err;
    const nlohmann::json parsed = Json(run);
    EXPECT_FALSE(parsed.is_discarded()) << command[0];
    // JSON strings escape control characters themselves.
    EXPECT_EQ(run.out.find('\x1b'), std::string::npos) << command[0];
  }
  const nlohmann::json workloads = Json(PlansOn(db, {"workloads", "--json"}));
  ASSERT_FALSE(workloads.empty());
  // The invalid byte is replaced (U+FFFD); the ESC survives as JSON's \u001b.
  EXPECT_THAT(workloads.dump(), HasSubstr("\\u001b]0;pwned"));
}

TEST_F(PlansHostileText, ABundlesManifestAndNameAreEscapedAndImportJsonCompletes) {
  // A bundle from someone else: its file name and its manifest's text are theirs.
  const std::string bundle = dir_->File(std::string("bundle") + kHostile + ".db");
  ASSERT_EQ(PlansOn(db_, {"export", bundle}).code, 0);
  {
    RawDb raw(bundle);
    raw.Exec(std::string("UPDATE bundle_manifest SET value = value || ") + kHostileSql +
             " WHERE key = 'engine_version'");
  }
  const PlansRun human = PlansOn(dir_->File("import-human.db"), {"import", bundle});
  EXPECT_FALSE(HasRawControl(human.out)) << human.out;
  EXPECT_FALSE(HasRawControl(human.err)) << human.err;
  EXPECT_THAT(human.out, HasSubstr("bundle\\x1b]0;pwned"));
  // --json used to abort here, after the import had committed (exit 134).
  const PlansRun json = PlansOn(dir_->File("import-json.db"), {"import", bundle, "--json"});
  EXPECT_LT(json.code, 2) << json.err;
  EXPECT_FALSE(Json(json).is_discarded());
}

TEST_F(PlansHostileText, ARecordedLogIsEscapedAndBounded) {
  const std::string log = dir_->File("hostile.log");
  {
    std::ofstream out(log, std::ios::binary);
    out << "[plan] miss (shape" << kHostile << "): nearest plan stored plan 1 differs at op 0 (exp"
        << kHostile << "): input 0 shape [1,2] vs [1,1] (64×32 gives [1,2]): dim 1 differs\n";
    out << "[plan] miss (shape): " << std::string(300000, 'x') << "\n";  // one huge line
    for (int i = 0; i < 5000; ++i)
      out << "[plan] miss (cause" << char('a' + i % 26) << i % 7919 << "z): nearest plan #" << i
          << " x\n";
  }
  const PlansRun run = Plans({"explain", "--log", log});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_FALSE(HasRawControl(run.out)) << run.out.substr(0, 2000);
  EXPECT_THAT(run.out, HasSubstr("1 line(s) longer than 16384 bytes skipped"));
  EXPECT_THAT(run.out, HasSubstr("past the first 4096 patterns counted but not grouped"));
  const PlansRun json = Plans({"explain", "--log", log, "--json"});
  EXPECT_EQ(json.code, 0) << json.err;
  EXPECT_THAT(Json(json)["left_out"].get<std::string>(), HasSubstr("skipped"));
}

TEST_F(PlansHostileText, AnEndlessLogEndsAtTheBound) {
  // /dev/zero has no newline: one endless line, skipped in bounded steps until 1 GiB was read.
  if (!std::filesystem::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero";
  const PlansRun run = Plans({"explain", "--log", "/dev/zero"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("reading stopped after 1073741824 bytes"));
}

TEST_F(PlansHostileText, AnotherUsersSegmentNameIsEscaped) {
  if (!std::filesystem::is_directory("/dev/shm")) GTEST_SKIP() << "no POSIX shared memory";
  const std::string db = dir_->File("shm.db");
  RunEngine(db, "seed", {"EMBER_SHM=on", "EMBER_WORKLOAD=seed-job"});
  const std::vector<std::string> names = SharedSegment::NamesFor(db);
  ASSERT_EQ(names.size(), 1u);
  const std::string prefix = names[0].substr(0, names[0].rfind('-') + 1);
  const std::string hostile = prefix + "\x1b]0;pwned\x07";
  std::ofstream("/dev/shm/" + hostile, std::ios::binary) << std::string(64, '\xab');
  const PlansRun run = PlansOn(db, {"shm", "ls"});
  EXPECT_FALSE(HasRawControl(run.out)) << run.out;
  EXPECT_FALSE(HasRawControl(run.err)) << run.err;
  EXPECT_THAT(run.out + run.err, HasSubstr("\\x1b]0;pwned\\x07"));
  std::filesystem::remove("/dev/shm/" + hostile);
  EXPECT_TRUE(SharedSegment::RemoveAll(db).ok());
}

TEST_F(PlansHostileText, ADatabaseWhosePathNeedsEscapingStillFindsItsSegments) {
  // The path is shown escaped, but the segments are named after the path itself: `shm rm` and
  // `shm invalidate` must look them up by the path, not by what they print.
  if (!std::filesystem::is_directory("/dev/shm")) GTEST_SKIP() << "no POSIX shared memory";
  const std::string db = dir_->File("odd\\name\x1b.db");
  RunEngine(db, "seed", {"EMBER_SHM=on", "EMBER_WORKLOAD=seed-job"});
  ASSERT_EQ(SharedSegment::NamesFor(db).size(), 1u);
  const PlansRun invalidate = PlansOn(db, {"shm", "invalidate"});
  EXPECT_EQ(invalidate.code, 0) << invalidate.err;
  EXPECT_THAT(invalidate.out, HasSubstr("marked 1 shared segment(s)"));
  EXPECT_FALSE(HasRawControl(invalidate.out)) << invalidate.out;
  const PlansRun removed = PlansOn(db, {"shm", "rm"});
  EXPECT_EQ(removed.code, 0) << removed.err;
  EXPECT_THAT(removed.out, HasSubstr("removed 1 shared segment(s)"));
  EXPECT_THAT(removed.out, HasSubstr("odd\\\\name\\x1b.db"));
  EXPECT_TRUE(SharedSegment::NamesFor(db).empty());
  EXPECT_TRUE(SharedSegment::RemoveAll(db).ok());
}

}  // namespace
}  // namespace ember::plans_test

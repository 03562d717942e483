// ember-plans verify on healthy, damaged and unusable files: exit 0 healthy, 1 problems found
// (listed), 2 unusable; never a crash.
#include <gtest/gtest.h>

#include <algorithm>

#include "store/codec/row_checksum.h"
#include "tests/tools/plans/plans_test_util.h"

namespace ember::plans_test {
namespace {

class PlansVerify : public EngineDatabaseSuite {
 protected:
  // A private copy of the engine's database.
  std::string Copy() { return CopyDatabase(db_, scratch_.File("copy.db")); }

  TempDir scratch_;
};

TEST_F(PlansVerify, AHealthyDatabaseExitsZero) {
  const PlansRun run = PlansOn(db_, {"verify"});
  EXPECT_EQ(run.code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("integrity_check: ok"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("healthy"), std::string::npos);
  const nlohmann::json json = Json(PlansOn(db_, {"verify", "--json"}));
  EXPECT_EQ(json["healthy"], true);
  EXPECT_EQ(json["usable"], true);
  EXPECT_GT(json["plans_checked"].get<int64_t>(), 0);
  EXPECT_GT(json["triggers_checked"].get<int64_t>(), 0);
  EXPECT_TRUE(json["problems"].empty());
  EXPECT_EQ(json["integrity"], nlohmann::json::array({"ok"}));
}

TEST_F(PlansVerify, AFlippedBlobByteIsAChecksumMismatch) {
  const std::string copy = Copy();
  int64_t id = 0;
  {
    RawDb raw(copy);
    id = raw.Int("SELECT id FROM plans ORDER BY plan_bytes DESC LIMIT 1");
    std::vector<uint8_t> blob =
        raw.Blob("SELECT plan_blob FROM plans WHERE id = " + std::to_string(id));
    ASSERT_FALSE(blob.empty());
    blob[blob.size() / 2] ^= 0x40;
    raw.SetBlob("UPDATE plans SET plan_blob = ?1 WHERE id = " + std::to_string(id), blob);
  }
  const PlansRun run = PlansOn(copy, {"verify"});
  EXPECT_EQ(run.code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("plan " + std::to_string(id) + ": checksum mismatch"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("1 problem(s) found"), std::string::npos);
  const nlohmann::json json = Json(PlansOn(copy, {"verify", "--json"}));
  EXPECT_EQ(json["healthy"], false);
  ASSERT_EQ(json["problems"].size(), 1u);
  EXPECT_EQ(json["problems"][0]["where"], "plan " + std::to_string(id));
  // ls and show say so instead of failing as a whole.
  const nlohmann::json plans = Json(PlansOn(copy, {"ls", "--json"}));
  bool flagged = false;
  for (const nlohmann::json& p : plans) {
    if (p["id"] == id) flagged = p["problem"].is_string();
  }
  EXPECT_TRUE(flagged) << plans.dump(2);
  const PlansRun show = PlansOn(copy, {"show", std::to_string(id)});
  EXPECT_EQ(show.code, 1);
  EXPECT_NE(show.out.find("damaged: checksum mismatch"), std::string::npos) << show.out;
}

TEST_F(PlansVerify, AnUndecodableBlobWithAMatchingChecksumIsReported) {
  const std::string copy = Copy();
  {
    RawDb raw(copy);
    const int64_t id = raw.Int("SELECT MIN(id) FROM plans");
    const std::vector<uint8_t> ops =
        raw.Blob("SELECT ops_blob FROM plans WHERE id = " + std::to_string(id));
    const std::vector<uint8_t> junk(24, 0xA5);
    raw.SetBlob("UPDATE plans SET plan_blob = ?1, plan_bytes = 24 WHERE id = " + std::to_string(id),
                junk);
    raw.Exec("UPDATE plans SET checksum = " +
             std::to_string(static_cast<int64_t>(PlanChecksum(ops, junk))) +
             " WHERE id = " + std::to_string(id));
  }
  const PlansRun run = PlansOn(copy, {"verify"});
  EXPECT_EQ(run.code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("plan_blob:"), std::string::npos) << run.out;
}

TEST_F(PlansVerify, OrphanTriggersAreReported) {
  const std::string copy = Copy();
  {
    RawDb raw(copy);  // foreign keys are off on a plain connection
    raw.Exec(
        "INSERT INTO triggers (plan_id, position, kind, ops_blob) VALUES (424242, 0, 2, "
        "X'')");
  }
  const PlansRun run = PlansOn(copy, {"verify"});
  EXPECT_EQ(run.code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("foreign_key_check"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("triggers row"), std::string::npos) << run.out;
}

TEST_F(PlansVerify, QuarantinedRowsAreCountedNotProblems) {
  const std::string copy = Copy();
  {
    RawDb raw(copy);
    raw.Exec(
        "UPDATE plans SET status = 'quarantined', quarantine_reason = 'test' WHERE id = "
        "(SELECT MIN(id) FROM plans)");
  }
  const nlohmann::json json = Json(PlansOn(copy, {"verify", "--json"}));
  EXPECT_EQ(json["healthy"], true);
  EXPECT_EQ(json["quarantined"], 1);
}

TEST_F(PlansVerify, UnusableFilesExitTwo) {
  const std::string text = ReadFile(Copy());  // one checkpointed file
  ASSERT_GT(text.size(), 8192u);
  struct Case {
    std::string name;
    std::string bytes;
  };
  const std::vector<Case> cases = {
      {"garbage.db", std::string(8192, 'x')},
      {"truncated.db", text.substr(0, text.size() / 2 + 100)},
      {"header-only.db", text.substr(0, 60)},
      {"empty.db", ""},
  };
  for (const Case& c : cases) {
    const std::string path = scratch_.File(c.name);
    std::ofstream(path, std::ios::binary) << c.bytes;
    std::filesystem::permissions(
        path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    const PlansRun run = PlansOn(path, {"verify"});
    EXPECT_EQ(run.code, 2) << c.name << ": " << run.out << run.err;
    EXPECT_NE(run.err.find("not a usable plan database"), std::string::npos) << run.err;
    const PlansRun json = PlansOn(path, {"--json", "verify"});
    EXPECT_EQ(json.code, 2);
    EXPECT_EQ(Json(json)["usable"], false) << c.name;
    for (const char* command : {"stats", "ls", "workloads"}) {
      EXPECT_EQ(PlansOn(path, {command}).code, 2) << c.name << " " << command;
    }
    EXPECT_EQ(ReadFile(path), c.bytes) << c.name << " was modified";
  }
  EXPECT_EQ(PlansOn(scratch_.File("missing.db"), {"verify"}).code, 2);
  EXPECT_FALSE(std::filesystem::exists(scratch_.File("missing.db")));
}

TEST_F(PlansVerify, AnotherProgramsDatabaseIsRefused) {
  const std::string path = scratch_.File("foreign.db");
  {
    RawDb raw(path);
    raw.Exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)");
  }
  std::filesystem::permissions(
      path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  const std::string before = ReadFile(path);
  const PlansRun run = PlansOn(path, {"verify"});
  EXPECT_EQ(run.code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("another program"), std::string::npos) << run.err;
  EXPECT_EQ(ReadFile(path), before);
}

// Each page in turn overwritten with 0xFF: every command ends with 0, 1 or 2 and a message for
// anything but 0, never a signal, and verify notices every damaged page.
TEST_F(PlansVerify, DamagedPagesGiveAMessageNotACrash) {
  const std::string whole = ReadFile(Copy());
  const size_t pages = whole.size() / 4096;
  ASSERT_GE(pages, 4u);
  int noticed = 0;
  for (size_t page = 1; page < pages; ++page) {
    std::string damaged = whole;
    std::fill_n(damaged.begin() + static_cast<std::ptrdiff_t>(page * 4096), 4096, '\xff');
    const std::string path = scratch_.File("page-" + std::to_string(page) + ".db");
    std::ofstream(path, std::ios::binary) << damaged;
    std::filesystem::permissions(
        path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    const PlansRun verify = PlansOn(path, {"verify"});
    EXPECT_TRUE(verify.code == 1 || verify.code == 2) << "page " << page << ": " << verify.out;
    noticed += verify.code != 0 ? 1 : 0;
    for (const std::vector<std::string>& command :
         std::vector<std::vector<std::string>>{{"stats"}, {"ls"}, {"show", "2"}}) {
      const PlansRun run = PlansOn(path, command);
      EXPECT_TRUE(run.code >= 0 && run.code <= 2) << "page " << page << " " << command[0];
      if (run.code != 0) {
        EXPECT_FALSE(run.err.empty()) << "page " << page << " " << command[0];
      }
    }
    EXPECT_EQ(ReadFile(path), damaged) << "page " << page << " was modified";
  }
  EXPECT_EQ(noticed, static_cast<int>(pages - 1));
}

// The fixture of schema version 1 (tests/data/plans-v1.db, hand-made rows whose blobs are
// placeholders) opens, lists and verifies without a crash; its placeholder blobs are reported.
TEST_F(PlansVerify, TheReleasedSchemaFixtureIsReadable) {
  const char* data = std::getenv("EMBER_TEST_DATA");
  ASSERT_NE(data, nullptr);
  const std::string fixture =
      CopyDatabase(std::string(data) + "/plans-v1.db", scratch_.File("plans-v1.db"));
  const nlohmann::json stats = Json(PlansOn(fixture, {"stats", "--json"}));
  EXPECT_EQ(stats["schema_version"], 1);
  EXPECT_EQ(stats["plans"], 4);
  EXPECT_EQ(stats["quarantined"], 1);
  EXPECT_EQ(stats["kernels"], 1);
  const PlansRun ls = PlansOn(fixture, {"ls"});
  EXPECT_EQ(ls.code, 0) << ls.err;
  const nlohmann::json verify = Json(PlansOn(fixture, {"verify", "--json"}));
  EXPECT_EQ(verify["integrity"], nlohmann::json::array({"ok"}));
  EXPECT_EQ(verify["quarantined"], 1);
  EXPECT_EQ(verify["plans_checked"], 3);
  EXPECT_EQ(verify["kernels_checked"], 1);
  EXPECT_EQ(verify["healthy"], verify["problems"].empty());
  const PlansRun migrate = PlansOn(fixture, {"migrate"});
  EXPECT_EQ(migrate.code, 0) << migrate.err;
  EXPECT_NE(migrate.out.find("schema version 1 -> 6"), std::string::npos) << migrate.out;
}

}  // namespace
}  // namespace ember::plans_test

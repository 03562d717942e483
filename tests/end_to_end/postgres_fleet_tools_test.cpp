// ember-plans on a fleet's PostgreSQL server (issue 19): copy both ways between a file and the
// server, the workload, migrate, quarantine, verify, gc, export and import commands, and the
// file-only ones that refuse a server; none shows the password (postgres_fleet.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/postgres/pg_connection.h"
#include "store/sqlite/migrations.h"
#include "tests/common/postgres_server.h"
#include "tests/common/process.h"
#include "tests/end_to_end/engine_child.h"
#include "tests/end_to_end/postgres_fleet.h"
#include "tests/store/repository_backends.h"
#include "tests/store/sqlite_test_util.h"

namespace ember::postgres_fleet {
namespace {

// `ember-plans copy` both ways: a file's plans onto a server, where a new host starts warm
// from them, and the server's back into a new file, where another starts warm too. A second
// copy adds nothing.
TEST_F(PostgresFleet, CopyBothWaysRoundTripsToAZeroExplorationStart) {
  const std::string file = dir.File("plans.db");
  const std::string back = dir.File("back.db");
  auto copy = [&](const std::string& from, const std::string& to) {
    return nlohmann::json::parse(RunPlans(dir, {"--json", "copy", from, to}));
  };
  auto env = [](const std::string& db) {
    return std::vector<std::string>{"EMBER_PLAN_DB=" + db, "EMBER_TEST_WORKLOAD=seed"};
  };
  const test::Report cold = test::RunChild(dir.path().string(), env(file));
  const nlohmann::json up = copy(file, uri);
  EXPECT_EQ(up["inserted"], cold.at("plans_published"));
  EXPECT_EQ(up["refused"], 0);
  EXPECT_EQ(up["environments"], 1);
  test::ExpectWarmStart(cold, test::RunChild(dir.path().string(), env(uri)));

  // `stats` reads the server as it reads the file: the same counts on both sides of the copy.
  auto stats = [&](const std::string& db) {
    return nlohmann::json::parse(RunPlans(dir, {"--json", "--db", db, "stats"}));
  };
  const nlohmann::json on_file = stats(file);
  const nlohmann::json on_server = stats(uri);
  EXPECT_EQ(on_server["backend"], "postgresql");
  EXPECT_EQ(on_file["backend"], "sqlite");
  for (const char* key : {"plans", "triggers", "environments", "plan_bytes", "quarantined"}) {
    EXPECT_EQ(on_server[key], on_file[key]) << key;
  }
  EXPECT_EQ(on_server["plans"], cold.at("plans_published"));
  EXPECT_GT(on_server["file_bytes"], 0);
  // ls, show and dot read the server's rows as they read the file's.
  auto plans_json = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--json", "--db", uri});
    return nlohmann::json::parse(RunPlans(dir, args));
  };
  const nlohmann::json listed = plans_json({"ls"});
  ASSERT_EQ(listed.size(), cold.at("plans_published"));
  const std::string first = std::to_string(listed[0]["id"].get<int64_t>());
  EXPECT_EQ(plans_json({"show", first})["id"], listed[0]["id"]);
  EXPECT_FALSE(plans_json({"dot", first})["ops"].empty());

  const nlohmann::json again = copy(file, uri);
  EXPECT_EQ(again["inserted"], 0);
  EXPECT_EQ(again["existing"], cold.at("plans_published"));

  const nlohmann::json down = copy(uri, back);
  EXPECT_EQ(down["inserted"], cold.at("plans_published"));
  test::ExpectWarmStart(cold, test::RunChild(dir.path().string(), env(back)));
}

// The exploration ledger on the server through ember-plans: `workloads` lists what a host
// spent, `set-cap` stops every host exploring, `reset-explorations` gives the budget back.
TEST_F(PostgresFleet, WorkloadCommandsReadAndChangeTheFleetsLedger) {
  auto plans = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--json", "--db", uri});
    return RunPlans(dir, args);
  };
  auto ledger = [&] {
    const nlohmann::json rows = nlohmann::json::parse(plans({"workloads"}));
    for (const nlohmann::json& row : rows) {
      if (row["name"] == "fleetjob") return row;
    }
    ADD_FAILURE() << "no workload fleetjob in " << rows.dump();
    return nlohmann::json::object();
  };
  const test::Report first = test::RunChild(
      dir.path().string(),
      {"EMBER_PLAN_DB=" + uri, "EMBER_TEST_WORKLOAD=seed", "EMBER_WORKLOAD=fleetjob"});
  ASSERT_GT(first.at("explorations"), 0);
  nlohmann::json row = ledger();
  EXPECT_EQ(row["explorations"], first.at("explorations"));
  EXPECT_TRUE(row["max_explorations"].is_null());

  plans({"set-cap", "fleetjob", "0"});
  row = ledger();
  EXPECT_EQ(row["max_explorations"], 0);
  EXPECT_EQ(row["exhausted"], true);

  plans({"reset-explorations", "fleetjob"});
  EXPECT_EQ(ledger()["explorations"], 0);
}

// migrate creates ember's tables on an empty server database (and then has nothing to do);
// quarantine ls and clear run there as on a file.
TEST_F(PostgresFleet, MigrateAndQuarantineCommandsRunOnTheServer) {
  auto plans = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", uri});
    return RunPlans(dir, args);
  };
  const std::string latest = std::to_string(LatestSchemaVersion());
  std::string out = plans({"migrate"});
  EXPECT_NE(out.find("schema version 0 -> " + latest), std::string::npos) << out;
  out = plans({"migrate"});
  EXPECT_NE(out.find("schema version " + latest + " -> " + latest), std::string::npos) << out;

  test::RunChild(dir.path().string(), {"EMBER_PLAN_DB=" + uri, "EMBER_TEST_WORKLOAD=seed"});
  EXPECT_EQ(nlohmann::json::parse(plans({"--json", "quarantine", "ls"})).size(), 0u);
  {
    std::unique_ptr<pg::Connection> conn;
    ASSERT_TRUE(pg::Connection::Open(uri, &conn).ok());
    ASSERT_TRUE(conn->Exec("UPDATE plans SET status = 'quarantined', quarantine_reason = 'test' "
                           "WHERE id = (SELECT MIN(id) FROM plans)",
                           "quarantining a plan")
                    .ok());
  }
  const nlohmann::json quarantined = nlohmann::json::parse(plans({"--json", "quarantine", "ls"}));
  ASSERT_EQ(quarantined.size(), 1u) << quarantined.dump();
  EXPECT_EQ(quarantined[0]["reason"], "test");
  EXPECT_NE(plans({"quarantine", "clear"}).find("deleted 1 quarantined plan(s)"),
            std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(plans({"--json", "quarantine", "ls"})).size(), 0u);
}

// verify, gc, export and import on the server: verify finds what is wrong in the server's rows
// (a damaged plan, an orphan written with the foreign keys off), export carries the server's
// plans into a bundle from which a file starts warm, import brings a bundle onto another server
// database where a host starts warm, and gc evicts from the server.
TEST_F(PostgresFleet, VerifyGcExportAndImportRunOnTheServer) {
  auto env = [](const std::string& db) {
    return std::vector<std::string>{"EMBER_PLAN_DB=" + db, "EMBER_TEST_WORKLOAD=seed"};
  };
  auto json = [&](const std::string& db, std::vector<std::string> args) {
    args.insert(args.begin(), {"--json", "--db", db});
    return nlohmann::json::parse(RunPlans(dir, args));
  };
  const test::Report cold = test::RunChild(dir.path().string(), env(uri));
  const int64_t published = cold.at("plans_published");
  ASSERT_GT(published, 0);

  nlohmann::json verified = json(uri, {"verify"});
  EXPECT_EQ(verified["backend"], "postgresql");
  EXPECT_EQ(verified["healthy"], true) << verified.dump();
  EXPECT_TRUE(verified["integrity"].is_null());
  EXPECT_EQ(verified["plans_checked"], published);

  // The bundle from the server: a new file starts warm from it.
  const nlohmann::json exported = json(uri, {"export", dir.File("fleet.bundle")});
  EXPECT_EQ(exported["plans"], published);
  const std::string file = dir.File("from-bundle.db");
  const nlohmann::json into_file = json(file, {"import", dir.File("fleet.bundle")});
  EXPECT_EQ(into_file["inserted"], published);
  test::ExpectWarmStart(cold, test::RunChild(dir.path().string(), env(file)));
  // ... and so does a host of another server database it is imported into.
  const std::string other = test::FreshPostgresDatabase(*server);
  const nlohmann::json into_server = json(other, {"import", dir.File("fleet.bundle")});
  EXPECT_EQ(into_server["inserted"], published);
  EXPECT_EQ(into_server["segments_invalidated"], 0);
  test::ExpectWarmStart(cold, test::RunChild(dir.path().string(), env(other)));
  EXPECT_EQ(json(other, {"import", dir.File("fleet.bundle")})["existing"], published);

  // Damage on the server: a plan's bytes changed, and a trigger of no plan, written with the
  // foreign keys off (as pg_restore --disable-triggers writes).
  {
    std::unique_ptr<pg::Connection> conn;
    ASSERT_TRUE(pg::Connection::Open(uri, &conn).ok());
    ASSERT_TRUE(conn->Exec("UPDATE plans SET plan_blob = plan_blob || '\\x00'::bytea WHERE id = "
                           "(SELECT MIN(id) FROM plans)",
                           "damaging a plan")
                    .ok());
    ASSERT_TRUE(conn->Exec("SET session_replication_role = replica", "foreign keys off").ok());
    ASSERT_TRUE(conn->Exec("INSERT INTO triggers (plan_id, position, kind, ops_blob) VALUES "
                           "(987654, 0, 0, '\\x00'::bytea)",
                           "writing an orphan")
                    .ok());
  }
  std::string out;
  std::string err;
  EXPECT_EQ(RunPlansFor(dir, {"--json", "--db", uri, "verify"}, &out, &err), 1) << err;
  verified = nlohmann::json::parse(out);
  EXPECT_EQ(verified["healthy"], false);
  std::string problems;
  for (const nlohmann::json& p : verified["problems"]) {
    problems += p["where"].get<std::string>() + ": " + p["what"].get<std::string>() + "\n";
  }
  EXPECT_NE(problems.find("triggers.plan_id = 987654 refers to a missing plans row"),
            std::string::npos)
      << problems;
  EXPECT_NE(problems.find("plan "), std::string::npos) << problems;

  // gc on the server: a dry run names every plan over --max-bytes 0 and deletes none; the real
  // run empties the server's plans.
  const nlohmann::json dry = json(uri, {"gc", "--dry-run", "--max-bytes", "0"});
  EXPECT_EQ(dry["evicted"].size(), static_cast<size_t>(published));
  EXPECT_EQ(json(uri, {"stats"})["plans"], published);
  json(uri, {"gc", "--max-bytes", "0"});
  EXPECT_EQ(json(uri, {"stats"})["plans"], 0);
}

// vacuum, for SQLite files only, refuses a server and says what a server does instead; commands
// that read servers say an unreachable one cannot be reached. None shows the password.
TEST(PostgresFleetTools, FileOnlyCommandsRefuseAServerAndNoneShowsThePassword) {
  sqlite_test::TempDir dir;
  const std::string uri = "postgresql://ember:hunter2@127.0.0.1:1/plans";
  std::string out;
  std::string err;
  EXPECT_EQ(RunPlansFor(dir, {"--db", uri, "vacuum"}, &out, &err), 1);
  EXPECT_NE(err.find("autovacuum"), std::string::npos) << err;
  EXPECT_EQ(err.find("hunter2"), std::string::npos) << err;
  for (const char* command : {"stats", "verify", "export"}) {
    std::vector<std::string> args = {"--db", uri, command};
    if (std::string_view(command) == "export") args.push_back(dir.File("x.bundle"));
    EXPECT_NE(RunPlansFor(dir, args, &out, &err), 0) << command;
    EXPECT_NE(err.find("127.0.0.1"), std::string::npos) << command << ": " << err;
    EXPECT_EQ(err.find("hunter2"), std::string::npos) << command << ": " << err;
    EXPECT_EQ(out.find("hunter2"), std::string::npos) << command << ": " << out;
  }
}

}  // namespace
}  // namespace ember::postgres_fleet

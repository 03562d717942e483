// Hosts that share nothing but a PostgreSQL server (issue 19): each "host" is a process of its
// own (this test binary re-executed, the shared-memory tier off, its own scratch directory),
// and the second starts warm from what the first found, with zero explorations. The ember-plans
// commands on such a server: postgres_fleet_tools_test.cpp.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/postgres/pg_connection.h"
#include "store/shm/shared_segment.h"
#include "tests/common/postgres_server.h"
#include "tests/common/process.h"
#include "tests/end_to_end/engine_child.h"
#include "tests/end_to_end/postgres_fleet.h"
#include "tests/store/sqlite_test_util.h"

namespace ember::postgres_fleet {
namespace {

TEST_F(PostgresFleet, ASecondHostStartsWarmFromTheFirstHostsPlans) {
  sqlite_test::TempDir host_a, host_b;
  const std::vector<std::string> env = {"EMBER_PLAN_DB=" + uri, "EMBER_TEST_WORKLOAD=seed"};
  const test::Report cold = test::RunChild(host_a.path().string(), env);
  EXPECT_GT(cold.at("plans_published"), 0);
  const test::Report warm = test::RunChild(host_b.path().string(), env);
  test::ExpectWarmStart(cold, warm);
  // Nothing of the plan database is on either host's disk.
  for (const auto* dir : {&host_a, &host_b}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir->path())) {
      EXPECT_EQ(entry.path().filename().string().rfind("report-", 0), 0u) << entry.path();
    }
  }
}

// Eight hosts start together on one server with a budget of four explorations for their
// workload: between them they explore exactly four times, and every result is still right
// (the segments beyond the budget run unfused).
TEST_F(PostgresFleet, EightHostsShareOneExplorationBudget) {
  // "many": sixteen distinct segments, far more than the budget.
  const std::vector<std::string> env = {"EMBER_PLAN_DB=" + uri, "EMBER_TEST_WORKLOAD=many",
                                        "EMBER_WORKLOAD=fleet", "EMBER_MAX_EXPLORATIONS=4"};
  const test::Report alone =
      test::RunChild(dir.path().string(), {"EMBER_PLAN_DB=off", "EMBER_TEST_WORKLOAD=many"});
  std::vector<test::Child> hosts;
  for (int i = 0; i < 8; ++i) hosts.push_back(test::SpawnChild(dir.path().string(), env));
  double explored = 0;
  for (const test::Child& host : hosts) {
    const test::Report report = test::Collect(host);
    explored += report.at("explorations");
    EXPECT_EQ(report.at("checksum"), alone.at("checksum"));
  }
  EXPECT_EQ(explored, 4);
  std::unique_ptr<pg::Connection> conn;
  ASSERT_TRUE(pg::Connection::Open(uri, &conn).ok());
  pg::Result r;
  ASSERT_TRUE(
      conn->Exec("SELECT explorations FROM workloads WHERE name = 'fleet'", "reading", &r).ok());
  ASSERT_EQ(r.rows(), 1);
  EXPECT_EQ(r.Int64(0, 0), 4);
}

// The shared-memory tier in front of the server on each host: host B's first worker reads the
// plans host A published from the server, and its second worker gets them from the segment
// the first filled, without asking the server. (Two hosts on one machine: their URIs differ in
// application_name, so their segments, named after the location, differ too.)
TEST_F(PostgresFleet, EachHostsWorkersReadTheServerOnceBetweenThem) {
  const std::string host_a = uri + "?application_name=host_a";
  const std::string host_b = uri + "?application_name=host_b";
  struct RemoveSegments {
    std::vector<std::string> locations;
    ~RemoveSegments() {
      for (const std::string& location : locations) SharedSegment::RemoveAll(location);
    }
  } cleanup{{host_a, host_b}};
  sqlite_test::TempDir dir;
  auto env = [](const std::string& location) {
    return std::vector<std::string>{"EMBER_PLAN_DB=" + location, "EMBER_TEST_WORKLOAD=seed",
                                    "EMBER_SHM=on"};
  };
  const test::Report a = test::RunChild(dir.path().string(), env(host_a));
  EXPECT_GT(a.at("plans_published"), 0);
  const test::Report b1 = test::RunChild(dir.path().string(), env(host_b));
  test::ExpectWarmStart(a, b1);
  EXPECT_EQ(b1.at("plans_loaded_from_shm"), 0);
  const test::Report b2 = test::RunChild(dir.path().string(), env(host_b));
  EXPECT_EQ(b2.at("explorations"), 0);
  EXPECT_EQ(b2.at("plans_loaded_from_db"), 0);
  EXPECT_EQ(b2.at("plans_loaded_from_shm"), b1.at("plans_loaded_from_db"));
  EXPECT_EQ(b2.at("cache_hits_from_shm"), b2.at("cache_hits"));
  EXPECT_EQ(b2.at("checksum"), a.at("checksum"));
}

// A slow server (here: one whose plans table is locked against inserts) does not stall a host:
// its syncs do not wait for the server, so it computes its whole workload while nothing it
// found can be written; once the server lets the writes through, what the host queued — all of
// it written while the host exits (the writer drains its queue in an atexit handler) — reaches
// the server as it reaches a file. (The NOTIFY payload once used a function-local static
// string destroyed by then: the server refused those writes as invalid UTF-8 and the plans were
// lost; and every sync waited for the server's commit.)
TEST_F(PostgresFleet, ASlowServerStallsNoHostAndWhatItQueuedReachesTheServerAtExit) {
  const std::string file = dir.File("plans.db");
  const test::Report on_file =
      test::RunChild(dir.path().string(), {"EMBER_PLAN_DB=" + file, "EMBER_TEST_WORKLOAD=seed"});
  RunPlans(dir, {"--db", uri, "migrate"});  // the tables exist before the lock is taken

  std::unique_ptr<pg::Connection> blocker;
  ASSERT_TRUE(pg::Connection::Open(uri, &blocker).ok());
  ASSERT_TRUE(
      blocker->ExecScript("BEGIN; LOCK TABLE plans IN SHARE ROW EXCLUSIVE MODE", "blocking inserts")
          .ok());
  const std::string err = dir.File("host.err");
  const test::Child host = test::SpawnChild(
      dir.path().string(),
      {"EMBER_PLAN_DB=" + uri, "EMBER_TEST_WORKLOAD=seed", "EMBER_TEST_NO_FLUSH=1"}, err);
  // The report is written when the workload is done, with every insert still blocked.
  bool reported = false;
  for (int i = 0; i < 2400 && !reported; ++i) {
    reported = test::ReadFile(host.out).find("rows_quarantined") != std::string::npos;
    if (!reported) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  EXPECT_TRUE(reported) << "the host waited for the locked server";
  ASSERT_TRUE(blocker->ExecScript("COMMIT", "unblocking inserts").ok());
  const test::Report report = test::Collect(host);
  EXPECT_EQ(report.at("checksum"), on_file.at("checksum"));
  EXPECT_EQ(report.at("explorations"), on_file.at("explorations"));
  EXPECT_EQ(test::ReadFile(err).find("failed"), std::string::npos) << test::ReadFile(err);
  auto stored = [&](const std::string& db) {
    return nlohmann::json::parse(RunPlans(dir, {"--json", "--db", db, "stats"}))["plans"];
  };
  EXPECT_GT(stored(uri), 0);
  EXPECT_EQ(stored(uri), stored(file));
}

// A host whose role may only SELECT ember's tables starts warm from the fleet's plans, says
// once that it stores nothing (naming what the role lacks), computes right results, and
// writes nothing; the tools refuse changes there with the same reason.
TEST_F(PostgresFleet, AHostWithASelectOnlyRoleStartsWarmAndWritesNothing) {
  const test::Report cold =
      test::RunChild(dir.path().string(), {"EMBER_PLAN_DB=" + uri, "EMBER_TEST_WORKLOAD=seed"});
  const std::string role = "reader_" + std::to_string(getpid());
  {
    std::unique_ptr<pg::Connection> admin;
    ASSERT_TRUE(pg::Connection::Open(uri, &admin).ok());
    ASSERT_TRUE(admin
                    ->ExecScript("DROP ROLE IF EXISTS " + role + "; CREATE ROLE " + role +
                                     " LOGIN; GRANT SELECT ON ALL TABLES IN SCHEMA public TO " +
                                     role,
                                 "creating a read-only role")
                    .ok());
  }
  std::string reader_uri = uri;
  reader_uri.replace(reader_uri.find("://") + 3, reader_uri.find('@') - reader_uri.find("://") - 3,
                     role);
  const int64_t before =
      nlohmann::json::parse(RunPlans(dir, {"--json", "--db", uri, "stats"}))["plans"];

  const std::string err = dir.File("reader.err");
  const test::Report warm = test::RunChild(
      dir.path().string(), {"EMBER_PLAN_DB=" + reader_uri, "EMBER_TEST_WORKLOAD=seed"}, err);
  test::ExpectWarmStart(cold, warm);
  const std::string log = test::ReadFile(err);
  EXPECT_NE(log.find("may only read"), std::string::npos) << log;
  EXPECT_EQ(log.find("failed"), std::string::npos) << log;
  // A workload this role meets first: it explores in memory, and stores nothing.
  const test::Report other = test::RunChild(
      dir.path().string(), {"EMBER_PLAN_DB=" + reader_uri, "EMBER_TEST_WORKLOAD=shapes"},
      dir.File("shapes.err"));
  EXPECT_GT(other.at("explorations"), 0);
  EXPECT_EQ(other.at("plans_published"), 0);
  EXPECT_EQ(test::ReadFile(dir.File("shapes.err")).find("failed"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(RunPlans(dir, {"--json", "--db", uri, "stats"}))["plans"],
            before);

  std::string out;
  std::string tool_err;
  EXPECT_NE(RunPlansFor(dir, {"--db", reader_uri, "set-cap", "default", "3"}, &out, &tool_err), 0);
  EXPECT_NE(tool_err.find("may only read"), std::string::npos) << tool_err;
}

// A host that is already running hears of the plans another host publishes (LISTEN/NOTIFY):
// host B has met every first op of the workload, has no plans and may not explore (its budget
// is zero), so it runs unfused; host A then explores and publishes; B's next segments run A's
// plans, read because the server announced them, without B exploring once.
TEST_F(PostgresFleet, ARunningHostHearsOfPlansAnotherHostPublishes) {
  const std::string ready = dir.File("b-ready");
  const test::Child b =
      test::SpawnChild(dir.path().string(), {"EMBER_PLAN_DB=" + uri, "EMBER_TEST_WORKLOAD=seed",
                                             "EMBER_WORKLOAD=listener", "EMBER_MAX_EXPLORATIONS=0",
                                             "EMBER_TEST_READY=" + ready});
  ASSERT_TRUE(AppearsWithin30s(ready)) << "host B never finished its first run";
  const test::Report a = test::RunChild(
      dir.path().string(),
      {"EMBER_PLAN_DB=" + uri, "EMBER_TEST_WORKLOAD=seed", "EMBER_WORKLOAD=explorer"});
  EXPECT_GT(a.at("plans_published"), 0);
  const test::Report heard = test::Collect(b);
  EXPECT_EQ(heard.at("explorations"), 0);
  EXPECT_GT(heard.at("cache_hits_from_db"), 0);
  EXPECT_GT(heard.at("plans_loaded_on_notify"), 0);
  EXPECT_EQ(heard.at("plans_loaded_on_notify"), heard.at("plans_loaded_from_db"));
  EXPECT_EQ(heard.at("plans_published"), 0);
  EXPECT_EQ(heard.at("checksum"), a.at("checksum"));
}

// The server stops and starts again under a running host: the host keeps computing right
// results meanwhile (here unfused: it may not explore), says so without a flood of lines, and
// once the server is back it finds the plans another host publishes there — heard by NOTIFY on
// its reconnected listener, or read when the listener reads every first op it has met again.
TEST_F(PostgresFleet, ARunningHostOutlivesAServerRestartAndThenUsesTheFleetsPlans) {
  const std::string ready = dir.File("b-ready");
  const std::string err = dir.File("b.err");
  const test::Child b = test::SpawnChild(
      dir.path().string(),
      {"EMBER_PLAN_DB=" + uri, "EMBER_TEST_WORKLOAD=seed", "EMBER_WORKLOAD=listener",
       "EMBER_MAX_EXPLORATIONS=0", "EMBER_TEST_READY=" + ready},
      err);
  ASSERT_TRUE(AppearsWithin30s(ready)) << "host B never finished its first run";
  ASSERT_TRUE(server->Stop());
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // B runs on without the server
  ASSERT_TRUE(server->Restart());
  const test::Report a = test::RunChild(
      dir.path().string(),
      {"EMBER_PLAN_DB=" + uri, "EMBER_TEST_WORKLOAD=seed", "EMBER_WORKLOAD=explorer"});
  EXPECT_GT(a.at("plans_published"), 0);
  const test::Report heard = test::Collect(b);
  EXPECT_EQ(heard.at("explorations"), 0);
  EXPECT_GT(heard.at("cache_hits_from_db"), 0) << test::ReadFile(err);
  EXPECT_EQ(heard.at("plans_published"), 0);
  EXPECT_EQ(heard.at("checksum"), a.at("checksum"));
  const std::string log = test::ReadFile(err);
  EXPECT_LE(std::count(log.begin(), log.end(), '\n'), 6) << log;
}

// A host started while its server is down computes from memory and connects again with
// backoff; once the server is back, what it found meanwhile (its plans, and its explorations in
// the fleet's ledger) is stored there, and a new host starts warm from it.
TEST_F(PostgresFleet, AHostStartedWhileTheServerIsDownStoresItsPlansOnceItIsBack) {
  RunPlans(dir, {"--db", uri, "migrate"});
  ASSERT_TRUE(server->Stop());
  const std::string ready = dir.File("b-ready");
  const std::string err = dir.File("b.err");
  const test::Child b =
      test::SpawnChild(dir.path().string(),
                       {"EMBER_PLAN_DB=" + uri, "EMBER_TEST_WORKLOAD=seed", "EMBER_WORKLOAD=late",
                        "EMBER_TEST_UNTIL_STORED=" + ready},
                       err);
  ASSERT_TRUE(AppearsWithin30s(ready)) << "host B never finished its first run";
  ASSERT_TRUE(server->Restart());
  const test::Report late = test::Collect(b);
  const std::string log = test::ReadFile(err);
  EXPECT_GT(late.at("explorations"), 0);
  EXPECT_GT(late.at("plans_published"), 0) << log;
  EXPECT_NE(log.find("connects again with backoff"), std::string::npos) << log;
  EXPECT_NE(log.find("reachable; storing the"), std::string::npos) << log;
  EXPECT_EQ(log.find("hunter2"), std::string::npos);

  const nlohmann::json rows =
      nlohmann::json::parse(RunPlans(dir, {"--json", "--db", uri, "workloads"}));
  ASSERT_EQ(rows.size(), 1u) << rows.dump();
  EXPECT_EQ(rows[0]["name"], "late");
  EXPECT_EQ(rows[0]["explorations"], late.at("explorations"));

  const test::Report warm =
      test::RunChild(dir.path().string(), {"EMBER_PLAN_DB=" + uri, "EMBER_TEST_WORKLOAD=seed"});
  EXPECT_EQ(warm.at("explorations"), 0);
  EXPECT_GT(warm.at("plans_loaded_from_db"), 0);
  EXPECT_EQ(warm.at("cache_hits_from_db"), warm.at("cache_hits"));
  EXPECT_EQ(warm.at("checksum"), late.at("checksum"));
}

}  // namespace
}  // namespace ember::postgres_fleet

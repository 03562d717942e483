// Hosts that share nothing but a PostgreSQL server (issue 19): each "host" is a process of its
// own (this test binary re-executed, the shared-memory tier off, its own scratch directory),
// and the second starts warm from what the first found, with zero explorations.
#include <gtest/gtest.h>

#include "tests/common/postgres_server.h"
#include "tests/end_to_end/engine_child.h"
#include "tests/store/repository_backends.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

TEST(PostgresFleet, ASecondHostStartsWarmFromTheFirstHostsPlans) {
  std::string why;
  test::PostgresServer* server = test::SharedPostgres(&why);
  if (server == nullptr) GTEST_SKIP() << "no PostgreSQL server: " << why;
  const std::string uri = test::FreshPostgresDatabase(*server);
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
TEST(PostgresFleet, EightHostsShareOneExplorationBudget) {
  std::string why;
  test::PostgresServer* server = test::SharedPostgres(&why);
  if (server == nullptr) GTEST_SKIP() << "no PostgreSQL server: " << why;
  const std::string uri = test::FreshPostgresDatabase(*server);
  sqlite_test::TempDir dir;
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

}  // namespace
}  // namespace ember

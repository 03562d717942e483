// The PostgreSQL test server itself (tests/common/postgres_server.h): that it starts, takes SQL
// over its socket, stops, keeps its data across a restart, leaves nothing behind, and says why
// when it cannot start.
#include "tests/common/postgres_server.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "tests/common/process.h"

namespace ember::test {
namespace {

TEST(PostgresServer, StartsAcceptsSqlAndStops) {
  EMBER_REQUIRE_POSTGRES(server);
  bool ok = false;
  EXPECT_EQ(server->Psql("SELECT 1", &ok), "1\n");
  EXPECT_TRUE(ok);
  const std::string port = std::to_string(server->port());
  EXPECT_GT(server->port(), 0);
  EXPECT_EQ(server->user(), "ember");
  EXPECT_NE(server->uri().find(":" + port + "/ember"), std::string::npos) << server->uri();
  EXPECT_NE(server->socket_uri().find("port=" + port), std::string::npos) << server->socket_uri();
  EXPECT_NE(server->socket_uri().find(server->directory()), std::string::npos);
  EXPECT_TRUE(server->Stop());
  server->Psql("SELECT 1", &ok);
  EXPECT_FALSE(ok) << "psql still reaches a stopped server";
}

TEST(PostgresServer, RestartKeepsData) {
  EMBER_REQUIRE_POSTGRES(server);
  bool ok = false;
  server->Psql("CREATE TABLE t(x int); INSERT INTO t VALUES (42);", &ok);
  ASSERT_TRUE(ok);
  ASSERT_TRUE(server->Restart());
  EXPECT_EQ(server->Psql("SELECT x FROM t", &ok), "42\n");
  EXPECT_TRUE(ok);
}

TEST(PostgresServer, ReportsSqlErrors) {
  EMBER_REQUIRE_POSTGRES(server);
  bool ok = true;
  const std::string err = server->Psql("SELECT * FROM no_such_table", &ok);
  EXPECT_FALSE(ok);
  EXPECT_NE(err.find("no_such_table"), std::string::npos) << err;
}

TEST(PostgresServer, DestructorRemovesTheDirectory) {
  EMBER_REQUIRE_POSTGRES(server);
  const std::string directory = server->directory();
  ASSERT_TRUE(std::filesystem::exists(directory));
  server.reset();
  EXPECT_FALSE(std::filesystem::exists(directory));
}

// A test process that dies without its destructors (SIGKILL here; a crash, a timeout or a
// SIGPIPE alike) still leaves no server running and no directory: the watchdog cleans up.
TEST(PostgresServer, AKilledOwnerLeavesNothingBehind) {
  const std::string report =
      std::filesystem::temp_directory_path() / ("ember-pg-owner-" + std::to_string(getpid()));
  const pid_t owner = ForkChild([&] {
    std::string why_not;
    std::unique_ptr<PostgresServer> server = PostgresServer::Start(&why_not);
    std::ofstream(report) << (server ? server->directory() : std::string("-"));
    if (server == nullptr) return 3;
    raise(SIGKILL);
    return 4;  // not reached
  });
  const int code = WaitChild(owner);
  std::string directory;
  std::ifstream(report) >> directory;
  std::filesystem::remove(report);
  if (code == 3) GTEST_SKIP() << "no PostgreSQL server could start";
  ASSERT_EQ(code, kKilledBySignal + SIGKILL);
  ASSERT_FALSE(directory.empty());
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = !std::filesystem::exists(directory);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(gone) << directory << " is still there after 10 s";
}

TEST(PostgresServer, ReportsWhyWhenBinariesAreMissing) {
  setenv("EMBER_TEST_PG_BIN", "/nonexistent", /*overwrite=*/1);
  std::string why_not;
  const std::unique_ptr<PostgresServer> server = PostgresServer::Start(&why_not);
  unsetenv("EMBER_TEST_PG_BIN");
  EXPECT_EQ(server, nullptr);
  EXPECT_NE(why_not.find("/nonexistent"), std::string::npos) << why_not;
}

}  // namespace
}  // namespace ember::test

// What the PostgreSQL fleet tests (postgres_fleet_test.cpp: hosts; postgres_fleet_tools_test.cpp:
// ember-plans on the server) share: the fixture (the test binary's server, a fresh database on it
// and a scratch directory), running ember-plans, and waiting for a running host's signal file.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tests/common/postgres_server.h"
#include "tests/common/process.h"
#include "tests/store/repository_backends.h"
#include "tests/store/sqlite_test_util.h"

namespace ember::postgres_fleet {

// Runs ember-plans with `args` in `dir`, expecting exit 0 (stderr shown otherwise); its stdout.
inline std::string RunPlans(const sqlite_test::TempDir& dir, const std::vector<std::string>& args) {
  const std::string out = dir.File("plans.out");
  const pid_t pid =
      test::Spawn(EMBER_PLANS_BINARY, args, {.out_file = out, .err_file = dir.File("plans.err")});
  EXPECT_EQ(test::WaitChild(pid), 0) << test::ReadFile(dir.File("plans.err"));
  return test::ReadFile(out);
}

// Runs ember-plans with `args` in `dir`; its exit code, with stdout in *out and stderr in *err.
inline int RunPlansFor(const sqlite_test::TempDir& dir, const std::vector<std::string>& args,
                       std::string* out, std::string* err) {
  const pid_t pid =
      test::Spawn(EMBER_PLANS_BINARY, args,
                  {.out_file = dir.File("plans.out"), .err_file = dir.File("plans.err")});
  const int code = test::WaitChild(pid);
  *out = test::ReadFile(dir.File("plans.out"));
  *err = test::ReadFile(dir.File("plans.err"));
  return code;
}

// Whether the file `path` exists within 30 s (a running host says it got somewhere).
inline bool AppearsWithin30s(const std::string& path) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!std::filesystem::exists(path) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return std::filesystem::exists(path);
}

// Each test: the test binary's server (started on first use; the tests skip, saying why, where
// none can start) with a fresh database `uri` on it, and a scratch directory `dir`.
class PostgresFleet : public testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    server = test::SharedPostgres(&why);
    if (server == nullptr) GTEST_SKIP() << "no PostgreSQL server: " << why;
    uri = test::FreshPostgresDatabase(*server);
  }

  test::PostgresServer* server = nullptr;
  std::string uri;
  sqlite_test::TempDir dir;
};

}  // namespace ember::postgres_fleet

// A plan database for a test, the one fixture of the SQLite suites: a fresh file in a scratch
// directory, its PlanRepository open and one environment in it. Also what the fixture is made
// of, for tests that open repositories of their own: the options a test opens with, and the
// sample environment.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

#include "store/codec/environment_fingerprint.h"
#include "store/sqlite/sqlite_plan_repository.h"
#include "tests/common/temp_dir.h"

namespace ember::test {

inline PlanDbOptions OptionsFor(const std::string& path) {
  PlanDbOptions options;
  options.path = path;
  options.network_filesystem = false;  // Test dirs may live anywhere; WAL is what is tested.
  return options;
}

// The repository of the database `path` (created when missing); a test failure, and null,
// when it cannot be opened.
inline std::unique_ptr<SqlitePlanRepository> OpenRepository(const std::string& path) {
  std::unique_ptr<SqlitePlanRepository> repo;
  const Status s = SqlitePlanRepository::Open(OptionsFor(path), &repo);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return repo;
}

inline EnvironmentFingerprint SampleEnvironment(std::string device = "Test CPU") {
  return {.engine_version = "0.1.0",
          .schema_version = 1,
          .backend = "cpu",
          .device_model = std::move(device),
          .compute_capability = "",
          .fusers = {{"elementwise", 1}, {"matmul", 1}, {"reduce", 1}},
          .max_blocks = 5};
}

// path_ is a new database with SampleEnvironment() in it as env_, open as repo_.
class RepositoryFixture : public testing::Test {
 protected:
  void SetUp() override { Reopen(); }

  // Closes repo_ and opens the file again, as the next process would.
  void Reopen() {
    repo_.reset();
    repo_ = OpenRepository(path_);
    ASSERT_NE(repo_, nullptr);
    ASSERT_TRUE(repo_->EnsureEnvironment(SampleEnvironment(), &env_).ok());
  }

  TempDir dir_;
  std::string path_ = dir_.File("plans.db");
  std::unique_ptr<SqlitePlanRepository> repo_;
  EnvironmentRowId env_ = 0;
};

}  // namespace ember::test

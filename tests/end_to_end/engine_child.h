// The engine children of the end-to-end plan-store tests: this test binary re-executed as
// DISABLED_PlanDatabaseChild.Run (tests/end_to_end/plan_database_test.cpp, through
// test::SpawnTestChild), which runs the workload named by EMBER_TEST_WORKLOAD on the database
// named by EMBER_PLAN_DB and writes "name value" lines (its ember::Stats and a checksum) to
// EMBER_TEST_OUT.
#pragma once

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/common/process.h"

namespace ember::test {

using Report = std::map<std::string, double>;

struct Child {
  pid_t pid = 0;
  std::string out;
};

// Starts a child with `env` added to this process's environment (minus its EMBER_ settings).
// The shared-memory tier is off unless `env` sets EMBER_SHM: segments outlive processes, and
// the SQLite tests must read SQLite. With `err_file`, the child's stderr goes there.
inline Child SpawnChild(const std::string& dir, const std::vector<std::string>& env,
                        const std::string& err_file = "") {
  static int runs = 0;
  Child child{.out = dir + "/report-" + std::to_string(runs++) + ".txt"};
  std::vector<std::string> extra = {"EMBER_TEST_OUT=" + child.out};
  extra.insert(extra.end(), env.begin(), env.end());
  child.pid = SpawnTestChild("DISABLED_PlanDatabaseChild.Run", extra, {.err_file = err_file});
  return child;
}

// Waits for the child and returns its report.
// The "name value" lines of a child's report file (empty when it wrote none).
inline Report ReadReport(const std::string& file) {
  Report report;
  std::ifstream in(file);
  std::string key;
  double value = 0;
  while (in >> key >> value) report[key] = value;
  return report;
}

inline Report Collect(const Child& child) {
  const int code = WaitChild(child.pid);
  EXPECT_EQ(code, 0) << "the child ended with " << code;
  Report report = ReadReport(child.out);
  EXPECT_FALSE(report.empty()) << "the child wrote no report";
  return report;
}

// `warm`, a run after the `cold` one on its database, explored nothing: every hit ran a plan
// read from the database, nothing new was stored, and the results are the cold run's.
inline void ExpectWarmStart(const Report& cold, const Report& warm) {
  EXPECT_GT(cold.at("explorations"), 0);
  EXPECT_EQ(warm.at("explorations"), 0);
  EXPECT_GT(warm.at("plans_loaded_from_db"), 0);
  EXPECT_EQ(warm.at("plans_published"), 0);
  EXPECT_GT(warm.at("cache_hits"), 0);
  EXPECT_EQ(warm.at("cache_hits_from_db"), warm.at("cache_hits"));
  EXPECT_EQ(warm.at("fused_executions"), cold.at("fused_executions"));
  EXPECT_EQ(warm.at("checksum"), cold.at("checksum"));
}

inline Report RunChild(const std::string& dir, const std::vector<std::string>& env,
                       const std::string& err_file = "") {
  return Collect(SpawnChild(dir, env, err_file));
}

}  // namespace ember::test

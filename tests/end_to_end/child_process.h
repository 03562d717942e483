// Child processes for the end-to-end plan-store tests: this test binary re-executed with
// --gtest_filter=DISABLED_PlanDatabaseChild.Run (tests/end_to_end/plan_database_test.cpp), which
// runs the workload named by EMBER_TEST_WORKLOAD on the database named by EMBER_PLAN_DB and
// writes "name value" lines (its ember::Stats and a checksum) to EMBER_TEST_OUT.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

extern char** environ;

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
  std::vector<std::string> strings = {"/proc/self/exe",
                                      "--gtest_filter=DISABLED_PlanDatabaseChild.Run",
                                      "--gtest_also_run_disabled_tests"};
  std::vector<std::string> environment;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (entry.rfind("EMBER_", 0) == 0 && entry.rfind("EMBER_TEST_DATA", 0) != 0) continue;
    environment.push_back(entry);
  }
  environment.push_back("EMBER_TEST_OUT=" + child.out);
  bool shm_set = false;
  for (const std::string& e : env) {
    environment.push_back(e);
    shm_set = shm_set || e.rfind("EMBER_SHM=", 0) == 0;
  }
  if (!shm_set) environment.push_back("EMBER_SHM=off");
  std::vector<char*> argv, envp;
  for (std::string& s : strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  for (std::string& s : environment) envp.push_back(s.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!err_file.empty()) {
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_file.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
  }
  EXPECT_EQ(posix_spawn(&child.pid, "/proc/self/exe", &actions, nullptr, argv.data(), envp.data()),
            0);
  posix_spawn_file_actions_destroy(&actions);
  return child;
}

// Waits for the child and returns its report.
inline Report Collect(const Child& child) {
  int status = 0;
  EXPECT_EQ(waitpid(child.pid, &status, 0), child.pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  Report report;
  std::ifstream in(child.out);
  std::string key;
  double value = 0;
  while (in >> key >> value) report[key] = value;
  EXPECT_FALSE(report.empty()) << "the child wrote no report";
  return report;
}

// `warm`, a run after the `cold` one on its database, explored nothing: every hit ran a plan
// read from the database, nothing new was stored, and the results are the cold run's.
inline void ExpectWarmStart(const Report& cold, const Report& warm) {
  EXPECT_GT(cold.at("explorations"), 0);
  EXPECT_EQ(warm.at("explorations"), 0);
  EXPECT_GT(warm.at("plans_loaded_from_sqlite"), 0);
  EXPECT_EQ(warm.at("plans_published"), 0);
  EXPECT_GT(warm.at("cache_hits"), 0);
  EXPECT_EQ(warm.at("cache_hits_from_sqlite"), warm.at("cache_hits"));
  EXPECT_EQ(warm.at("fused_executions"), cold.at("fused_executions"));
  EXPECT_EQ(warm.at("checksum"), cold.at("checksum"));
}

inline Report RunChild(const std::string& dir, const std::vector<std::string>& env,
                       const std::string& err_file = "") {
  return Collect(SpawnChild(dir, env, err_file));
}

}  // namespace ember::test

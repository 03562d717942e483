// Helpers for the ember-plans tests: the real ember-plans binary (EMBER_PLANS_BINARY) run as a
// child process with its output captured, and real plan databases written by the real engine
// (this test binary re-executed as DISABLED_PlansEngineChild.Run, engine_child_test.cpp), plus
// the raw SQLite access that damages copies the way a bit flip or another program would.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/common/temp_dir.h"
#include "tests/store/sqlite_test_util.h"

extern char** environ;

namespace ember::plans_test {

using ::ember::test::TempDir;

struct PlansRun {
  int code = -1;
  std::string out;
  std::string err;
};

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// This process's environment without EMBER_ settings (but EMBER_TEST_DATA), plus `extra`.
inline std::vector<std::string> ChildEnvironment(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (entry.rfind("EMBER_", 0) == 0 && entry.rfind("EMBER_TEST_DATA", 0) != 0) continue;
    if (entry.rfind("NO_COLOR", 0) == 0) continue;
    env.push_back(entry);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

// Starts `program` with `args` and `env`; stdout/stderr go to the given files (or inherit).
inline pid_t Spawn(const std::string& program, const std::vector<std::string>& args,
                   const std::vector<std::string>& env, const std::string& out_file = "",
                   const std::string& err_file = "") {
  std::vector<std::string> strings = {program};
  strings.insert(strings.end(), args.begin(), args.end());
  std::vector<std::string> environment = env;
  std::vector<char*> argv, envp;
  for (std::string& s : strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  for (std::string& s : environment) envp.push_back(s.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!out_file.empty()) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_file.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
  }
  if (!err_file.empty()) {
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_file.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
  }
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data()), 0)
      << program;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

inline int Wait(pid_t pid) {
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  ADD_FAILURE() << "child ended by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return -1;
}

// Runs the real ember-plans with `args` (and `env` added), capturing its output.
inline PlansRun Plans(const std::vector<std::string>& args,
                      const std::vector<std::string>& env = {}) {
  static int calls = 0;
  const std::string base =
      std::filesystem::path(testing::TempDir()) /
      ("ember-plans-run-" + std::to_string(getpid()) + "-" + std::to_string(calls++));
  const pid_t pid =
      Spawn(EMBER_PLANS_BINARY, args, ChildEnvironment(env), base + ".out", base + ".err");
  PlansRun run;
  run.code = Wait(pid);
  run.out = ReadFile(base + ".out");
  run.err = ReadFile(base + ".err");
  std::filesystem::remove(base + ".out");
  std::filesystem::remove(base + ".err");
  return run;
}

// ember-plans --db `db` `args...`.
inline PlansRun PlansOn(const std::string& db, std::vector<std::string> args) {
  args.insert(args.begin(), {"--db", db});
  return Plans(args);
}

// ember-plans with stdout on a pseudo-terminal (for color); returns what it printed there.
// REQUIRES: the output fits the terminal's buffer (a few KiB): it is read after the exit.
inline std::string PlansOnTerminal(const std::vector<std::string>& args,
                                   const std::vector<std::string>& env = {}) {
  const int master = posix_openpt(O_RDWR | O_NOCTTY);
  EXPECT_GE(master, 0);
  EXPECT_EQ(grantpt(master), 0);
  EXPECT_EQ(unlockpt(master), 0);
  const std::string terminal = ptsname(master);
  const pid_t pid = Spawn(EMBER_PLANS_BINARY, args, ChildEnvironment(env), terminal, "/dev/null");
  EXPECT_EQ(Wait(pid), 0);
  std::string out;
  char buffer[4096];
  for (;;) {  // EIO once the child's side is closed and everything was read
    const ssize_t n = read(master, buffer, sizeof(buffer));
    if (n <= 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  close(master);
  return out;
}

inline nlohmann::json Json(const PlansRun& run) {
  nlohmann::json parsed = nlohmann::json::parse(run.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(parsed.is_discarded()) << "not JSON: " << run.out << run.err;
  return parsed;
}

// Starts the engine child: `program` ("seed" or "stream", engine_child_test.cpp) on the
// database `db`, with `env` added. The shared-memory tier is off unless `env` sets EMBER_SHM
// (its segments outlive the process; a test that turns it on removes them).
inline pid_t StartEngine(const std::string& db, const std::string& program,
                         const std::vector<std::string>& env = {}) {
  std::vector<std::string> extra = {"EMBER_PLAN_DB=" + db, "EMBER_TEST_PROGRAM=" + program};
  const bool shm_set = std::any_of(
      env.begin(), env.end(), [](const std::string& e) { return e.rfind("EMBER_SHM=", 0) == 0; });
  if (!shm_set) extra.push_back("EMBER_SHM=off");
  extra.insert(extra.end(), env.begin(), env.end());
  return Spawn("/proc/self/exe",
               {"--gtest_filter=DISABLED_PlansEngineChild.Run", "--gtest_also_run_disabled_tests"},
               ChildEnvironment(extra), "/dev/null", "");
}

inline void RunEngine(const std::string& db, const std::string& program,
                      const std::vector<std::string>& env = {}) {
  EXPECT_EQ(Wait(StartEngine(db, program, env)), 0) << "the engine child failed";
}

// A database the engine wrote: the "seed" program run twice under workload "seed-job" (the
// second run loads every plan from SQLite and hits them).
inline std::string MakeEngineDatabase(const TempDir& dir, const std::string& name = "plans.db") {
  const std::string db = dir.File(name);
  RunEngine(db, "seed", {"EMBER_WORKLOAD=seed-job"});
  RunEngine(db, "seed", {"EMBER_WORKLOAD=seed-job"});
  return db;
}

// A test suite sharing one engine-made database (MakeEngineDatabase), made once for the suite:
// making it runs the engine twice in child processes.
class EngineDatabaseSuite : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    db_ = MakeEngineDatabase(*dir_);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static inline TempDir* dir_ = nullptr;
  static inline std::string db_;
};

// A plain SQLite connection (foreign keys off, no checks): another program, or a bit flip.
using RawDb = sqlite_test::RawDb;

// Copies the database `from` with its -wal (a process still running, or killed, has commits
// there that its exit checkpoint has not folded in) to `to`, a single checkpointed file with
// mode 0600.
inline std::string CopyDatabase(const std::string& from, const std::string& to) {
  const auto options = std::filesystem::copy_options::overwrite_existing;
  std::filesystem::copy_file(from, to, options);
  std::filesystem::remove(to + "-wal");
  std::filesystem::remove(to + "-shm");
  if (std::filesystem::exists(from + "-wal"))
    std::filesystem::copy_file(from + "-wal", to + "-wal");
  for (const std::string& file : {to, to + "-wal"}) {
    if (!std::filesystem::exists(file)) continue;
    std::filesystem::permissions(
        file, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  }
  {
    RawDb raw(to);
    raw.Exec("PRAGMA wal_checkpoint(TRUNCATE)");
  }  // The last connection closed: the -wal is folded in and removed.
  EXPECT_FALSE(std::filesystem::exists(to + "-wal")) << to;
  return to;
}

// The lines of `text` wider than 100 characters (code points).
inline std::vector<std::string> WideLines(const std::string& text) {
  std::vector<std::string> wide;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t chars = 0;
    for (char c : line) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
    if (chars > 100) wide.push_back(line);
  }
  return wide;
}

}  // namespace ember::plans_test

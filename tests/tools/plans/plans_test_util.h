// Helpers for the ember-plans tests: the real ember-plans binary (EMBER_PLANS_BINARY) run as a
// child process (tests/common/process.h) with its output captured, and real plan databases
// written by the real engine (this test binary re-executed as DISABLED_PlansEngineChild.Run,
// engine_child_test.cpp), plus the raw SQLite access that damages copies the way a bit flip or
// another program would.
#pragma once

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/common/process.h"
#include "tests/common/temp_dir.h"
#include "tests/store/sqlite_test_util.h"

namespace ember::plans_test {

using ::ember::test::TempDir;

struct PlansRun {
  int code = -1;
  std::string out;
  std::string err;
};

using ::ember::test::ReadFile;

// Runs the real ember-plans with `args` (and `env` added), capturing its output.
inline PlansRun Plans(const std::vector<std::string>& args,
                      const std::vector<std::string>& env = {}) {
  static int calls = 0;
  const std::string base =
      std::filesystem::path(testing::TempDir()) /
      ("ember-plans-run-" + std::to_string(getpid()) + "-" + std::to_string(calls++));
  const pid_t pid = test::Spawn(
      EMBER_PLANS_BINARY, args,
      {.env = test::ChildEnvironment(env), .out_file = base + ".out", .err_file = base + ".err"});
  PlansRun run;
  run.code = test::WaitChild(pid);
  EXPECT_LT(run.code, test::kKilledBySignal) << "ember-plans ended by a signal";
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
  const pid_t pid = test::Spawn(
      EMBER_PLANS_BINARY, args,
      {.env = test::ChildEnvironment(env), .out_file = terminal, .err_file = "/dev/null"});
  EXPECT_EQ(test::WaitChild(pid), 0);
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

// Starts the engine child: `program` ("seed", "stream", "lengths", ..., engine_child_test.cpp)
// on the database `db`, with `env` added (test::SpawnTestChild: the shared-memory tier is off
// unless `env` sets EMBER_SHM).
inline pid_t StartEngine(const std::string& db, const std::string& program,
                         const std::vector<std::string>& env = {}) {
  std::vector<std::string> extra = {"EMBER_PLAN_DB=" + db, "EMBER_TEST_PROGRAM=" + program};
  extra.insert(extra.end(), env.begin(), env.end());
  return test::SpawnTestChild("DISABLED_PlansEngineChild.Run", extra, {.out_file = "/dev/null"});
}

inline void RunEngine(const std::string& db, const std::string& program,
                      const std::vector<std::string>& env = {}) {
  EXPECT_EQ(test::WaitChild(StartEngine(db, program, env)), 0) << "the engine child failed";
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

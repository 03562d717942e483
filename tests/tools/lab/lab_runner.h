// Running the real ember-lab binary from a test: as a child process in a temporary directory,
// with the EMBER_ settings of the test process removed (so its flags alone decide), capturing
// stdout, stderr and the exit status, and parsing --json output. Shared by the ember-lab suite
// (ember_lab_test.cpp) and the GPU suite (tests/gpu/lab_gpu_test.cpp); the including target
// defines EMBER_LAB_BINARY, the binary's path (tests/CMakeLists.txt).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/common/process.h"
#include "tests/common/temp_dir.h"

namespace ember::test {

struct LabRun {
  int exit_code = -1;  // -1 when a signal ended the child: `signal` says which
  int signal = 0;
  std::string out;  // stdout
  std::string err;  // stderr
  nlohmann::json json;
};

// The binary: $EMBER_LAB_BINARY when set (a bundle run on another machine, where the build
// tree's path does not exist: bench/gpu/device-suite.sh), else the path CMake compiled in.
inline std::string LabBinary() {
  const char* env = std::getenv("EMBER_LAB_BINARY");
  return env != nullptr && *env != '\0' ? std::string(env) : std::string(EMBER_LAB_BINARY);
}

// Runs ember-lab `args` in `dir`. Unless `args` name --shm or run workers, the shared-memory
// tier is off: its segment is named after the database path and outlives the test's temporary
// directory. `env`: variables set for the child beside EMBER_CONFIG=/dev/null ("EMBER_GRAPHS=off").
inline LabRun RunLab(const TempDir& dir, std::vector<std::string> args,
                     std::vector<std::string> env = {}) {
  if (std::find(args.begin(), args.end(), "--shm") == args.end() &&
      (args.empty() || args[0] != "workers")) {
    args.insert(args.end(), {"--shm", "off"});
  }
  env.insert(env.begin(), "EMBER_CONFIG=/dev/null");
  const std::string out_file = dir.File("stdout.txt");
  const std::string err_file = dir.File("stderr.txt");
  const pid_t pid = Spawn(LabBinary(), args,
                          {.env = ChildEnvironment(env),
                           .out_file = out_file,
                           .err_file = err_file,
                           .working_dir = dir.path().string()});
  LabRun run;
  const int code = WaitChild(pid);
  run.exit_code = code < kKilledBySignal ? code : -1;
  run.signal = code < kKilledBySignal ? 0 : code - kKilledBySignal;
  if (run.signal != 0)
    run.err += "\n[lab_runner] ember-lab was ended by signal " + std::to_string(run.signal) + "\n";
  run.out = ReadFile(out_file);
  run.err = ReadFile(err_file);
  if (run.exit_code == 0) {
    run.json = nlohmann::json::parse(run.out, nullptr, /*allow_exceptions=*/false);
  }
  return run;
}

// Runs and expects success with a JSON object on stdout.
inline nlohmann::json RunLabJson(const TempDir& dir, std::vector<std::string> args,
                                 std::vector<std::string> env = {}) {
  args.push_back("--json");
  const LabRun run = RunLab(dir, args, std::move(env));
  EXPECT_EQ(run.exit_code, 0) << "stderr:\n" << run.err << "\nstdout:\n" << run.out;
  EXPECT_TRUE(run.json.is_object()) << run.out;
  return run.json;
}

// A scenario's figures say it ran and matched its double-precision reference.
inline void ExpectCorrect(const nlohmann::json& r) {
  ASSERT_TRUE(r.contains("max_rel_error")) << r.dump();
  EXPECT_LT(r["max_rel_error"].get<double>(), 1e-4) << r.dump();
  EXPECT_TRUE(r["passed"].get<bool>());
  // The system clock at the run's start (bench/gpu/first-result.sh adds exec -> main): after
  // 2020-01-01, whichever clock the machine keeps.
  ASSERT_TRUE(r.contains("main_unix_ns")) << r.dump();
  EXPECT_GT(r["main_unix_ns"].get<int64_t>(), int64_t{1'577'836'800} * 1'000'000'000);
  EXPECT_GT(r["time_to_first_result_ms"].get<double>(), 0.0);
  EXPECT_GT(r["engine_start_ms"].get<double>(), 0.0);
  EXPECT_LE(r["engine_start_ms"].get<double>(), r["time_to_first_result_ms"].get<double>());
  EXPECT_GE(r["total_ms"].get<double>(), r["time_to_first_result_ms"].get<double>());
}

}  // namespace ember::test

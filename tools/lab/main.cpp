// ember-lab: the main job and demo. See --help and README.md ("ember-lab").
//   ember-lab                          transformer cold (fresh database) then warm, side by side
//   ember-lab <scenario> [options]     one run: reuse | unrelated | mlp | transformer | dynamic
//   ember-lab workers N <scenario>     N processes on one database, started together
// Exit status: 0 ok, 1 a result differs from the CPU reference beyond the tolerance, 2 bad
// arguments or an unusable device, 3 a run failed.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <ember/ember.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "engine/core/printable.h"
#include "tools/lab/child_process.h"
#include "tools/lab/engine_setup.h"
#include "tools/lab/options.h"
#include "tools/lab/orchestration.h"
#include "tools/lab/report.h"
#include "tools/lab/scenarios.h"

namespace ember::lab {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitWrongResult = 1;
constexpr int kExitUsage = 2;
constexpr int kExitFailed = 3;
constexpr int kMaxWorkers = 64;

constexpr const char* kDescription =
    "ember-lab: runs tensor programs on ember and shows what its fusion search and plan "
    "database did.\n\n"
    "  ember-lab                        the transformer block cold (fresh database), then warm\n"
    "  ember-lab SCENARIO [options]     one run of a scenario:\n"
    "      reuse        the seed's walk-through: (a*b + c*s).exp() on 64x64 (--steps times),\n"
    "                   another scalar, 32x32, 64x32 (--log full: the engine's log lines)\n"
    "      unrelated    five independent eight-op chains before one sync: one 40-op kernel\n"
    "      mlp          two-layer MLP, forward + hand-written backward + SGD, per step\n"
    "      transformer  one pre-norm transformer block forward (layernorm, attention, gelu)\n"
    "      dynamic      a sequence length that changes every step, under an exploration cap\n"
    "  ember-lab workers N SCENARIO     N processes on one plan database, started together\n\n"
    "Every run checks its results against a double-precision CPU reference.\n"
    "Exit status: 0 ok, 1 wrong result, 2 bad arguments or device, 3 a run failed.";

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "ember-lab: %s\n", PrintableLines(message).c_str());
  return code;
}

// Text from outside (a workload name, a server's message) may be any bytes: replaced, never
// thrown on (nlohmann::json::dump throws on invalid UTF-8).
void PrintJson(const nlohmann::json& j) {
  const std::string text =
      j.dump(2, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
  std::printf("%s\n", text.c_str());
}

// Checks `--device` in this process, so that `--device cuda` fails before any child starts.
// Returns kExitOk or prints the reason and returns kExitUsage.
int CheckDevice(const LabOptions& options, DeviceChoice* choice) {
  try {
    *choice = ChooseDevice(options.device);
    return kExitOk;
  } catch (const Error& e) {
    return Fail(kExitUsage, "--device " + options.device + ": no usable GPU: " + e.what());
  }
}

// The system clock in ns since the Unix epoch: RunResult::main_unix_ns.
int64_t UnixNanosNow() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int RunSingle(const LabOptions& options, Clock::time_point origin, int64_t origin_unix_ns) {
  ApplyEngineEnvironment(options);
  DeviceChoice choice;
  if (const int rc = CheckDevice(options, &choice); rc != kExitOk) return rc;
  RunResult result = RunScenario(options, choice.device, origin);
  result.main_unix_ns = origin_unix_ns;
  result.device_note = choice.note;
  if (options.json) {
    PrintJson(ToJson(result));
  } else {
    PrintRun(result, choice.note, Style::ForStdout());
  }
  if (!result.Passed()) {
    return Fail(kExitWrongResult, options.scenario + ": max relative error " +
                                      std::to_string(result.max_rel_error) +
                                      " exceeds the tolerance " + std::to_string(result.tolerance));
  }
  return kExitOk;
}

int RunDefault(LabOptions options) {
  if (options.no_store) {
    return Fail(kExitUsage,
                "the default run compares a cold and a warm start on a plan "
                "database; --no-store leaves nothing to start warm from (name a "
                "scenario to run one without a database)");
  }
  options.scenario = "transformer";
  DeviceChoice choice;
  if (const int rc = CheckDevice(options, &choice); rc != kExitOk) return rc;
  Progress progress(!options.json && StdoutIsTerminal(), "cold, warm");
  const ColdWarm runs = RunColdWarm(options, progress);
  const auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  if (options.json) {
    PrintJson({{"scenario", "default"},
               {"database", runs.database},
               {"database_kept", runs.database_kept},
               {"cold", ToJson(runs.cold)},
               {"warm", ToJson(runs.warm)},
               {"cold_warm_ratio",
                {{"time_to_first_result",
                  ratio(runs.cold.time_to_first_result_ms, runs.warm.time_to_first_result_ms)},
                 {"total", ratio(runs.cold.total_ms, runs.warm.total_ms)}}}});
  } else {
    PrintColdWarm(runs.cold, runs.warm, runs.cold.device_note, Style::ForStdout());
    std::printf("\n  %s\n", runs.database_kept
                                ? ("plans kept in " + runs.database).c_str()
                                : "the scratch database was removed; --db PATH keeps it");
  }
  if (!runs.cold.Passed() || !runs.warm.Passed()) {
    return Fail(kExitWrongResult, "a result exceeds the tolerance (see max relative error)");
  }
  return kExitOk;
}

int RunWorkerGroup(const LabOptions& options, int count) {
  DeviceChoice choice;
  if (const int rc = CheckDevice(options, &choice); rc != kExitOk) return rc;
  Progress progress(!options.json && StdoutIsTerminal(), "workers");
  const std::vector<RunResult> workers = RunWorkers(options, count, progress);
  bool passed = true;
  for (const RunResult& w : workers) passed = passed && w.Passed();
  if (options.json) {
    nlohmann::json list = nlohmann::json::array();
    for (size_t i = 0; i < workers.size(); ++i) {
      nlohmann::json j = ToJson(workers[i]);
      j["worker"] = i;
      list.push_back(std::move(j));
    }
    PrintJson({{"scenario", options.scenario}, {"workers", list}, {"passed", passed}});
  } else {
    PrintWorkers(workers, Style::ForStdout());
  }
  if (!passed) return Fail(kExitWrongResult, "a worker's result exceeds the tolerance");
  return kExitOk;
}

int Main(int argc, char** argv) {
  Clock::time_point origin = Clock::now();
  int64_t origin_unix_ns = UnixNanosNow();
  LabOptions options;
  std::vector<std::string> command;
  CLI::App app{kDescription, "ember-lab"};
  app.add_option("command", command, "[SCENARIO] or [workers N SCENARIO]");
  app.add_option("--device", options.device, "cpu, cuda, or auto (the GPU when usable)")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  auto* db = app.add_option("--db", options.db, "plan database file (default .ember/plans.db)");
  app.add_flag("--no-store", options.no_store, "keep plans in memory only")->excludes(db);
  app.add_option("--steps", options.steps,
                 "defaults: reuse 3, unrelated 3, mlp 10, transformer 8, dynamic 12");
  app.add_flag("--json", options.json, "print the figures as JSON");
  app.add_option("--log", options.log, "engine log level: disabled, basic, medium, full")
      ->check(CLI::IsMember({"disabled", "off", "0", "basic", "medium", "full", "1"},
                            CLI::ignore_case));
  app.add_option("--workload", options.workload, "workload name (default lab-SCENARIO)");
  app.add_option("--max-explorations", options.max_explorations,
                 "exploration cap per workload (N or unlimited; dynamic defaults to 10)");
  app.add_option("--shm", options.shm, "shared-memory tier on|off")
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--seed", options.seed, "seed of the host data generator");
  app.add_option("--batch", options.batch, "mlp: batch size (32)");
  app.add_option("--width", options.width,
                 "model width (mlp 64, transformer 64, dynamic 32; unrelated: side, 256)");
  app.add_option("--seq", options.seq, "transformer: sequence length (64); dynamic: max (12)");
  app.add_option("--heads", options.heads, "transformer: attention heads (4)");
  app.add_option("--start-fd", options.start_fd)->group("");  // workers: the start barrier
  app.add_flag("--no-progress", options.no_progress)->group("");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }

  // The engine reads levels case-insensitively; the scenarios compare the lower-case form.
  std::transform(options.log.begin(), options.log.end(), options.log.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });

  try {
    if (command.empty()) return RunDefault(options);
    if (command[0] == "workers") {
      if (command.size() != 3) return Fail(kExitUsage, "usage: ember-lab workers N SCENARIO");
      int count = 0;
      try {
        count = std::stoi(command[1]);
      } catch (const std::exception&) {
      }
      if (count < 1 || count > kMaxWorkers) {
        return Fail(kExitUsage, "workers: N must be a number in [1, " +
                                    std::to_string(kMaxWorkers) + "], got \"" + command[1] + "\"");
      }
      if (!IsScenario(command[2])) {
        return Fail(kExitUsage, "workers: unknown scenario \"" + command[2] + "\"");
      }
      options.scenario = command[2];
      return RunWorkerGroup(options, count);
    }
    if (command.size() != 1 || !IsScenario(command[0])) {
      return Fail(kExitUsage, "unknown command \"" + command[0] +
                                  "\"; expected reuse, unrelated, mlp, transformer, dynamic "
                                  "or workers N SCENARIO (see --help)");
    }
    options.scenario = command[0];
    if (options.start_fd >= 0) {
      WaitForStart(options.start_fd);
      origin = Clock::now();
      origin_unix_ns = UnixNanosNow();
    }
    return RunSingle(options, origin, origin_unix_ns);
  } catch (const Error& e) {
    return Fail(kExitFailed, e.what());
  } catch (const std::exception& e) {
    return Fail(kExitFailed, e.what());
  }
}

}  // namespace
}  // namespace ember::lab

int main(int argc, char** argv) { return ember::lab::Main(argc, argv); }

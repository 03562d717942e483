// LabOptions: what ember-lab's command line asked for (main.cpp parses it with CLI11).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ember::lab {

struct LabOptions {
  std::string scenario;                         // reuse | unrelated | mlp | transformer | dynamic
  std::string device = "auto";                  // auto | cpu | cuda
  std::optional<std::string> db;                // --db PATH
  bool no_store = false;                        // --no-store
  std::optional<int> steps;                     // --steps N (each scenario has its own default)
  bool json = false;                            // --json
  std::string log;                              // --log LEVEL ("" = the engine's configuration)
  std::optional<std::string> workload;          // --workload NAME (default: lab-<scenario>)
  std::optional<std::string> max_explorations;  // --max-explorations N | unlimited
  std::optional<std::string> shm;               // --shm on|off
  uint64_t seed = 1;                            // --seed: the host data generator's seed
  // Sizes (0 = the scenario's default).
  int64_t batch = 0;
  int64_t width = 0;
  int64_t seq = 0;
  int64_t heads = 0;
  // Hidden, for the processes ember-lab starts itself (cold/warm runs, workers):
  int start_fd = -1;  // wait for this pipe to close before starting the clock
  bool no_progress = false;
};

// The command line that runs `options` again in a child ember-lab (the scenario first, then
// the flags), with --json and --no-progress added: the child prints its RunResult as JSON.
std::vector<std::string> ChildArguments(const LabOptions& options);

}  // namespace ember::lab

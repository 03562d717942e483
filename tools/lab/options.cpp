#include "tools/lab/options.h"

namespace ember::lab {

std::vector<std::string> ChildArguments(const LabOptions& options) {
  std::vector<std::string> args = {options.scenario, "--json", "--no-progress", "--device",
                                   options.device};
  const auto add = [&args](const std::string& flag, const std::string& value) {
    args.push_back(flag);
    args.push_back(value);
  };
  if (options.no_store) args.push_back("--no-store");
  if (options.db) add("--db", *options.db);
  if (options.steps) add("--steps", std::to_string(*options.steps));
  if (!options.log.empty()) add("--log", options.log);
  if (options.workload) add("--workload", *options.workload);
  if (options.max_explorations) add("--max-explorations", *options.max_explorations);
  if (options.shm) add("--shm", *options.shm);
  add("--seed", std::to_string(options.seed));
  if (options.batch > 0) add("--batch", std::to_string(options.batch));
  if (options.width > 0) add("--width", std::to_string(options.width));
  if (options.seq > 0) add("--seq", std::to_string(options.seq));
  if (options.heads > 0) add("--heads", std::to_string(options.heads));
  return args;
}

}  // namespace ember::lab

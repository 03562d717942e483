#include "tools/lab/engine_setup.h"

#include <cstdlib>

namespace ember::lab {

namespace {

void Export(const char* name, const std::string& value) { setenv(name, value.c_str(), 1); }

bool EnvSet(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0';
}

}  // namespace

void ApplyEngineEnvironment(const LabOptions& options) {
  if (options.no_store) {
    Export("EMBER_PLAN_DB", "off");
  } else if (options.db) {
    Export("EMBER_PLAN_DB", *options.db);
  }
  if (!options.log.empty()) Export("EMBER_LOG", options.log);
  if (options.workload) {
    Export("EMBER_WORKLOAD", *options.workload);
  } else if (!EnvSet("EMBER_WORKLOAD")) {
    Export("EMBER_WORKLOAD", "lab-" + options.scenario);
  }
  if (options.max_explorations) {
    Export("EMBER_MAX_EXPLORATIONS", *options.max_explorations);
  } else if (options.scenario == "dynamic" && !EnvSet("EMBER_MAX_EXPLORATIONS")) {
    Export("EMBER_MAX_EXPLORATIONS", std::to_string(kDynamicDefaultCap));
  }
  if (options.shm) Export("EMBER_SHM", *options.shm);
}

DeviceChoice ChooseDevice(const std::string& requested) {
  if (requested == "cpu") return {};
  if (requested == "cuda") return {.device = Device::Cuda(0)};  // throws, saying why
  try {
    return {.device = Device::Cuda(0)};
  } catch (const Error& e) {
    std::string why = e.what();
    if (why.rfind("ember: ", 0) == 0) why.erase(0, 7);
    return {.device = Device::Cpu(), .note = "auto chose the CPU: " + why};
  }
}

}  // namespace ember::lab

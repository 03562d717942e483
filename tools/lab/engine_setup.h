// Turning ember-lab's flags into the engine's configuration, and choosing the device.
//
// The engine reads its settings once, when a device is first used (docs/CONFIGURATION.md), so
// ApplyEngineEnvironment must run before the first Tensor is made. Flags override the
// environment, which overrides ember.toml.
#pragma once

#include <string>

#include <ember/ember.h>

#include "tools/lab/options.h"

namespace ember::lab {

// The exploration cap `dynamic` runs under when neither --max-explorations nor
// EMBER_MAX_EXPLORATIONS says otherwise.
inline constexpr int kDynamicDefaultCap = 10;

// Exports EMBER_PLAN_DB (--db, --no-store), EMBER_LOG (--log), EMBER_WORKLOAD (--workload, else
// lab-<scenario> unless the environment names one), EMBER_MAX_EXPLORATIONS (--max-explorations;
// `dynamic` defaults to kDynamicDefaultCap) and EMBER_SHM (--shm).
void ApplyEngineEnvironment(const LabOptions& options);

struct DeviceChoice {
  Device device = Device::Cpu();
  std::string note;  // why `auto` fell back to the CPU; empty otherwise
};

// `cpu`: the CPU. `cuda`: CUDA device 0, or ember::Error saying why it cannot be used.
// `auto`: CUDA device 0 when this build and machine can use it, else the CPU (with a note), so
// a build with a CUDA backend picks the GPU without any change here.
DeviceChoice ChooseDevice(const std::string& requested);

}  // namespace ember::lab

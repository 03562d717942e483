// The CPU engine with fusion on or off, for the end-to-end tests that compare fused with unfused
// runs (the GPU suite's twin, which also releases the CUDA engine: tests/gpu/gpu_test_util.h).
#pragma once

#include <cstddef>

#include <ember/ember.h>

#include "engine/core/config.h"

namespace ember::testing {

// Sets fusion on or off and releases the CPU engine, so the next op starts one that reads the
// new configuration (the search settings are read when a device's engine starts). The plan
// database is off: stored plans from another run must not join a comparison.
inline void UseFusion(bool enabled, size_t max_blocks = Config{}.max_blocks) {
  Config config;
  config.fusion_enabled = enabled;
  config.max_blocks = max_blocks;
  config.plan_db = "off";
  SetGlobalConfigForTesting(config);
  ReleaseDevice(Device::Cpu());
}

}  // namespace ember::testing

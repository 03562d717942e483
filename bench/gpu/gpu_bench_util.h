// What every part of ember-bench-gpu (ember_bench_gpu.cpp) uses: its settings from the
// environment (EMBER_BENCH_GPU_*), the fusion switch (as EMBER_FUSION would, the device's engine
// released), the clock, the median and the engine's counters over a run.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <ember/ember.h>

#include "engine/core/config.h"

namespace bench_gpu {

using ember::Device;
using ember::DType;
using ember::Tensor;
using Clock = std::chrono::steady_clock;

inline constexpr double kL2Bytes = 60e6;

inline double EnvDouble(const char* name, double fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::stod(v) : fallback;
}

inline std::vector<int> SizeExponents() {
  const char* v = std::getenv("EMBER_BENCH_GPU_SIZES");
  std::string text = v != nullptr && *v != '\0' ? v : "24,26,28,20,22";
  std::vector<int> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(std::stoi(text.substr(start, end - start)));
    start = end + 1;
  }
  return out;
}

inline void UseFusion(Device device, bool on) {
  ember::Config config = ember::GlobalConfig();
  config.fusion_enabled = on;
  ember::SetGlobalConfigForTesting(config);
  ember::ReleaseDevice(device);
}

inline double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The engine's counters over `calls` calls (after - before).
inline nlohmann::json EngineDelta(const ember::Stats& before, const ember::Stats& after,
                                  int calls) {
  return {{"explorations", after.explorations - before.explorations},
          {"cache_hits", after.cache_hits - before.cache_hits},
          {"launches", after.launches - before.launches},
          {"launch_record_hits", after.launch_record_hits - before.launch_record_hits},
          {"launch_record_misses", after.launch_record_misses - before.launch_record_misses},
          {"calls", calls}};
}

}  // namespace bench_gpu

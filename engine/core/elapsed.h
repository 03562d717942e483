// Wall milliseconds since a steady-clock instant: what the start's breakdown (ember::Stats::start)
// and the kernel cache's timings add up.
#pragma once

#include <chrono>

namespace ember {

inline double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace ember

// The store's clock: rows record times as INTEGER milliseconds since the Unix epoch (UTC), the
// convention of migrations/0001_plan_store.sql.
#pragma once

#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdint>

namespace ember {

// Added to NowUnixMillis: tests set it to play a wall clock that jumps (an NTP step, a
// corrected RTC) without changing the machine's clock. 0 otherwise.
inline std::atomic<int64_t>& WallClockOffsetForTesting() {
  static std::atomic<int64_t> offset{0};
  return offset;
}

inline int64_t NowUnixMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
             .count() +
         WallClockOffsetForTesting().load(std::memory_order_relaxed);
}

// Milliseconds of CLOCK_MONOTONIC: one clock for every process of a host (of one time
// namespace), which wall-clock steps do not move. For deadlines that processes of one host
// share (claims in the shared segment).
inline int64_t HostMonotonicMillis() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

}  // namespace ember

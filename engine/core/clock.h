// The store's clock: rows record times as INTEGER milliseconds since the Unix epoch (UTC), the
// convention of migrations/0001_plan_store.sql.
#pragma once

#include <chrono>
#include <cstdint>

namespace ember {

inline int64_t NowUnixMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace ember

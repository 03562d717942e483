#include "engine/trace/trace_serial.h"

#include <atomic>

namespace ember {

uint64_t NewTraceSerial() {
  // 64 bits at one serial per nanosecond last five centuries: no wrap to worry about.
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace ember

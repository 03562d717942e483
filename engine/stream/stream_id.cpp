#include "engine/stream/stream_id.h"

#include <atomic>

namespace ember {

StreamId CurrentStreamId() {
  static std::atomic<StreamId> next{1};
  thread_local const StreamId id = next.fetch_add(1, std::memory_order_relaxed);
  return id;
}

}  // namespace ember

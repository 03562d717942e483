// StreamId: the calling thread's stream (burn's StreamId). Each thread gets a distinct id the
// first time it asks, from a process-wide counter; ops a thread queues on a device go to that
// device's queue for this id, so threads never interleave inside one queue.
#pragma once

#include <cstdint>

namespace ember {

using StreamId = uint64_t;

// Same value for every call on one thread; distinct across threads.
StreamId CurrentStreamId();

}  // namespace ember

// Helpers for the API tests: a clean stream per test (a fresh thread) and queue inspection.
#pragma once

#include <cmath>
#include <exception>
#include <functional>
#include <thread>

#include <ember/ember.h>

#include "engine/api/device_server.h"
#include "engine/api/tensor_node.h"
#include "engine/stream/stream_id.h"

namespace ember::testing {

// Runs `fn` on a new thread, so it starts with an empty stream of its own; rethrows what `fn`
// threw (gtest assertions inside still report normally).
inline void OnFreshStream(const std::function<void()>& fn) {
  std::exception_ptr error;
  std::thread t([&] {
    try {
      fn();
    } catch (...) {
      error = std::current_exception();
    }
  });
  t.join();
  if (error) std::rethrow_exception(error);
}

inline DeviceServer::QueueSnapshot CurrentQueue(Device device = Device::Cpu()) {
  return ServerFor(device)->Snapshot(CurrentStreamId());
}

}  // namespace ember::testing

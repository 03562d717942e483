// StreamOrder: makes one CUDA stream wait for the work already queued on another, without
// blocking the host: an event recorded on the producer, and cuStreamWaitEvent on the waiter.
// This is the hand-off between streams (README.md beside this file, "One stream per ember
// stream"): a buffer written on one stream and read on another, or a freed block reused on
// another stream than its last one.
//
// One event serves every hand-off: cuStreamWaitEvent waits for the event's state at the time
// of the call (the last cuEventRecord before it), so recording the same event again for the
// next hand-off does not change what an earlier wait waits for.
//
// Threading: one caller at a time (its owner's lock).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <memory>

#include "engine/runtime/cuda/cuda_device.h"

namespace ember::cuda {

class StreamOrder {
 public:
  explicit StreamOrder(std::shared_ptr<CudaDevice> device);
  ~StreamOrder();
  StreamOrder(const StreamOrder&) = delete;
  StreamOrder& operator=(const StreamOrder&) = delete;

  // Work queued on `waiter` from now on starts after the work queued on `producer` so far.
  // A no-op when they are the same stream. REQUIRES: the device's context is current.
  void After(CUstream waiter, CUstream producer);

  // Hand-offs made (waiter != producer).
  uint64_t handoffs() const { return handoffs_; }

 private:
  std::shared_ptr<CudaDevice> device_;
  CUevent event_ = nullptr;
  uint64_t handoffs_ = 0;
};

}  // namespace ember::cuda

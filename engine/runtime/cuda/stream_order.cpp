#include "engine/runtime/cuda/stream_order.h"

#include "engine/runtime/cuda/driver_api.h"

namespace ember::cuda {

StreamOrder::StreamOrder(std::shared_ptr<CudaDevice> device) : device_(std::move(device)) {
  ScopedContext scoped(*device_);
  EMBER_CU(cuEventCreate, &event_, CU_EVENT_DISABLE_TIMING);
}

StreamOrder::~StreamOrder() {
  try {
    ScopedContext scoped(*device_);
    // A wait still pending on the event keeps it alive until it completes (cuEventDestroy).
    EMBER_CU_WARN(cuEventDestroy, event_);
  } catch (const Error&) {
    // The driver is gone (process exit), and the event with it.
  }
}

void StreamOrder::After(CUstream waiter, CUstream producer) {
  if (waiter == producer) return;
  EMBER_CU(cuEventRecord, event_, producer);
  EMBER_CU(cuStreamWaitEvent, waiter, event_, 0);
  ++handoffs_;
}

}  // namespace ember::cuda

#include "engine/runtime/cuda/cuda_stream.h"

#include "engine/runtime/cuda/driver_api.h"

namespace ember::cuda {

CudaStream::CudaStream(std::shared_ptr<CudaDevice> device) : device_(std::move(device)) {
  ScopedContext scoped(*device_);
  EMBER_CU(cuStreamCreate, &stream_, CU_STREAM_NON_BLOCKING);
}

CudaStream::~CudaStream() {
  try {
    ScopedContext scoped(*device_);
    EMBER_CU_WARN(cuStreamDestroy, stream_);
  } catch (const Error&) {
    // The context could not be made current: the driver is gone, and the stream with it.
  }
}

void CudaStream::Synchronize() const {
  ScopedContext scoped(*device_);
  EMBER_CU(cuStreamSynchronize, get(StreamWork::kWait));
}

}  // namespace ember::cuda

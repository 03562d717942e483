// DeviceContext: what every part of the CUDA backend shares: the device, its streams (one per
// ember stream) and the current one, the caching allocator, pinned staging, the kernel cache
// and cuBLASLt (engine/runtime/cuda/). One per backend; called under the backend's lock
// (engine/runtime/backend.h), one call at a time.
#pragma once

#include <memory>

#include "engine/runtime/cuda/backend/blas_warm_up.h"
#include "engine/runtime/cuda/backend/stream_set.h"
#include "engine/runtime/cuda/cublaslt_api.h"
#include "engine/runtime/cuda/cuda_buffer.h"
#include "engine/runtime/cuda/cuda_device.h"
#include "engine/runtime/cuda/cuda_stream.h"
#include "engine/runtime/cuda/device_allocator.h"
#include "engine/runtime/cuda/kernel_cache.h"
#include "engine/runtime/cuda/pinned_staging.h"
#include "engine/runtime/cuda/stream_order.h"
#include "engine/runtime/handle.h"

namespace ember::cuda {

struct DeviceContext {
  std::shared_ptr<CudaDevice> device;
  std::unique_ptr<StreamSet> streams;
  // The stream of the ember stream the backend's current call comes from (Backend::SetStream):
  // every kernel, copy and allocation of the call is queued on it.
  CudaStream* stream = nullptr;
  std::unique_ptr<StreamOrder> order;  // hand-offs of buffers between streams
  std::shared_ptr<DeviceAllocator> allocator;
  std::unique_ptr<PinnedStaging> staging;
  std::unique_ptr<KernelCache> kernels;
  std::unique_ptr<BlasLt> blas;  // taken from blas_warm_up (or created) at the first matmul
  // Last, so that its thread is joined before anything it was given goes.
  std::unique_ptr<BlasWarmUp> blas_warm_up;

  // A new contiguous tensor on the device, for the current stream.
  TensorHandle NewHandle(const Shape& shape, DType dtype) const {
    return NewCudaHandle(allocator, stream->raw(), shape, dtype);
  }
  // Work queued on the current stream from now on may read or write `handle`'s buffer: waits
  // (on the device) for the stream that used it last, when that is another one.
  void Use(const TensorHandle& handle) const {
    if (handle.buffer == nullptr) return;
    static_cast<CudaBuffer*>(handle.buffer.get())->Use(stream->raw(), *order);
  }
  BlasLt& Blas() {
    if (blas == nullptr && blas_warm_up != nullptr) blas = blas_warm_up->TakeBlas();
    if (blas == nullptr) blas = std::make_unique<BlasLt>(allocator);
    return *blas;
  }
};

// The device address of a handle's first element (offset applied).
inline CUdeviceptr AddressOf(const TensorHandle& handle) { return DeviceElementData(handle); }

}  // namespace ember::cuda

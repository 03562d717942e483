// DeviceContext: what every part of the CUDA backend shares: the device, its one stream, the
// caching allocator, pinned staging, the kernel cache and cuBLASLt (engine/runtime/cuda/). One
// per backend; called under the backend's lock (engine/runtime/backend.h), one call at a time.
#pragma once

#include <memory>

#include "engine/runtime/cuda/cublaslt_api.h"
#include "engine/runtime/cuda/cuda_buffer.h"
#include "engine/runtime/cuda/cuda_device.h"
#include "engine/runtime/cuda/cuda_stream.h"
#include "engine/runtime/cuda/device_allocator.h"
#include "engine/runtime/cuda/kernel_cache.h"
#include "engine/runtime/cuda/pinned_staging.h"
#include "engine/runtime/handle.h"

namespace ember::cuda {

struct DeviceContext {
  std::shared_ptr<CudaDevice> device;
  std::shared_ptr<CudaStream> stream;
  std::shared_ptr<DeviceAllocator> allocator;
  std::unique_ptr<PinnedStaging> staging;
  std::unique_ptr<KernelCache> kernels;
  std::unique_ptr<BlasLt> blas;  // created on the first float matmul

  // A new contiguous tensor on the device.
  TensorHandle NewHandle(const Shape& shape, DType dtype) const {
    return NewCudaHandle(allocator, shape, dtype);
  }
  BlasLt& Blas() {
    if (blas == nullptr) blas = std::make_unique<BlasLt>(allocator);
    return *blas;
  }
};

// The device address of a handle's first element (offset applied).
inline CUdeviceptr AddressOf(const TensorHandle& handle) { return DeviceElementData(handle); }

}  // namespace ember::cuda

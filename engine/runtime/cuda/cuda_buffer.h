// CudaBuffer: device memory owned by the CUDA backend, one DeviceAllocator block. Handles
// share it through shared_ptr (engine/runtime/buffer.h), so a view and its source alias the
// same CudaBuffer; the block goes back to the allocator's cache when the last handle does.
// Each buffer holds a shared_ptr to its allocator, so buffers may outlive the backend that made
// them and the allocator still exists when they are destroyed.
//
// REQUIRES (the helpers): the handle's buffer is a CudaBuffer.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <memory>

#include "engine/runtime/buffer.h"
#include "engine/runtime/cuda/device_allocator.h"
#include "engine/runtime/handle.h"

namespace ember::cuda {

class CudaBuffer final : public Buffer {
 public:
  // Uninitialized device memory of `bytes` bytes (0xFF bytes in poison mode). Throws
  // ember::Error when the device is out of memory.
  CudaBuffer(std::shared_ptr<DeviceAllocator> allocator, size_t bytes);
  ~CudaBuffer() override;
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;

  size_t size() const override { return size_; }
  std::string_view backend() const override { return "cuda"; }
  CUdeviceptr data() const { return block_.ptr; }
  const DeviceBlock& block() const { return block_; }

 private:
  std::shared_ptr<DeviceAllocator> allocator_;
  DeviceBlock block_;
  size_t size_;
};

// A new contiguous (row-major) handle with uninitialized elements on `allocator`'s device.
TensorHandle NewCudaHandle(std::shared_ptr<DeviceAllocator> allocator, const Shape& shape,
                           DType dtype);

// Device address of the handle's element at multi-index 0 (buffer start + offset elements).
CUdeviceptr DeviceElementData(const TensorHandle& handle);

}  // namespace ember::cuda

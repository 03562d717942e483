// CudaBuffer: device memory owned by the CUDA backend, one DeviceAllocator block. Handles
// share it through shared_ptr (engine/runtime/buffer.h), so a view and its source alias the
// same CudaBuffer; the block goes back to the allocator's cache when the last handle does.
// Each buffer holds a shared_ptr to its allocator, so buffers may outlive the backend that made
// them and the allocator still exists when they are destroyed.
//
// A buffer remembers the CUDA stream that used it last (README.md beside this file, "One
// stream per ember stream"). The backend calls Use before it queues work that touches the
// buffer on a stream: another stream than the last one first waits for that one's work, so
// the hand-off of a tensor between ember streams is ordered on the device without a host
// wait. The last stream goes back to the allocator with the block.
//
// A borrowed buffer (ember::ImportMemory of device memory) wraps someone else's memory instead
// of a block: ember never writes it, and when it goes its owner waits in the allocator until
// the device has finished with it (Note [Borrowed device memory], borrowed_owners.h).
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
  // Uninitialized device memory of `bytes` bytes for use on `stream` (0xFF bytes in poison
  // mode). Throws ember::Error when the device is out of memory.
  CudaBuffer(std::shared_ptr<DeviceAllocator> allocator, size_t bytes, CUstream stream);
  // Borrowed memory: `bytes` bytes at `data`, alive while `owner` is, ready for work queued on
  // `stream` (Note [Borrowed device memory]). REQUIRES: data != 0; owner != nullptr.
  CudaBuffer(std::shared_ptr<DeviceAllocator> allocator, CUdeviceptr data, size_t bytes,
             CUstream stream, std::shared_ptr<const void> owner);
  ~CudaBuffer() override;
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;

  size_t size() const override { return size_; }
  std::string_view backend() const override { return "cuda"; }
  bool borrowed() const override { return owner_ != nullptr; }
  CUdeviceptr data() const { return block_.ptr; }
  const DeviceBlock& block() const { return block_; }
  // The last stream that used the buffer.
  CUstream stream() const { return block_.stream; }
  // Work queued on `stream` from now on may touch the buffer: orders `stream` after the last
  // stream's work (through `order`) when they differ. REQUIRES: the context is current; one
  // caller at a time (the backend's lock).
  void Use(CUstream stream, StreamOrder& order) {
    if (stream == block_.stream) return;
    order.After(stream, block_.stream);
    block_.stream = stream;
  }

 private:
  std::shared_ptr<DeviceAllocator> allocator_;
  DeviceBlock block_;  // a borrowed buffer's memory and last stream, from no allocator
  size_t size_;
  std::shared_ptr<const void> owner_;  // borrowed memory's keeper; null for a block
};

// A new contiguous (row-major) handle with uninitialized elements on `allocator`'s device, for
// use on `stream`.
TensorHandle NewCudaHandle(std::shared_ptr<DeviceAllocator> allocator, CUstream stream,
                           const Shape& shape, DType dtype);

// Device address of the handle's element at multi-index 0 (buffer start + offset elements).
CUdeviceptr DeviceElementData(const TensorHandle& handle);

}  // namespace ember::cuda

#include "engine/runtime/cuda/cuda_buffer.h"

#include "engine/core/check.h"

namespace ember::cuda {

CudaBuffer::CudaBuffer(std::shared_ptr<DeviceAllocator> allocator, size_t bytes, CUstream stream)
    : allocator_(std::move(allocator)), block_(allocator_->Allocate(bytes, stream)), size_(bytes) {}

CudaBuffer::CudaBuffer(std::shared_ptr<DeviceAllocator> allocator, CUdeviceptr data, size_t bytes,
                       CUstream stream, std::shared_ptr<const void> owner)
    : allocator_(std::move(allocator)),
      block_{.ptr = data, .size = bytes, .stream = stream},
      size_(bytes),
      owner_(std::move(owner)) {
  EMBER_CHECK(data != 0 && owner_ != nullptr, "borrowed device memory needs an address and owner");
}

CudaBuffer::~CudaBuffer() {
  if (owner_ != nullptr) {
    allocator_->ReleaseBorrowed(block_.stream, std::move(owner_));
  } else {
    allocator_->Free(block_);
  }
}

TensorHandle NewCudaHandle(std::shared_ptr<DeviceAllocator> allocator, CUstream stream,
                           const Shape& shape, DType dtype) {
  const int64_t n = NumElements(shape);
  EMBER_CHECK(n >= 0, "negative element count");
  TensorHandle handle;
  handle.buffer = std::make_shared<CudaBuffer>(std::move(allocator),
                                               static_cast<size_t>(n) * DTypeSize(dtype), stream);
  handle.shape = shape;
  handle.strides = TensorHandle::ContiguousStrides(shape);
  handle.offset = 0;
  handle.dtype = dtype;
  return handle;
}

CUdeviceptr DeviceElementData(const TensorHandle& handle) {
  auto* buffer = static_cast<CudaBuffer*>(handle.buffer.get());
  EMBER_DCHECK(buffer != nullptr && buffer->backend() == "cuda", "not a CUDA handle");
  return buffer->data() + static_cast<CUdeviceptr>(handle.offset * DTypeSize(handle.dtype));
}

}  // namespace ember::cuda

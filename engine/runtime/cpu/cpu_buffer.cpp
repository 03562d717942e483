#include "engine/runtime/cpu/cpu_buffer.h"

#include "engine/runtime/cpu/buffer_cache.h"

#include "engine/core/check.h"

namespace ember::cpu {

CpuBuffer::CpuBuffer(size_t bytes)
    : data_(BufferCache::Global().Allocate(bytes, &capacity_)), size_(bytes) {}

CpuBuffer::CpuBuffer(std::byte* data, size_t bytes, std::shared_ptr<const void> owner)
    : data_(data), size_(bytes), borrowed_(true), owner_(std::move(owner)) {
  EMBER_CHECK(data != nullptr, "borrowed memory at a null address");
}

CpuBuffer::~CpuBuffer() {
  if (!borrowed_) BufferCache::Global().Release(data_, capacity_);
  // A borrowed buffer's owner_ is released by the member's destructor (Note [Borrowed host
  // memory]).
}

TensorHandle NewHandle(const Shape& shape, DType dtype) {
  const int64_t n = NumElements(shape);
  EMBER_CHECK(n >= 0, "negative element count");
  TensorHandle handle;
  handle.buffer = std::make_shared<CpuBuffer>(static_cast<size_t>(n) * DTypeSize(dtype));
  handle.shape = shape;
  handle.strides = TensorHandle::ContiguousStrides(shape);
  handle.offset = 0;
  handle.dtype = dtype;
  return handle;
}

std::byte* ElementData(const TensorHandle& handle) {
  auto* buffer = static_cast<CpuBuffer*>(handle.buffer.get());
  EMBER_DCHECK(buffer != nullptr && buffer->backend() == "cpu", "not a CPU handle");
  return buffer->data() + handle.offset * DTypeSize(handle.dtype);
}

bool MayWriteInPlace(const TensorHandle& handle) {
  if (handle.buffer == nullptr || handle.buffer.use_count() != 1) return false;
  return !handle.buffer->borrowed();
}

}  // namespace ember::cpu

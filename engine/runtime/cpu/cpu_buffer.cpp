#include "engine/runtime/cpu/cpu_buffer.h"

#include "engine/runtime/cpu/buffer_cache.h"

#include "engine/core/check.h"

namespace ember::cpu {

CpuBuffer::CpuBuffer(size_t bytes)
    : data_(BufferCache::Global().Allocate(bytes, &capacity_)), size_(bytes) {}

CpuBuffer::~CpuBuffer() { BufferCache::Global().Release(data_, capacity_); }

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

bool IsSoleOwner(const TensorHandle& handle) { return handle.buffer.use_count() == 1; }

}  // namespace ember::cpu

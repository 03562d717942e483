// CpuBuffer: host memory owned by the CPU backend, 64-byte aligned (one cache line, and enough
// for any SIMD load), taken from and given back to the BufferCache (buffer_cache.h). Handles share
// it through shared_ptr (engine/runtime/buffer.h), so a view and its source alias the same
// CpuBuffer.
//
// The helpers below are the only places that turn a handle into a raw pointer.
// REQUIRES (all helpers): the handle's buffer is a CpuBuffer.
#pragma once

#include <cstddef>
#include <memory>

#include "engine/runtime/buffer.h"
#include "engine/runtime/handle.h"

namespace ember::cpu {

inline constexpr size_t kBufferAlignment = 64;

class CpuBuffer final : public Buffer {
 public:
  // Uninitialized memory of `bytes` bytes (a zero-byte buffer still has a valid pointer).
  explicit CpuBuffer(size_t bytes);
  ~CpuBuffer() override;
  CpuBuffer(const CpuBuffer&) = delete;
  CpuBuffer& operator=(const CpuBuffer&) = delete;

  size_t size() const override { return size_; }
  std::string_view backend() const override { return "cpu"; }
  std::byte* data() const { return data_; }

 private:
  size_t capacity_ = 0;  // its size class in the BufferCache (buffer_cache.h)
  std::byte* data_;
  size_t size_;
};

// A new contiguous (row-major) handle with uninitialized elements.
TensorHandle NewHandle(const Shape& shape, DType dtype);

// Address of the handle's element at multi-index 0 (buffer start + offset elements).
std::byte* ElementData(const TensorHandle& handle);

// True when the handle's buffer is referenced by no other handle, so an op may overwrite it
// (the in-place reuse of a last-use input).
bool IsSoleOwner(const TensorHandle& handle);

}  // namespace ember::cpu

// CpuBuffer: host memory of the CPU backend. Handles share it through shared_ptr
// (engine/runtime/buffer.h), so a view and its source alias the same CpuBuffer. Two kinds:
//  - owned: 64-byte aligned (one cache line), taken from and given back to the BufferCache
//    (buffer_cache.h); ember writes it, and may reuse it in place for an op's output;
//  - borrowed: foreign memory (ember::ImportMemory, a NumPy array or a PyTorch tensor through
//    DLPack) that stays its producer's. Its alignment is the producer's: the kernels need only
//    the element type's (they already read slices that start anywhere; no kernel uses aligned
//    vector loads on tensor memory). ember never writes it, and dropping the buffer releases
//    its owner instead of returning memory to the cache (Note [Borrowed host memory]).
//
// The helpers below are the only places that turn a handle into a raw pointer.
// REQUIRES (all helpers but MayWriteInPlace): the handle's buffer is a CpuBuffer.
#pragma once

#include <cstddef>
#include <memory>

#include "engine/runtime/buffer.h"
#include "engine/runtime/handle.h"

namespace ember::cpu {

inline constexpr size_t kBufferAlignment = 64;

// Note [Borrowed host memory]
// A borrowed CpuBuffer wraps `bytes` bytes at `data` that belong to someone else, kept alive by
// `owner` (a shared_ptr whose deleter is the producer's release: a DLPack deleter, a
// Py_DECREF). Two rules follow:
//  1. ember never writes the memory. The one way ember writes a buffer it did not just allocate
//     is the in-place reuse of a last-use input, and every such decision asks
//     MayWriteInPlace (map_tiles.cpp, fused_outputs.cpp), which refuses borrowed buffers.
//  2. The owner is released when the last handle goes, which may be on any thread, with or
//     without the GIL, under a device server's lock (a Drop, a last use in a kernel). The
//     owner's deleter must therefore not call ember nor wait for anything a thread calling
//     ember may hold; the Python module defers its deleters (Note [Deferred releases],
//     engine/python/deferred_release.h).
class CpuBuffer final : public Buffer {
 public:
  // Uninitialized owned memory of `bytes` bytes (a zero-byte buffer still has a valid pointer).
  explicit CpuBuffer(size_t bytes);
  // Borrowed memory: `bytes` bytes at `data`, alive while `owner` is (Note [Borrowed host
  // memory]). REQUIRES: data != nullptr.
  CpuBuffer(std::byte* data, size_t bytes, std::shared_ptr<const void> owner);
  ~CpuBuffer() override;
  CpuBuffer(const CpuBuffer&) = delete;
  CpuBuffer& operator=(const CpuBuffer&) = delete;

  size_t size() const override { return size_; }
  std::string_view backend() const override { return "cpu"; }
  std::byte* data() const { return data_; }
  bool borrowed() const override { return borrowed_; }

 private:
  size_t capacity_ = 0;  // its size class in the BufferCache (buffer_cache.h); 0 when borrowed
  std::byte* data_;
  size_t size_;
  bool borrowed_ = false;
  std::shared_ptr<const void> owner_;  // borrowed memory's keeper
};

// A new contiguous (row-major) handle with uninitialized elements.
TensorHandle NewHandle(const Shape& shape, DType dtype);

// Address of the handle's element at multi-index 0 (buffer start + offset elements).
std::byte* ElementData(const TensorHandle& handle);

// True when an op may overwrite the handle's buffer (the in-place reuse of a last-use input):
// the memory is ember's own (not borrowed, Note [Borrowed host memory]) and no other handle
// references it. The one test for every in-place decision of the CPU backend, and of the CUDA
// backend's fused launches (it asks only Buffer's interface, so any backend's buffer will do).
bool MayWriteInPlace(const TensorHandle& handle);

}  // namespace ember::cpu

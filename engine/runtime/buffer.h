// Buffer: a block of memory owned by one backend (host memory for the CPU backend, device
// memory for CUDA). An interface because it is a resource: handles share a buffer through
// shared_ptr, so views (reshape, permute, slice, expand, shared views across streams) alias it
// without copying and the memory goes back when the last handle does.
#pragma once

#include <cstddef>
#include <string_view>

namespace ember {

class Buffer {
 public:
  virtual ~Buffer() = default;
  // Bytes owned.
  virtual size_t size() const = 0;
  // "cpu", "cuda".
  virtual std::string_view backend() const = 0;
  // Memory that belongs to someone else (ember::ImportMemory): ember never writes it, so no op
  // reuses it in place for an output (cpu::MayWriteInPlace).
  virtual bool borrowed() const { return false; }
};

}  // namespace ember

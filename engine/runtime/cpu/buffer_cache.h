// BufferCache: the CPU backend's caching allocator. A program that repeats (a training step, a
// served request) frees and allocates the same sizes every step; returning freed buffers to the
// system and asking again costs a malloc and, for the large ones that glibc maps with mmap, a
// page fault per 4 KiB on first touch, every step (issue 18's profile: about a quarter of a
// CPU transformer step). The cache keeps freed buffers by size class and hands them out again,
// already faulted in, so the steady state of a repeated program allocates nothing from the
// system.
//
// Size classes: 64 bytes, then four per power of two (a request rounds up by at most 25%).
// The cache holds at most kMaxCachedBytes of free buffers; a buffer freed beyond that goes
// back to the system (under AddressSanitizer every one does, so that a use after free is still
// caught). Process-wide (a buffer may be freed by another thread or device server
// than the one that allocated it).
//
// Threading: thread-safe (one mutex; uncontended in the engine, whose backend runs under its
// server's lock).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace ember::cpu {

class BufferCache {
 public:
  static constexpr size_t kMaxCachedBytes = size_t{1} << 30;

  struct Stats {
    uint64_t reused = 0;     // allocations served from the cache
    uint64_t allocated = 0;  // allocations that went to the system
    size_t cached_bytes = 0;
  };

  static BufferCache& Global();

  // A 64-byte aligned block of at least `bytes` bytes; *capacity is its size class, which
  // Release must be given back.
  std::byte* Allocate(size_t bytes, size_t* capacity);
  void Release(std::byte* data, size_t capacity);
  // Returns every cached buffer to the system.
  void Trim();
  Stats stats() const;

  // The size class of a request of `bytes` (tests).
  static size_t ClassOf(size_t bytes);

 private:
  mutable std::mutex mu_;
  std::unordered_map<size_t, std::vector<std::byte*>> free_;  // by size class
  Stats stats_;
};

}  // namespace ember::cpu

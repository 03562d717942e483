#include "engine/runtime/cpu/buffer_cache.h"

#include <bit>
#include <new>

#include "engine/runtime/cpu/cpu_buffer.h"

namespace ember::cpu {

BufferCache& BufferCache::Global() {
  // Never destroyed: buffers held by static tensors are released after every destructor ran.
  static BufferCache* cache = new BufferCache();
  return *cache;
}

size_t BufferCache::ClassOf(size_t bytes) {
  constexpr size_t kSmallest = 64;
  if (bytes <= kSmallest) return kSmallest;
  // Four classes per power of two: round up to a multiple of a quarter of the power below.
  const size_t power = std::bit_floor(bytes);
  const size_t step = power / 4;
  return (bytes + step - 1) / step * step;
}

std::byte* BufferCache::Allocate(size_t bytes, size_t* capacity) {
  *capacity = ClassOf(bytes);
  {
    std::lock_guard lock(mu_);
    auto it = free_.find(*capacity);
    if (it != free_.end() && !it->second.empty()) {
      std::byte* data = it->second.back();
      it->second.pop_back();
      stats_.cached_bytes -= *capacity;
      ++stats_.reused;
      return data;
    }
    ++stats_.allocated;
  }
  return static_cast<std::byte*>(::operator new (*capacity, std::align_val_t{kBufferAlignment}));
}

void BufferCache::Release(std::byte* data, size_t capacity) {
#if defined(__SANITIZE_ADDRESS__)
  // Under AddressSanitizer every buffer goes back at once, so a use after free is still caught.
  ::operator delete (data, std::align_val_t{kBufferAlignment});
  return;
#endif
  {
    std::lock_guard lock(mu_);
    if (stats_.cached_bytes + capacity <= kMaxCachedBytes) {
      free_[capacity].push_back(data);
      stats_.cached_bytes += capacity;
      return;
    }
  }
  ::operator delete (data, std::align_val_t{kBufferAlignment});
}

void BufferCache::Trim() {
  std::unordered_map<size_t, std::vector<std::byte*>> drop;
  {
    std::lock_guard lock(mu_);
    drop.swap(free_);
    stats_.cached_bytes = 0;
  }
  for (auto& [capacity, blocks] : drop) {
    for (std::byte* data : blocks) ::operator delete (data, std::align_val_t{kBufferAlignment});
  }
}

BufferCache::Stats BufferCache::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

}  // namespace ember::cpu

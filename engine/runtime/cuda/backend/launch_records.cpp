#include "engine/runtime/cuda/backend/launch_records.h"

#include <utility>

namespace ember::cuda {

uint64_t LaunchRecords::HashOf(uint64_t serial, const codegen::LaunchBinding& binding) {
  return (serial * 0x9e3779b97f4a7c15ull) ^ binding.Hash();
}

const LaunchRecord* LaunchRecords::Find(uint64_t serial, const codegen::LaunchBinding& binding) {
  const uint64_t hash = HashOf(serial, binding);
  auto [begin, end] = index_.equal_range(hash);
  for (auto it = begin; it != end; ++it) {
    Entry& entry = *it->second;
    if (entry.serial != serial || !(entry.binding == binding)) continue;
    lru_.splice(lru_.begin(), lru_, it->second);
    ++counters_.hits;
    return &entry.record;
  }
  ++counters_.misses;
  return nullptr;
}

const LaunchRecord& LaunchRecords::Add(uint64_t serial, const codegen::LaunchBinding& binding,
                                       LaunchRecord record) {
  while (!lru_.empty() && lru_.size() >= capacity_) {
    const auto last = std::prev(lru_.end());
    auto [begin, end] = index_.equal_range(last->hash);
    for (auto it = begin; it != end; ++it) {
      if (it->second == last) {
        index_.erase(it);
        break;
      }
    }
    lru_.pop_back();
    ++counters_.evictions;
  }
  const uint64_t hash = HashOf(serial, binding);
  lru_.push_front(
      {.serial = serial, .hash = hash, .binding = binding, .record = std::move(record)});
  index_.emplace(hash, lru_.begin());
  return lru_.front().record;
}

}  // namespace ember::cuda

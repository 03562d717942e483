// The last few explained misses of a device (ember::RecentMisses, stats.h): each processor
// keeps its own, and the device merges them, oldest first, with the ones of streams already
// removed. Misses happen on the exploring path, so keeping their lines costs the cache-hit
// path nothing.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

namespace ember {

class MissHistory {
 public:
  static constexpr size_t kKept = 16;

  // Adds `line` as the newest; the oldest goes beyond kKept.
  void Add(std::string line) {
    entries_.emplace_back(next_sequence_.fetch_add(1, std::memory_order_relaxed), std::move(line));
    if (entries_.size() > kKept) entries_.pop_front();
  }
  // Adds `other`'s entries, keeping the newest kKept of both in the order they happened.
  void Merge(const MissHistory& other);
  std::vector<std::string> lines() const;

 private:
  // Orders the misses of all streams of the process.
  static inline std::atomic<uint64_t> next_sequence_{0};
  std::deque<std::pair<uint64_t, std::string>> entries_;
};

}  // namespace ember

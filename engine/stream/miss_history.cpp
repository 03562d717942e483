#include "engine/stream/miss_history.h"

#include <algorithm>
#include <iterator>

namespace ember {

void MissHistory::Merge(const MissHistory& other) {
  std::deque<std::pair<uint64_t, std::string>> merged;
  std::merge(entries_.begin(), entries_.end(), other.entries_.begin(), other.entries_.end(),
             std::back_inserter(merged),
             [](const auto& a, const auto& b) { return a.first < b.first; });
  while (merged.size() > kKept) merged.pop_front();
  entries_ = std::move(merged);
}

std::vector<std::string> MissHistory::lines() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const auto& [sequence, line] : entries_) out.push_back(line);
  return out;
}

}  // namespace ember

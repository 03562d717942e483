#include "engine/runtime/window_tracker.h"

#include <algorithm>
#include <iterator>

#include "engine/core/check.h"

namespace ember {
namespace {

// Eager windows' tapes remembered while they repeat; past this many, the counts start over (a
// program whose windows never repeat must not grow them without bound).
constexpr size_t kMostSeen = 4096;

uint64_t FirstStep(const GraphTape& tape) { return TapeStep(kTapeSeed, tape.launches.front()); }

}  // namespace

std::vector<const WindowTracker::Graph*> WindowTracker::StartingWith(
    const TapeLaunch& first) const {
  std::vector<const Graph*> found;
  auto [begin, end] = by_first_.equal_range(TapeStep(kTapeSeed, first));
  for (auto it = begin; it != end; ++it) {
    if (it->second->tape.launches.front() == first) found.push_back(&*it->second);
  }
  return found;
}

const GraphTape& WindowTracker::GraphTapeOf(GraphId id) const {
  for (const Graph& g : lru_) {
    if (g.id == id) return g.tape;
  }
  EMBER_CHECK(false, "graph {} is not kept", id);
  return lru_.front().tape;  // unreachable
}

bool WindowTracker::complete() const {
  if (!holding_) return false;
  const size_t n = tape_.launches.size();
  return std::all_of(candidates_.begin(), candidates_.end(),
                     [&](const Graph* g) { return g->tape.launches.size() == n; });
}

WindowTracker::LaunchAction WindowTracker::OnLaunch(const TapeLaunch& launch) {
  if (ended_) {
    tape_.launches.clear();
    hash_ = kTapeSeed;
    ended_ = false;
  }
  const size_t at = tape_.launches.size();
  LaunchAction action = LaunchAction::kDirect;
  if (at == 0) {
    candidates_ = lru_.empty() ? std::vector<const Graph*>{} : StartingWith(launch);
    holding_ = !candidates_.empty();
    if (holding_) action = LaunchAction::kHold;
  } else if (holding_) {
    std::erase_if(candidates_, [&](const Graph* g) {
      return g->tape.launches.size() <= at || !(g->tape.launches[at] == launch);
    });
    holding_ = !candidates_.empty();
    action = holding_ ? LaunchAction::kHold : LaunchAction::kDiverged;
  }
  tape_.launches.push_back(launch);
  hash_ = TapeStep(hash_, launch);
  return action;
}

WindowTracker::EndAction WindowTracker::End() {
  EndAction action;
  if (ended_ || tape_.launches.empty()) return action;
  ended_ = true;
  if (holding_) {
    const size_t n = tape_.launches.size();
    auto whole = std::find_if(candidates_.begin(), candidates_.end(),
                              [&](const Graph* g) { return g->tape.launches.size() == n; });
    holding_ = false;
    if (whole != candidates_.end()) {
      action.kind = EndAction::Kind::kReplay;
      action.graph = (*whole)->id;
      candidates_.clear();
      for (auto it = lru_.begin(); it != lru_.end(); ++it) {
        if (it->id == action.graph) {
          lru_.splice(lru_.begin(), lru_, it);
          break;
        }
      }
      return action;
    }
    action.kind = EndAction::Kind::kEndedEarly;
  }
  candidates_.clear();
  Observe(&action);
  return action;
}

void WindowTracker::Observe(EndAction* action) {
  if (tape_.launches.size() < 2) return;  // one launch gains nothing from a graph
  auto it = seen_.find(hash_);
  if (it != seen_.end() && !(it->second.tape == tape_)) return;  // a collision: never captured
  if (it == seen_.end()) {
    if (seen_.size() >= kMostSeen) seen_.clear();
    it = seen_.emplace(hash_, Seen{.tape = tape_}).first;
  }
  Seen& seen = it->second;
  if (seen.refused || seen.runs == UINT32_MAX) return;
  ++seen.runs;
  auto stored = stored_.find(hash_);
  const bool recipe = stored != stored_.end() && stored->second == tape_;
  if (seen.runs < (recipe ? 1u : settings_.after)) return;
  // Kept already (a window that begins like another graph and ends where this one does).
  for (const Graph* g : StartingWith(tape_.launches.front())) {
    if (g->tape == tape_) return;
  }
  action->capture = true;
  action->from_recipe = recipe;
  action->runs = seen.runs;
}

WindowTracker::Kept WindowTracker::Captured() {
  EMBER_CHECK(ended_ && !tape_.launches.empty(), "Captured without a window that ended");
  Kept kept{.id = next_id_++};
  lru_.push_front({.id = kept.id, .tape = tape_, .hash = hash_});
  by_first_.emplace(FirstStep(tape_), lru_.begin());
  while (lru_.size() > settings_.capacity) Evict(&kept.evicted);
  return kept;
}

void WindowTracker::Refused() {
  auto it = seen_.find(hash_);
  if (it != seen_.end()) it->second.refused = true;
}

void WindowTracker::Evict(std::vector<GraphId>* evicted) {
  auto last = std::prev(lru_.end());
  auto [begin, end] = by_first_.equal_range(FirstStep(last->tape));
  for (auto it = begin; it != end; ++it) {
    if (it->second == last) {
      by_first_.erase(it);
      break;
    }
  }
  // An evicted tape may be captured again: it has to repeat again first.
  seen_.erase(last->hash);
  evicted->push_back(last->id);
  lru_.erase(last);
}

}  // namespace ember

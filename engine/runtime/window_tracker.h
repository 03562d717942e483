// WindowTracker: the decisions of launch windows (Note [Launch windows], engine/runtime/cuda/
// backend/launch_graphs.h), apart from the driver calls that carry them out, so that they can be
// tested on a machine without a GPU: which tapes have repeated and are due for capture, which
// captured graphs a window still matches, when a held window must run eagerly, when it is
// complete, and which graphs the capacity evicts.
//
// The caller (LaunchGraphs) tells it every launch (OnLaunch) and every window end (End), and
// does what the answers say: launch now, hold, submit what is held eagerly, replay a graph,
// capture the window just ended (then Captured or Refused), destroy what Captured evicted.
//
// Pure; one caller at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

#include "engine/runtime/graph_tape.h"

namespace ember {

class WindowTracker {
 public:
  using GraphId = uint64_t;

  struct Settings {
    uint32_t after = 2;    // eager runs of a tape before it is captured ([runtime] graph_after)
    size_t capacity = 64;  // graphs kept ([runtime] graph_cache)
    size_t most_launches = 64;  // a window that reaches it ends there
  };

  enum class LaunchAction : uint8_t {
    kDirect,    // launch it now
    kHold,      // keep it (the window matches a graph so far)
    kDiverged,  // the held window matches no graph after all: submit what is held, in order,
                // then launch this one now
  };
  struct EndAction {
    enum class Kind : uint8_t {
      kNothing,     // the window ran eagerly
      kReplay,      // replay `graph` (now the most recently used) with the held arguments
      kEndedEarly,  // the held window ended before any graph it matched: submit it eagerly
    };
    Kind kind = Kind::kNothing;
    GraphId graph = 0;
    // Capture the window that just ended (its launches, as run): call Captured or Refused.
    bool capture = false;
    bool from_recipe = false;  // the capture is due to a stored recipe
    uint32_t runs = 0;         // the eager runs of its tape so far
  };

  explicit WindowTracker(Settings settings) : settings_(settings) {}

  // Recipes: tapes another process captured; one of them is captured after its first run.
  void AddRecipe(uint64_t key, GraphTape tape) { stored_.insert_or_assign(key, std::move(tape)); }
  bool HasRecipe(uint64_t key) const { return stored_.contains(key); }

  // Whether the window has launches, and whether it is full (the caller ends it first).
  bool in_window() const { return !ended_ && !tape_.launches.empty(); }
  bool full() const { return in_window() && tape_.launches.size() >= settings_.most_launches; }
  bool holding() const { return holding_; }
  // The held window matches a graph to its end and no longer graph: the caller ends it now.
  bool complete() const;

  // The next launch of the window (the first of a new one after End).
  LaunchAction OnLaunch(const TapeLaunch& launch);
  // The window ends; its tape is forgotten afterwards (after Captured/Refused when asked).
  EndAction End();
  // The window End asked to capture was captured: it is kept as the most recently used graph,
  // under `id`; the graphs the capacity evicted are for the caller to destroy.
  struct Kept {
    GraphId id = 0;
    std::vector<GraphId> evicted;
  };
  Kept Captured();
  // Its capture failed: that tape is never captured again (until forgotten).
  void Refused();

  // The window so far and its hash (TapeHash of it); after End, until the next launch, the
  // window that ended.
  const GraphTape& tape() const { return tape_; }
  uint64_t hash() const { return hash_; }
  // The tape of graph `id` (REQUIRES: kept).
  const GraphTape& GraphTapeOf(GraphId id) const;
  size_t graphs() const { return lru_.size(); }

 private:
  struct Seen {
    GraphTape tape;
    uint32_t runs = 0;
    bool refused = false;
  };
  struct Graph {
    GraphId id = 0;
    GraphTape tape;
    uint64_t hash = 0;
  };
  std::vector<const Graph*> StartingWith(const TapeLaunch& first) const;
  // Counts the eager window that ends, and says in `action` whether it is due for capture.
  void Observe(EndAction* action);
  void Evict(std::vector<GraphId>* evicted);

  const Settings settings_;
  std::unordered_map<uint64_t, GraphTape> stored_;
  std::unordered_map<uint64_t, Seen> seen_;
  std::list<Graph> lru_;  // most recently used first
  std::unordered_multimap<uint64_t, std::list<Graph>::iterator> by_first_;
  GraphTape tape_;
  uint64_t hash_ = kTapeSeed;
  bool holding_ = false;
  std::vector<const Graph*> candidates_;
  // End leaves the ended window's tape in place (so Captured can keep it) and this set: the
  // next launch starts a new window.
  bool ended_ = false;
  GraphId next_id_ = 1;
};

}  // namespace ember

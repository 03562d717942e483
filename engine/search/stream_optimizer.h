// StreamOptimizer: groups a stream's relative ops into blocks as they arrive and, when asked,
// turns the blocks into one BlockOptimization covering a prefix of the segment (burn's
// StreamOptimizer, burn-fusion's search/optimization/stream.rs).
//
// Registration: an op joins every block with which it shares any tensor id; an op linking
// blocks that cannot merge gets its own dependent block; at most `max_blocks` blocks live at
// once (at the cap all blocks are force-merged, and if that fails the optimizer stops and
// ignores further ops until Reset). Optimize: merging pass, topological order with the
// (position, index) tie-break, best ready fuser per block, holes re-searched with fresh
// fusers, order repair; the trailing tail is left uncovered (the caller includes it at sync).
//
// Threading: one per stream (inside its Explorer).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "engine/fuse/fuser.h"
#include "engine/ir/operation_ir.h"
#include "engine/search/strategy.h"

namespace ember {

class StreamOptimizer {
 public:
  // `fusers`: the prototype fusers, in tie-break order (cloned per block, never fed).
  // `max_blocks`: nullopt only in tests (no cap).
  StreamOptimizer(std::vector<std::unique_ptr<OperationFuser>> fusers,
                  std::optional<size_t> max_blocks);
  ~StreamOptimizer();
  StreamOptimizer(StreamOptimizer&&) noexcept;
  StreamOptimizer& operator=(StreamOptimizer&&) noexcept;

  // Registers the next relative op of the segment (position = ops registered so far).
  void Register(const OperationIr& op);
  // False once stopped; true with no blocks; else true iff some block has an Open fuser.
  bool StillOptimizing() const;
  // The plan for `ops` (the segment's relative ops; those registered are a prefix of it).
  // Covered positions are exactly 0..result.ordering.size(). Does not consume the blocks.
  // REQUIRES: at least one op registered.
  BlockOptimization Optimize(std::span<const OperationIr> ops) const;
  void Reset();

  bool stopped() const;
  size_t num_blocks() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ember

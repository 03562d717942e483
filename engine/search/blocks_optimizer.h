// BlocksOptimizer: turns the blocks of one exploration into a strategy (burn's
// search/optimization/blocks.rs).
//
//   1. merging pass (more than one block): sort by start_pos, seed constituents, guard with the
//      Dag of the blocks, MergeBlocks over all of them;
//   2. order: the Dag's topological order, or the list order should the blocks form a cycle;
//   3. each block, in that order, gives its strategy (Block::Optimize);
//   4. positions nobody covered below the last covered one are holes (the StreamOptimizer
//      searches them again); uncovered positions after it are the trailing tail, left queued.
//
// Single use: Optimize consumes the optimizer.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/search/block.h"
#include "engine/search/strategy.h"

namespace ember {

struct BlocksOptimizerResult {
  // No holes: `optimization` is the plan (a single strategy, or Composed when several).
  bool full = false;
  BlockOptimization optimization;
  // With holes: the top-level strategies, their concatenated ordering, and the holes in
  // ascending order.
  std::vector<ExecutionStrategy> strategies;
  std::vector<size_t> ordering;
  std::vector<size_t> holes;
};

class BlocksOptimizer {
 public:
  // REQUIRES: !blocks.empty().
  explicit BlocksOptimizer(std::vector<Block> blocks);

  BlocksOptimizerResult Optimize() &&;

 private:
  void MergingPass();

  std::vector<Block> blocks_;
  size_t num_ops_ = 0;
};

}  // namespace ember

#include "engine/search/blocks_optimizer.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "engine/core/check.h"
#include "engine/core/log.h"
#include "engine/search/graph/dag.h"
#include "engine/search/merging.h"

namespace ember {

BlocksOptimizer::BlocksOptimizer(std::vector<Block> blocks) : blocks_(std::move(blocks)) {
  EMBER_CHECK(!blocks_.empty(), "BlocksOptimizer needs at least one block");
  for (const Block& block : blocks_) num_ops_ = std::max(num_ops_, block.end_pos());
}

void BlocksOptimizer::MergingPass() {
  if (blocks_.size() == 1) return;
  Block::Sort(blocks_);
  // Seeded with the current indices so that the guard reasons about this graph.
  for (size_t i = 0; i < blocks_.size(); ++i) blocks_[i].SeedConstituent(i);
  const Reachability guard = Dag(BlockFlows(std::span<const Block>(blocks_))).Reachability();
  std::vector<const Block*> refs;
  for (const Block& block : blocks_) refs.push_back(&block);

  MergeBlocksResult result = MergeBlocks(refs, /*sorted=*/false, guard);
  switch (result.kind) {
    case MergeBlocksResult::Kind::kFull: blocks_ = std::move(result.merged); break;
    case MergeBlocksResult::Kind::kPartial:
      for (Block& block : result.failed) result.merged.push_back(std::move(block));
      blocks_ = std::move(result.merged);
      Block::Sort(blocks_);
      break;
    case MergeBlocksResult::Kind::kFail: break;
  }
}

BlocksOptimizerResult BlocksOptimizer::Optimize() && {
  MergingPass();

  // Registration and merging keep the blocks acyclic; the index order is only a fallback.
  std::optional<std::vector<size_t>> order =
      Dag(BlockFlows(std::span<const Block>(blocks_))).TopologicalOrder();
  if (!order) {
    order.emplace(blocks_.size());
    std::iota(order->begin(), order->end(), size_t{0});
  }

  BlocksOptimizerResult result;
  std::vector<bool> resolved(num_ops_, false);
  for (size_t index : *order) {
    BlockOptimization block_opt = blocks_[index].Optimize();
    for (size_t position : block_opt.ordering) resolved[position] = true;
    result.ordering.insert(result.ordering.end(), block_opt.ordering.begin(),
                           block_opt.ordering.end());
    result.strategies.push_back(std::move(block_opt.strategy));
  }

  // Unresolved positions before the last resolved one are holes; after it, the trailing tail.
  size_t last_resolved_end = 0;
  for (size_t i = num_ops_; i > 0; --i) {
    if (resolved[i - 1]) {
      last_resolved_end = i;
      break;
    }
  }
  for (size_t i = 0; i < last_resolved_end; ++i) {
    if (!resolved[i]) result.holes.push_back(i);
  }

  const size_t num_strategies = result.strategies.size();
  LogFusion(LogLevel::kBasic, [&] {
    return num_strategies > 1
               ? fmt::format("selected composed strategy ({} sub-strategies)", num_strategies)
               : std::string("selected single strategy");
  });

  if (!result.holes.empty()) return result;
  result.full = true;
  result.optimization.ordering = std::move(result.ordering);
  result.optimization.strategy = result.strategies.size() > 1
                                     ? ExecutionStrategy::Composed(std::move(result.strategies))
                                     : std::move(result.strategies.front());
  result.strategies.clear();
  result.ordering.clear();
  return result;
}

}  // namespace ember

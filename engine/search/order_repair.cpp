#include "engine/search/order_repair.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "engine/core/check.h"
#include "engine/core/log.h"
#include "engine/search/graph/dag.h"
#include "engine/search/graph/lifetime.h"
#include "engine/search/graph/node.h"

namespace ember {
namespace {

struct Chunk {
  std::vector<size_t> positions;
  DataFlow flow;
};

Chunk MakeChunk(std::vector<size_t> positions, std::span<const OperationIr> ops) {
  std::vector<TensorId> produced;
  for (size_t position : positions) {
    for (const TensorIr& out : ops[position].outputs) produced.push_back(out.id);
  }
  std::sort(produced.begin(), produced.end());
  std::vector<TensorId> read;
  std::vector<TensorId> freed;
  for (size_t position : positions) {
    for (const TensorIr& in : ops[position].inputs) {
      // A ReadWrite input frees the tensor even when this chunk produced it: readers in other
      // chunks must still run first.
      if (in.status == TensorStatus::kReadWrite) freed.push_back(in.id);
      if (!std::binary_search(produced.begin(), produced.end(), in.id)) read.push_back(in.id);
    }
  }
  const size_t position =
      positions.empty() ? 0 : *std::min_element(positions.begin(), positions.end());
  DataFlow flow = MakeDataFlow(std::move(produced), std::move(read), std::move(freed), position);
  return Chunk{.positions = std::move(positions), .flow = std::move(flow)};
}

bool OrderingIsValid(std::span<const size_t> ordering, std::span<const OperationIr> ops) {
  std::vector<DataFlow> nodes;
  nodes.reserve(ordering.size());
  for (size_t position : ordering) nodes.push_back(ForOperation(ops[position], position));
  return IsValidExecutionOrder(nodes);
}

BlockOptimization UnfusedStreamOrder(std::vector<size_t> positions) {
  LogFusion(LogLevel::kMedium, [&] {
    return fmt::format("[repair] falling back to unfused stream order ({} ops)", positions.size());
  });
  std::sort(positions.begin(), positions.end());
  return BlockOptimization{.strategy = ExecutionStrategy::Operations(positions),
                           .ordering = positions};
}

std::optional<std::vector<size_t>> ChunkOrder(const std::vector<Chunk>& chunks) {
  std::vector<DataFlow> flows;
  flows.reserve(chunks.size());
  for (const Chunk& chunk : chunks) flows.push_back(chunk.flow);
  return Dag(flows).TopologicalOrder();
}

BlockOptimization Assemble(std::vector<ExecutionStrategy> strategies,
                           const std::vector<Chunk>& chunks, const std::vector<size_t>& order,
                           std::span<const OperationIr> ops) {
  std::vector<ExecutionStrategy> emitted;
  std::vector<size_t> ordering;
  emitted.reserve(order.size());
  for (size_t k : order) {
    emitted.push_back(std::move(strategies[k]));
    ordering.insert(ordering.end(), chunks[k].positions.begin(), chunks[k].positions.end());
  }
  // A chunk that is wrong inside is not fixed by ordering chunks: check the op order.
  if (!OrderingIsValid(ordering, ops)) return UnfusedStreamOrder(std::move(ordering));
  return BlockOptimization{.strategy = ExecutionStrategy::Composed(std::move(emitted)),
                           .ordering = std::move(ordering)};
}

// Unfused chunks run op by op anyway, so splitting them removes ordering constraints without
// losing a fusion; fused chunks stay atomic.
BlockOptimization RepairSplit(std::vector<ExecutionStrategy> strategies, std::vector<Chunk> chunks,
                              std::span<const OperationIr> ops) {
  std::vector<ExecutionStrategy> split_strategies;
  std::vector<Chunk> split_chunks;
  for (size_t i = 0; i < strategies.size(); ++i) {
    if (strategies[i].kind == ExecutionStrategy::Kind::kOperations) {
      for (size_t position : chunks[i].positions) {
        split_strategies.push_back(ExecutionStrategy::Operations({position}));
        split_chunks.push_back(MakeChunk({position}, ops));
      }
    } else {
      split_strategies.push_back(std::move(strategies[i]));
      split_chunks.push_back(std::move(chunks[i]));
    }
  }
  const std::optional<std::vector<size_t>> order = ChunkOrder(split_chunks);
  if (order) return Assemble(std::move(split_strategies), split_chunks, *order, ops);
  // Fused chunks feed each other: nothing but stream order is safe.
  std::vector<size_t> positions;
  for (const Chunk& chunk : split_chunks) {
    positions.insert(positions.end(), chunk.positions.begin(), chunk.positions.end());
  }
  return UnfusedStreamOrder(std::move(positions));
}

}  // namespace

BlockOptimization RepairOrder(BlockOptimization optimization, std::span<const OperationIr> ops) {
  if (optimization.strategy.kind != ExecutionStrategy::Kind::kComposed) {
    if (OrderingIsValid(optimization.ordering, ops)) return optimization;
    return UnfusedStreamOrder(std::move(optimization.ordering));
  }

  std::vector<ExecutionStrategy> strategies = std::move(optimization.strategy.children);
  std::vector<Chunk> chunks;
  chunks.reserve(strategies.size());
  size_t offset = 0;
  for (const ExecutionStrategy& strategy : strategies) {
    const size_t len = strategy.FlatOrdering().size();
    EMBER_CHECK(offset + len <= optimization.ordering.size(),
                "strategy covers more positions than the ordering holds");
    chunks.push_back(MakeChunk(
        std::vector<size_t>(optimization.ordering.begin() + static_cast<ptrdiff_t>(offset),
                            optimization.ordering.begin() + static_cast<ptrdiff_t>(offset + len)),
        ops));
    offset += len;
  }

  const std::optional<std::vector<size_t>> order = ChunkOrder(chunks);
  if (!order) return RepairSplit(std::move(strategies), std::move(chunks), ops);
  return Assemble(std::move(strategies), chunks, *order, ops);
}

}  // namespace ember

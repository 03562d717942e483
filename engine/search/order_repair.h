// RepairOrder: the last pass over every StreamOptimizer result (burn's repair_order,
// search/optimization/stream.rs): put the top-level strategies into an execution order that
// respects tensor lifetimes, or give up fusion for the segment.
//
// Blocks and re-searched holes are placed by separate steps that cannot see each other (a hole
// may feed a block emitted before it), so:
//   * a single (non-Composed) strategy is kept if its ordering is a valid execution order of
//     the ops, else replaced by Operations over its positions in stream order;
//   * a Composed strategy is split back into one Chunk per top-level child (its share of the
//     concatenated ordering); each Chunk is a DataFlow (produced = outputs of its ops, read =
//     inputs none of its ops produce, freed = ReadWrite inputs, position = smallest position);
//     the chunks are emitted in the Dag's topological order and the resulting op order is
//     checked. On a chunk cycle every unfused chunk is split into one-op chunks (fused ones stay
//     whole) and the sort retried. Whatever still fails runs unfused in stream order, logged
//     "[repair] falling back to unfused stream order (N ops)".
//
// Pure function.
#pragma once

#include <span>

#include "engine/ir/operation_ir.h"
#include "engine/search/strategy.h"

namespace ember {

// `ops`: the segment's relative ops; every position in `optimization` indexes it.
BlockOptimization RepairOrder(BlockOptimization optimization, std::span<const OperationIr> ops);

}  // namespace ember

// IsValidExecutionOrder: whether running DataFlow nodes in a given order keeps every tensor
// alive while it is read (burn's search/graph/lifetime.rs).
//
// Used before a merge (a block's ops followed by the other block's ops must still be a valid
// order) and by order repair (the op-level order a strategy would execute). The simulation, node
// by node in the given order:
//   0. Before walking, collect every id that some node of the order produces.
//   1. Each read id: dead → invalid. Not yet alive → invalid if some node of the order produces
//      it (it is read before its producer ran); otherwise it comes from outside the order (an
//      earlier segment, or a node not in the order) and becomes alive.
//   2. Each freed id becomes dead, whether or not it was alive.
//   3. Each produced id becomes alive, even if it was dead.
// Consequences worth knowing (they are burn's): a second free of an id that is not read again
// is not an error; a node that frees and produces the same id (a block that creates a tensor
// and consumes it in place) leaves it alive; a DataFlow that frees an id without listing it as
// read does not need it alive.
//
// Pure functions. REQUIRES: IsCanonical for every node (engine/search/graph/node.h).
#pragma once

#include <cstddef>
#include <span>

#include "engine/search/graph/node.h"

namespace ember {

// `order` is the nodes in execution order.
bool IsValidExecutionOrder(std::span<const DataFlow> order);

// The nodes nodes[order[0]], nodes[order[1]], … in that execution order; `order` may name a
// subset of the nodes (the others count as outside the order).
// REQUIRES: every index in `order` is < nodes.size().
bool IsValidExecutionOrder(std::span<const DataFlow> nodes, std::span<const size_t> order);

}  // namespace ember

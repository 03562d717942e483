// DataFlow: what one node of a dependency graph produces, reads and frees (burn's GraphNode
// trait, search/graph/node.rs).
//
// A node is whatever the search wants to order: a single op, a Block, a Chunk of an execution
// strategy. Edges are never stored with the nodes; Dag derives them from these three sets
// (Note [Block dependencies] in engine/search/graph/dag.h), and IsValidExecutionOrder
// (engine/search/graph/lifetime.h) simulates tensor lifetimes from them. Each kind of node fills
// the sets with its own meaning:
//   an op (ForOperation below): produced = its outputs, read = all of its inputs,
//     freed = its ReadWrite inputs;
//   a Block: produced = outputs of its ops, read = inputs not produced inside the block,
//     freed = ReadWrite inputs, even when produced inside;
//   a Chunk: as a Block, over the ops of one strategy.
// `position` is the node's place in stream order (an op's position, a Block's start_pos, a
// Chunk's smallest position); it only breaks ties between independent nodes.
//
// Representation: each set is a sorted vector without duplicates, not a std::set or a hash set.
// The sets are small (a handful of ids per op, tens to a few hundred per block), built once and
// then queried O(n²) times by Dag; sorted vectors make a membership query a binary search and an
// "any shared id" test one linear merge, over contiguous memory and with no per-element
// allocation. Order within a set carries no meaning in burn (its blocks iterate hash sets), so
// sorting loses nothing.
//
// REQUIRES (every function taking a DataFlow): IsCanonical(flow), which MakeDataFlow and
// ForOperation guarantee. A hand-built DataFlow must sort and deduplicate its vectors itself.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/ir/operation_ir.h"
#include "engine/ir/tensor_ir.h"

namespace ember {

struct DataFlow {
  std::vector<TensorId> produced;  // sorted, unique
  std::vector<TensorId> read;      // sorted, unique
  std::vector<TensorId> freed;     // sorted, unique; the last use releases the buffer
  size_t position = 0;

  bool Produces(TensorId id) const;
  bool Reads(TensorId id) const;
  bool Frees(TensorId id) const;
};

// Whether every set of `flow` is sorted and free of duplicates.
bool IsCanonical(const DataFlow& flow);

// A DataFlow from unsorted sets that may repeat ids.
DataFlow MakeDataFlow(std::vector<TensorId> produced, std::vector<TensorId> read,
                      std::vector<TensorId> freed, size_t position);

// The DataFlow of one op at stream position `position` (burn's OperationNode, block.rs):
// produced = ids of `op.outputs`, read = ids of every input (ReadOnly and ReadWrite alike),
// freed = ids of the inputs whose status is ReadWrite. A Drop therefore reads and frees its
// tensor and produces nothing.
DataFlow ForOperation(const OperationIr& op, size_t position);

// Whether the sorted, duplicate-free ranges `a` and `b` share an id.
bool SortedOverlap(const std::vector<TensorId>& a, const std::vector<TensorId>& b);

}  // namespace ember

// Merging blocks (burn's search/merging.rs): combine blocks into fewer, larger ones when the
// merge keeps a valid execution order, creates no dependency cycle and is worth it
// (Block::Merge's acceptance rule).
//
// MergeBlocks tries, in two steps, a bounded set of merge orders (all orders would be
// exponential):
//   step 1: split the list into chunks of len/2 blocks (ceil(len / (len/2)) chunks, the last one
//           shorter), merge each chunk recursively, and sort the outcomes into full / partial /
//           failed lists;
//   step 2: fold those lists with the accumulator (a base block absorbing the others one by
//           one), in burn's fixed order: partials among themselves, partials with the failed,
//           fulls among themselves, fulls with the failed, fulls with the partials.
// Every merge first asks the guard (Reachability over the blocks' original graph, Note [Merge
// guard] in engine/search/graph/dag.h) whether contracting the two blocks is acyclic, so the
// blocks' constituents must be seeded by the caller.
//
// Pure functions over copies: the input blocks are never modified.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "engine/search/block.h"
#include "engine/search/graph/dag.h"

namespace ember {

struct MergeBlocksResult {
  enum class Kind { kFull, kPartial, kFail };

  Kind kind = Kind::kFail;
  // kFull: exactly one block. kPartial: the merged blocks.
  std::vector<Block> merged;
  // kPartial: the blocks that merged with nothing.
  std::vector<Block> failed;

  static MergeBlocksResult Full(Block block);
  static MergeBlocksResult Partial(std::vector<Block> merged, std::vector<Block> failed);
  static MergeBlocksResult Fail() { return {}; }
};

// `a` and `b` as one block, if the guard allows contracting them and a merge in either
// direction (a then b, else b then a; each only when CanAppend) is accepted.
std::optional<Block> MergeTwo(const Block& a, const Block& b, const Reachability& guard);

// `sorted`: sort the Partial lists by start_pos (only tests ask).
MergeBlocksResult MergeBlocks(std::span<const Block* const> blocks, bool sorted,
                              const Reachability& guard);

// A copy of `base` absorbs each block of `rest` in turn (MergeTwo, which may flip the
// direction); Full if all merged, Partial{[accumulated], not merged} if some did, else Fail.
MergeBlocksResult MergeAccumulator(const Block& base, std::span<const Block> rest,
                                   const Reachability& guard);

}  // namespace ember

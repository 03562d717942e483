// ReduceLayout: how the blocks of a trace with reduce stages share positions, checked against
// the shapes one launch gives its blocks. The CPU's interpreter (Note [CPU fused groups],
// engine/runtime/cpu/fused_layout.h) and the CUDA code generator (Note [Kernel modes],
// codegen/kernel_source.h) both run such a trace by it, so both take it from here: the two
// backends agree on which launches fit and how their positions split into units.
//
// Every stage reduces the same full shape S = [outer..., length, inner...] along the same axis
// into the reduced shape R (S with the axis at 1): stage k reads a value of block `from` (over
// S) and hands the result to block from+1 (over R). Every block is over S or R.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/trace/fuse_trace.h"

namespace ember {

struct ReduceLayout {
  int64_t axis = -1;       // in [0, rank)
  int64_t units = 1;       // the outer positions: the product of S's dims before the axis
  int64_t length = 1;      // S's dim at the axis
  int64_t inner = 1;       // the product of S's dims after the axis
  Shape full_shape;        // S
  std::vector<bool> full;  // per block: over S (else over R)
};

// What MakeReduceLayout checks of each stage besides its blocks' shapes.
enum class ReduceStageArgs {
  kUnchecked,  // the caller checks the stages' arguments itself (the CPU's planner)
  // The stage reads a MultiBlockLocal of its own block into a Local (what the generated
  // kernels rely on), or it does not reduce this layout.
  kLocalOfItsBlock,
};

// The layout of `trace` launched with `block_shapes` (per block). Throws ember::Error when the
// stages and shapes do not fit it. REQUIRES: trace.reduces is not empty, and block_shapes has
// one shape per block.
ReduceLayout MakeReduceLayout(const FuseTrace& trace, std::span<const Shape> block_shapes,
                              ReduceStageArgs args);

}  // namespace ember

// The reduce stage of a fused trace (ReduceStage, engine/trace/fuse_trace.h) over one group of
// units (Note [CPU fused groups], fused_layout.h). It folds exactly as ReduceDim does
// (reduce_fold.h): the same accumulator, each output along the axis in order, the same final
// rounding, so a fused reduce is bit-identical to the unfused one over the materialized input;
// float rows fold in vector lanes through the same code as ReduceDim's (Note [Row folds in
// lanes], reduce_lanes.h).
// The stage's `acc` dtype is therefore not consulted: ReduceDim accumulates floats in double and
// ints in wrapping i64 whatever the output dtype.
#pragma once

#include <cstddef>
#include <cstdint>

#include <ember/dtype.h>

#include "engine/runtime/cpu/kernels.h"
#include "engine/runtime/cpu/thread_pool.h"

namespace ember::cpu {

struct ReducePlan {
  ReduceOp op = ReduceOp::kSum;
  int input = 0;   // group buffer of the block before: units x length x inner numbers
  int output = 0;  // group buffer of the block after: units x inner numbers
  DType input_dtype = DType::kF32;
  DType output_dtype = DType::kF32;  // the results are rounded to it, in its domain
};

// pool: spread the outputs over it; null: run on the calling thread.
void ReduceGroup(const ReducePlan& stage, const std::byte* input, std::byte* output, int64_t units,
                 int64_t length, int64_t inner, ThreadPool* pool);

}  // namespace ember::cpu

// The kernel tensors of one launch (TraceLaunch's numbering), their extents, and the checks a
// launch must pass before the planner (plan_trace.h) decides anything about it.
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/kernel_plan.h"

namespace ember::codegen {

// The largest element offset a tensor reaches, plus one (0 for an empty tensor).
int64_t Span(const BoundTensor& t);

// Row-major contiguous, size-1 dims ignored.
bool IsContiguous(const BoundTensor& t);

// Every kernel tensor, numbered as TraceLaunch says; scratch buffers come after first_scratch.
struct TensorTable {
  std::vector<const BoundTensor*> tensors;
  int views = 0, outputs = 0, matmul = -1, first_scratch = 0;
};

TensorTable MakeTable(const TraceLaunch& launch);

// Throws ember::Error for a launch that does not match its trace: counts, strides, a matmul
// trace's shape, block ranks, indexed ops (codegen/indexed_read.h).
void CheckLaunch(const TraceLaunch& launch);

}  // namespace ember::codegen

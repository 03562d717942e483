// The CUDA lowering of the indexed ops, Gather, Select and Cat (Note [Indexed inputs],
// engine/trace/fuse_trace.h): the checks a launch of them must pass before a plan is made, and
// the statement that reads one lane of one op. The code generator's other reads go through
// Access and the reference's strides; an indexed input has its own shape along `dim`, so it is
// addressed with its own strides and sizes (Slot::Kind::kOwnStride, kOwnDim), one element per
// lane (Access::kIndexed), and every index is range-checked: outside [0, size) reads 0, as the
// unfused kernels do (codegen/special_kernels.cpp IndexKernel; CPU IndexAlong). The statement
// runs inside a block body's lane loop, where `l` is the lane and c0..c{rank-1} the
// coordinates of lane 0 (lanes run along the last dim and never cross a row: the plan makes
// the width divide the last dim of a block with indexed ops).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "codegen/kernel_plan.h"

namespace ember::codegen {

// Throws ember::Error unless every indexed op of every block is well formed for `launch` by
// the rules both backends share (engine/trace/indexed_launch.h: operands, dims, shapes,
// dtypes), and no block reads an indexed input any other way.
void CheckIndexedOps(const TraceLaunch& launch);

// The kernel tensors (inputs) block b reads by index.
std::vector<int> IndexedTensors(const FuseBlock& block);

// Statements that set `target` (a value in the domain of the read tensor's dtype) to the
// element op reads at lane `l` of a block of rank `rank`. `dtypes`: per kernel tensor; `slot`
// names a slot (the kernel context's S); kernel tensor t's pointer is `t<t>`.
std::string IndexedLane(const FuseOp& op, int rank, const std::vector<DType>& dtypes,
                        const std::string& target,
                        const std::function<std::string(const Slot&)>& slot);

}  // namespace ember::codegen

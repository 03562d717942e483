// The launch-time rules of an indexed op (Note [Indexed inputs], fuse_trace.h), in one place
// for both backends: the CPU's fused plan (engine/runtime/cpu/fused_plan.cpp) and the CUDA
// code generator (codegen/indexed_read.cpp) bind an indexed op's operands to tensors and ask
// this function whether the tensors fit the op over its block. The trace's own structure (an
// indexed op sits among a block's ops, reads inputs only, writes a local, and its inputs are
// read no other way) is checked once per trace by CheckFuseTrace (trace_state.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <ember/dtype.h>

#include "engine/ir/tensor_ir.h"
#include "engine/trace/fuse_trace.h"

namespace ember {

// What a launch binds to one input of the trace: its dtype and its shape.
struct IndexedOperand {
  DType dtype = DType::kF32;
  const Shape* shape = nullptr;
};

// Why the indexed op `op` cannot run over a block of shape `block_shape`, or nothing when it
// can. `input(pos)` gives the launch's input `pos`, or nothing when there is none. The rules:
//   - `dim` is one of the block's dims; Gather and Select have two operands, Cat at least one;
//     every operand is an input of the launch, of the dtype the op reads it as;
//   - the tensor read (Gather, Select) and every Cat input have the block's rank;
//   - Gather's indices have the block's shape (the op's output is the block's reference, and
//     the output of a Gather has its indices' shape); Select's are one-dimensional, one per
//     position along `dim`; both are integers;
//   - Cat's inputs share a dtype, match the block on every dim but `dim`, and fill it along
//     `dim`.
// A tensor read by Gather or Select may have any sizes of the block's rank: a coordinate past
// them reads 0, as the unfused kernels do.
std::optional<std::string> IndexedLaunchProblem(
    const FuseOp& op, const Shape& block_shape,
    const std::function<std::optional<IndexedOperand>(uint32_t)>& input);

}  // namespace ember

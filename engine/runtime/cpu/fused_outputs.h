// The output handles of a fused launch, and which of them take an input's buffer in place
// (burn's InputPlanner::analyze_normal and OutputPlanner::inplace_output, burn-cubecl-fusion's
// engine/launch/input.rs and engine/launch/output.rs).
//
// An output takes the buffer of input i when launch.reusable[i] (its last use), the input has
// the output's dtype and shape, is contiguous from offset 0, MayWriteInPlace (cpu_buffer.h: no
// handle besides the launch's holds its buffer, and the buffer is not borrowed memory), and it is
// read as a plain input by exactly one block, the only block that writes the output, whose
// reference has that same shape; not through a view, not as a matmul operand, not as an indexed
// input (Note [Indexed inputs], fuse_trace.h: read at other positions than its own), and the output
// is not re-read as a kOutput. So every position reads the input's element before the same position
// writes it, and nothing else ever reads it.
#pragma once

#include <span>
#include <vector>

#include "engine/runtime/fused_launch.h"

namespace ember::cpu {

// Per output, the input whose buffer it takes, or -1. Decides only; changes nothing.
std::vector<int> ChooseInPlace(const FusedLaunch& launch);

// The output that takes the buffer of a matmul stage's result, or -1: the first one with its
// shape and dtype not already in place. The result is the backend's own temporary, read by
// block 0 at the position it writes.
int ChooseMatmulOutput(const FusedLaunch& launch, std::span<const int> in_place);

// The outputs: the chosen inputs' buffers, or new contiguous ones; the matmul's output is left
// empty for BindFused (fused_plan.h).
std::vector<TensorHandle> AllocateOutputs(const FusedLaunch& launch, std::span<const int> in_place,
                                          int matmul_output);

}  // namespace ember::cpu

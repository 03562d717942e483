// RunFused: the CPU backend's ExecuteFused (engine/runtime/backend.h). Plans the launch (every
// check first: a trace it cannot run throws ember::Error before any output exists or any input
// changes), allocates the outputs (in place where fused_outputs.h allows), and runs the blocks
// a group of units at a time (Note [CPU fused groups], fused_layout.h).
#pragma once

#include <vector>

#include "engine/runtime/cpu/thread_pool.h"
#include "engine/runtime/fused_launch.h"

namespace ember::cpu {

// One handle per launch.outputs, in order.
std::vector<TensorHandle> RunFused(const FusedLaunch& launch, ThreadPool& pool);

}  // namespace ember::cpu

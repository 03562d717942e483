// RunFused: the CPU backend's ExecuteFused (engine/runtime/backend.h). Plans the launch, or
// takes the plan kept for its trace and shapes (fused_plan_cache.h): every check comes first, so
// a trace it cannot run throws ember::Error before any output exists or any input changes.
// Then it allocates the outputs (in place where fused_outputs.h allows) and runs the blocks a
// group of units at a time (Note [CPU fused groups], fused_layout.h).
#pragma once

#include <vector>

#include "engine/runtime/cpu/fused_plan_cache.h"
#include "engine/runtime/cpu/thread_pool.h"
#include "engine/runtime/fused_launch.h"

namespace ember::cpu {

// One handle per launch.outputs, in order. The plan comes from `cache` (compiled on its first
// launch) and goes back to it after the run.
std::vector<TensorHandle> RunFused(const FusedLaunch& launch, ThreadPool& pool,
                                   FusedPlanCache& cache);

}  // namespace ember::cpu

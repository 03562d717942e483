// FusedPlan: a FusedLaunch checked and compiled for the CPU interpreter. PlanFused does every
// check a run needs and throws ember::Error (so the caller runs the ops one by one) before
// anything is allocated or written; BindFused then points the plan at real memory.
//
// What PlanFused builds depends on the trace and the launch's shapes and dtypes alone (the
// scalars' values are refilled by BindFused, the handles are checked by CheckFusedHandles), so
// a plan is compiled once per (trace, shapes) and kept (fused_plan_cache.h); the in-place
// choices, which depend on who else holds the input buffers, are made per launch.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "engine/runtime/cpu/fused_layout.h"
#include "engine/runtime/cpu/fused_program.h"
#include "engine/runtime/cpu/fused_reduce.h"
#include "engine/runtime/cpu/thread_pool.h"
#include "engine/runtime/fused_launch.h"

namespace ember::cpu {

// A buffer of values one block hands over to later blocks or to a reduce stage, per group of
// units: unit_positions[block] numbers per unit, in the domain of `dtype`.
struct GroupBufferSpec {
  int block = 0;
  DType dtype = DType::kF32;
  bool written = false;
};

struct FusedPlan {
  FusedLayout layout;
  std::vector<BlockProgram> blocks;
  std::vector<GroupBufferSpec> buffers;
  std::vector<std::optional<ReducePlan>> reduce_before;  // per block: the stage filling it
  // Per launch (RunFused): per output, the input whose buffer it takes, or -1; the output that
  // takes the matmul result's buffer.
  std::vector<int> in_place;
  int matmul_output = -1;
  // Units run independently (a group at a time) unless a block re-reads an output whose
  // elements another unit writes.
  bool independent_units = true;
  int max_slots = 0;
  // Tensors the sources read, by index: the inputs, then the views, then the outputs, then
  // the matmul result. Filled by BindFused.
  std::vector<TensorHandle> tensors;
};

// REQUIRES: launch.trace is not null.
FusedPlan PlanFused(const FusedLaunch& launch);

// The checks of PlanFused on what a kept plan's key (fused_plan_cache.h) does not fix: the
// number of inputs, scalars and reusable flags, and every input a CPU tensor with one stride
// per dim. Throws ember::Error.
void CheckFusedHandles(const FusedLaunch& launch);

// Fills plan.tensors (building the views and running the matmul stage, whose result becomes
// outputs[plan.matmul_output]), binds every source and output target and takes the launch's
// scalar values. Nothing here can fail.
void BindFused(FusedPlan& plan, const FusedLaunch& launch, std::vector<TensorHandle>& outputs,
               ThreadPool& pool);

}  // namespace ember::cpu

// GenerateKernel: the CUDA C++ of one kernel of a TracePlan, and KernelArguments: its slot
// values for one launch (Note [Kernel arguments], kernel_plan.h).
//
// Note [Kernel modes]
//   kBlock   one block of a trace over its reference shape; a grid-stride loop in which each
//            thread takes `width` consecutive positions (a 16-byte vector of the smallest
//            element), then a scalar tail. Linear tensors move as vectors; the others index
//            through coordinates. Elementwise traces run one such kernel per block, in order;
//            a matmul trace runs its epilogue block so, reading the product as a tensor.
//   kRow     a reduce along the last axis: each row gets a group of G threads (a power of two
//            sized to the row, Note [Row geometry] in launch_geometry.h); short rows share a
//            thread block, R = threads / G rows of it, and every block walks the same row
//            iterations (surplus groups redo the last row and store nothing), so barriers and
//            shuffles stay legal. The group runs every block of the trace in order. Full
//            blocks loop over the row in vectors; each reduce stage folds per thread in the
//            op's own accumulator (Note [Reduce accumulators], prelude.cuh), then across the
//            group (shuffles, and shared memory past a warp); reduced blocks run on every
//            thread of the group (their values are then registers each thread has) and only
//            its first thread stores. Values full blocks hand over stay in shared memory, a
//            row per group, so softmax and layernorm read and write their data once; a row too
//            long for it uses scratch buffers (one row per block then).
//   kRowPartial, kRowCombine
//            few long rows and one reduce stage after full blocks that hand nothing to each
//            other (Note [Split rows], plan_trace.cpp; ReduceAll is one row): the first kernel
//            cuts each row into TracePlan::parts, a thread block folds one part and writes its
//            partial accumulator to scratch; the second combines a row's partials in one block
//            and runs the reduced blocks.
//   kColumn  a reduce along another axis: one thread per column (outer x inner), looping
//            along the axis in order, so the fold order is the CPU's. Full-block handovers go
//            through scratch buffers.
// Every op, load and store follows the CPU's rules (prelude.cuh); each op's result is rounded
// to its local's dtype, so a chain computes what the unfused ops compute.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/kernel_plan.h"

namespace ember::codegen {

struct GeneratedKernel {
  std::string name;    // the extern "C" entry point
  std::string source;  // complete CUDA C++ (prelude included)
  std::vector<Slot> slots;
};

// REQUIRES: `spec` came from PlanTrace for a launch of `trace`. Throws ember::Error for a block
// that reads a local nothing wrote or writes where it cannot.
// `min_blocks` > 0 (a row kernel's register cap, Note [Register cap] in register_cap.h) adds
// it to __launch_bounds__; a minblocks=N kernel variant takes its place.
GeneratedKernel GenerateKernel(const FuseTrace& trace, const KernelSpec& spec, int min_blocks = 0);

// The slot values of `kernel` for `launch` (launch.scratch bound). Each is 8 bytes.
std::vector<uint64_t> KernelArguments(const TraceLaunch& launch, const TracePlan& plan,
                                      const std::vector<Slot>& slots);

}  // namespace ember::codegen

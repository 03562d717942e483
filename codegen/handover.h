// Handovers: the values one block of a fused trace hands to a later one (its
// kMultiBlockLocal arguments), and where each lives in the kernels of a launch. The planner
// (plan_trace.h) sizes scratch buffers from them and the generator (block_emitter.h) declares
// and reads them, so both take them from one function.
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/kernel_plan.h"
#include "engine/trace/fuse_trace.h"

namespace ember::codegen {

// A value one block hands to a later one (a kMultiBlockLocal argument), and where it lives
// (Note [Kernel modes], kernel_source.h).
struct Handover {
  enum class Storage : uint8_t {
    kRegister,  // a reduced block's value: every thread of a row computes it
    kShared,    // kRow: a full block's value, one number per row position in shared memory
    kScratch,   // a scratch buffer (TracePlan::scratch), one number per position
  };
  uint32_t block = 0;  // the writer
  uint32_t pos = 0;
  DType dtype = DType::kF32;
  Storage storage = Storage::kRegister;
  int scratch = -1;  // kScratch: index into TracePlan::scratch
};

// The handovers of `trace` in a fixed order, storage chosen for `mode` (`shared`: kRow keeps
// full values in shared memory). Used by the planner and by the generator alike.
std::vector<Handover> FindHandovers(const FuseTrace& trace, KernelMode mode, bool shared,
                                    const std::vector<bool>& full);

}  // namespace ember::codegen

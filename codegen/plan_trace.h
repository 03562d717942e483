// PlanTrace: the kernels that run one launch of a fused trace, decided from the real tensors
// (burn's LaunchPlan with its input, output and vectorization planners, burn-cubecl-fusion's
// engine/launch/). Cheap by design (no source text): a backend calls it on every launch and
// generates source only for a signature its kernel cache has not seen.
#pragma once

#include <vector>

#include "codegen/kernel_plan.h"
#include "codegen/launch_geometry.h"
#include "engine/trace/reduce_layout.h"

namespace ember::codegen {

// A value one block hands to a later one (a kMultiBlockLocal argument), and where it lives
// (Note [Kernel modes], trace_kernels.h).
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

// Throws ember::Error (the caller runs the ops unfused) for a launch the generator cannot
// serve: mismatched counts, shapes that do not broadcast, a layout outside Note [Kernel modes].
TracePlan PlanTrace(const TraceLaunch& launch);

// The handovers of `trace` in a fixed order, storage chosen for `mode` (`shared`: kRow keeps
// full values in shared memory). Used by the planner and by the generator alike.
std::vector<Handover> FindHandovers(const FuseTrace& trace, KernelMode mode, bool shared,
                                    const std::vector<bool>& full);

// REQUIRES: launch.trace has reduce stages. Its layout (engine/trace/reduce_layout.h), with the
// stage arguments the kernels rely on; throws ember::Error when they do not fit one layout.
ReduceLayout MakeReduceLayout(const TraceLaunch& launch);

// The strides of `tensor` seen from reference `ref` (numpy broadcasting: missing leading dims
// and size-1 dims get 0). Throws ember::Error when it does not broadcast to `ref`.
std::vector<int64_t> StridesOver(const BoundTensor& tensor, const Shape& ref);

}  // namespace ember::codegen

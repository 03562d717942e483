// PlanTrace: the kernels that run one launch of a fused trace, decided from the real tensors
// (burn's LaunchPlan with its input, output and vectorization planners, burn-cubecl-fusion's
// engine/launch/). Cheap by design (no source text): a backend calls it on every launch and
// generates source only for a signature its kernel cache has not seen.
#pragma once

#include <vector>

#include "codegen/handover.h"
#include "codegen/kernel_plan.h"
#include "codegen/launch_geometry.h"
#include "engine/trace/reduce_layout.h"

namespace ember::codegen {

// Throws ember::Error (the caller runs the ops unfused) for a launch the generator cannot
// serve: mismatched counts, shapes that do not broadcast, a layout outside Note [Kernel modes].
TracePlan PlanTrace(const TraceLaunch& launch);

// REQUIRES: launch.trace has reduce stages. Its layout (engine/trace/reduce_layout.h), with the
// stage arguments the kernels rely on; throws ember::Error when they do not fit one layout.
ReduceLayout MakeReduceLayout(const TraceLaunch& launch);

}  // namespace ember::codegen

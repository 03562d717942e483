// CpuBackend: runs every op of op_list.def on host memory, strided and broadcasting, with a
// small worker pool sized to the machine's cores. It is the oracle other backends are
// compared against, fused runs included (tests/end_to_end/differential_test.cpp).
//
// Semantics beyond the op list are documented where they are decided: the dtype rules in
// Note [CPU compute domains] (convert.h), the per-kernel rules in kernels.h, random streams in
// Note [CPU random streams] (random.h), in-place reuse in map_tiles.h.
//
// Threading: like every Backend, called by one thread at a time (the device server's lock);
// it splits big kernels over its own worker threads.
#pragma once

#include <memory>

#include "engine/runtime/backend.h"

namespace ember::cpu {

// threads <= 0: one per hardware core; 1: everything on the calling thread.
std::unique_ptr<Backend> MakeCpuBackend(int threads = 0);

}  // namespace ember::cpu

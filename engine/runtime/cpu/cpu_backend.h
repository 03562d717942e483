// CpuBackend: runs every op on host memory, strided and broadcasting, with a small worker
// pool sized to the machine's cores. It is the oracle other backends are compared against
// (STYLE.md, habit 9).
#pragma once

#include <memory>

#include "engine/runtime/backend.h"

namespace ember::cpu {

// threads = 0: one per hardware core.
std::unique_ptr<Backend> MakeCpuBackend(int threads = 0);

}  // namespace ember::cpu

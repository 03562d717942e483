// Whether the chains of one launch (Note [Trace chains], engine/trace/trace_chains.h) may run as
// kernels of their own: one after another, a chain that writes memory another chain reads would
// change what the other sees (a trace's output may take an input's buffer), where one kernel
// keeps the trace's order of reads and writes within each row.
#pragma once

#include <vector>

#include "codegen/kernel_plan.h"

namespace ember::codegen {

// True when no chain of `chains` (the chains of launch.trace) writes bytes that another chain
// reads or writes, by the bound tensors' addresses and extents. Scratch buffers are each
// chain's own and never shared.
bool ChainsApart(const TraceLaunch& launch, const std::vector<FuseTrace>& chains);

}  // namespace ember::codegen

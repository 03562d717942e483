// The CUDA backend (engine/runtime/backend.h): every op and every fused trace on one GPU.
// Elementwise ops, copies, reductions and fused traces run kernels the code generator writes
// (codegen/) and NVRTC compiles; matmuls go to cuBLASLt; Random, Gather and Select have
// generated special kernels. Semantics are the CPU backend's (docs/API.md), results within the
// last bits of the math functions.
//
// One CUDA stream per ember stream (backend/stream_set.h): each thread's work runs in the order
// it was queued, and threads' work side by side; a tensor that crosses streams is ordered by an
// event (engine/runtime/cuda/README.md, "One stream per ember stream"). Synchronize and ToHost
// wait for the current stream, the destructor for all of them.
#pragma once

#include <memory>

#include "engine/runtime/backend.h"

namespace ember::cuda {

// Throws ember::Error saying why cuda:<ordinal> is unusable (no driver, no device, ordinal out
// of range, NVRTC missing).
std::unique_ptr<Backend> MakeCudaBackend(int ordinal);

}  // namespace ember::cuda

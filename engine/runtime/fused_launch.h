// FusedLaunch: one fused trace bound to real tensors, ready for a backend (what burn's
// FuseTraceLauncher::launch hands its planners, burn-cubecl-fusion's engine/launch/base.rs). The
// optimization that owns the trace (engine/fuse) resolves every relative id, shape id and scalar
// placeholder through its Context; backends see only real values.
//
// Ownership: the launch holds copies of the input handles (shared buffers), so a backend may
// read them while the HandleContainer changes; `reusable[i]` says input i is the tensor's last
// use and no other handle in the container refers to it: a backend may write an output with
// the same dtype and shape into its buffer (in-place; the conditions are in
// engine/runtime/cpu/fused_outputs.h) when the buffer is not otherwise shared (use_count) nor
// borrowed (engine/runtime/cpu/cpu_buffer.h, MayWriteInPlace).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/ir/scalar_ir.h"
#include "engine/ir/tensor_ir.h"
#include "engine/runtime/handle.h"
#include "engine/trace/fuse_trace.h"

namespace ember {

struct FusedLaunch {
  const FuseTrace* trace = nullptr;
  // The trace's serial (engine/trace/trace_serial.h), or 0: what backends key per-trace caches
  // by. A launch without one runs uncached.
  uint64_t trace_serial = 0;
  std::vector<TensorHandle> inputs;  // per trace->resources.inputs
  std::vector<bool> reusable;        // per input
  std::vector<TensorIr> outputs;     // per trace->resources.outputs: real shape, dtype
  std::vector<ScalarIr> scalars;     // per trace->resources.scalars (real values)
  std::vector<Shape> block_shapes;   // per trace->blocks: the real reference shape
  std::vector<Shape> view_shapes;    // per trace->resources.views: the real view shape
};

}  // namespace ember

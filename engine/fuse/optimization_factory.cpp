#include "engine/fuse/optimization_factory.h"

#include <string_view>

#include <fmt/format.h>

#include "engine/fuse/builtin_fusers.h"
#include "engine/fuse/matmul_fuser.h"
#include "engine/fuse/trace_optimization.h"

namespace ember {

bool IsKnownOptimization(std::string_view name) {
  for (const BuiltinFuserEntry& entry : BuiltinFuserTable()) {
    if (entry.name == name) return true;
  }
  return false;
}

Status OptimizationFromState(const OptimizationState& state, std::shared_ptr<Optimization>* out) {
  if (!IsKnownOptimization(state.name)) {
    return Status::Corruption(fmt::format("unknown optimization '{}'", state.name));
  }
  if (Status status = CheckTraceState(state.trace); !status.ok()) {
    return Status::Corruption(fmt::format("optimization {}: {}", state.name, status.message()));
  }
  // A Matmul trace without its stage (or another kind with one) would run as the wrong kernel.
  const TraceState& t = state.trace;
  if ((state.name == MatmulFuser::kName) != t.trace.matmul.has_value()) {
    return Status::Corruption(fmt::format("optimization {}: {} matmul stage", state.name,
                                          t.trace.matmul ? "unexpected" : "missing"));
  }
  *out = std::make_shared<TraceOptimization>(state.name, t.trace, t.len, t.score);
  return Status::Ok();
}

}  // namespace ember

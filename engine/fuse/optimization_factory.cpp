#include "engine/fuse/optimization_factory.h"

#include <string_view>

#include <fmt/format.h>

#include "engine/fuse/elementwise_fuser.h"
#include "engine/fuse/matmul_fuser.h"
#include "engine/fuse/reduce_broadcasted_fuser.h"
#include "engine/fuse/reduce_fuser.h"
#include "engine/fuse/trace_optimization.h"
#include "engine/trace/trace_codec.h"

namespace ember {
namespace {

bool IsTraceOptimizationName(std::string_view name) {
  return name == ElementWiseFuser::kName || name == MatmulFuser::kName ||
         name == ReduceFuser::kName || name == ReduceBroadcastedFuser::kName;
}

}  // namespace

Status OptimizationFromState(const OptimizationState& state, std::shared_ptr<Optimization>* out) {
  if (!IsTraceOptimizationName(state.name)) {
    return Status::Corruption(fmt::format("unknown optimization '{}'", state.name));
  }
  TraceState decoded;
  Status status = DecodeTraceState(state.bytes, &decoded);
  if (!status.ok()) {
    return Status::Corruption(fmt::format("optimization {}: {}", state.name, status.message()));
  }
  // A Matmul trace without its stage (or another kind with one) would run as the wrong kernel.
  if ((state.name == MatmulFuser::kName) != decoded.trace.matmul.has_value()) {
    return Status::Corruption(fmt::format("optimization {}: {} matmul stage", state.name,
                                          decoded.trace.matmul ? "unexpected" : "missing"));
  }
  *out = std::make_shared<TraceOptimization>(state.name, std::move(decoded.trace), decoded.len,
                                             decoded.score);
  return Status::Ok();
}

}  // namespace ember

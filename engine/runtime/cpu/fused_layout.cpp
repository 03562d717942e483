#include "engine/runtime/cpu/fused_layout.h"

#include <ember/error.h>

#include "engine/trace/reduce_layout.h"

namespace ember::cpu {

bool Broadcasts(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  for (size_t d = 0; d < from.size(); ++d) {
    const int64_t target = to[to.size() - from.size() + d];
    if (from[d] != target && from[d] != 1) return false;
  }
  return true;
}

FusedLayout MakeFusedLayout(const FusedLaunch& launch) {
  const FuseTrace& trace = *launch.trace;
  const size_t blocks = trace.blocks.size();
  FusedLayout layout;
  layout.full.assign(blocks, true);
  for (const Shape& shape : launch.block_shapes)
    layout.unit_positions.push_back(NumElements(shape));
  if (trace.matmul && (blocks != 1 || !trace.reduces.empty())) {
    throw Error("a fused matmul needs exactly one block and no reduce stage");
  }
  if (trace.reduces.empty()) return layout;

  // The CPU checks the stages' arguments where it plans their buffers (fused_plan.cpp).
  const ReduceLayout reduce =
      MakeReduceLayout(trace, launch.block_shapes, ReduceStageArgs::kUnchecked);
  layout.axis = reduce.axis;
  layout.full_shape = reduce.full_shape;
  layout.units = reduce.units;
  layout.axis_length = reduce.length;
  layout.inner = reduce.inner;
  layout.full = reduce.full;
  for (size_t b = 0; b < blocks; ++b) {
    layout.unit_positions[b] = layout.inner * (layout.full[b] ? layout.axis_length : 1);
  }
  return layout;
}

}  // namespace ember::cpu

#include "engine/runtime/cpu/fused_layout.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <ember/error.h>

namespace ember::cpu {
namespace {

int64_t Product(const Shape& shape, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t d = begin; d < end; ++d) n *= shape[d];
  return n;
}

}  // namespace

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

  const ReduceStage& first = trace.reduces.front();
  if (first.from + 1 >= blocks) throw Error(fmt::format("reduce from block {}", first.from));
  const Shape& full = launch.block_shapes[first.from];
  const auto rank = static_cast<int64_t>(full.size());
  const int64_t axis = first.axis < 0 ? first.axis + rank : first.axis;
  if (axis < 0 || axis >= rank)
    throw Error(fmt::format("reduce axis {} of rank {}", first.axis, rank));
  Shape reduced = full;
  reduced[axis] = 1;
  int64_t previous = -1;
  for (const ReduceStage& stage : trace.reduces) {
    const int64_t from = stage.from;
    const int64_t stage_axis = stage.axis < 0 ? stage.axis + rank : stage.axis;
    if (from <= previous || from + 1 >= static_cast<int64_t>(blocks) || stage_axis != axis ||
        launch.block_shapes[from] != full || launch.block_shapes[from + 1] != reduced) {
      throw Error(fmt::format("reduce stage from block {} does not reduce {} along axis {}", from,
                              full, axis));
    }
    previous = from;
  }
  layout.axis = axis;
  layout.full_shape = full;
  layout.units = Product(full, 0, axis);
  layout.axis_length = full[axis];
  layout.inner = Product(full, axis + 1, full.size());
  for (size_t b = 0; b < blocks; ++b) {
    const Shape& shape = launch.block_shapes[b];
    if (shape != full && shape != reduced) {
      throw Error(fmt::format("block {} over {} is neither {} nor {}", b, shape, full, reduced));
    }
    layout.full[b] = shape == full;
    layout.unit_positions[b] = layout.inner * (layout.full[b] ? layout.axis_length : 1);
  }
  return layout;
}

}  // namespace ember::cpu

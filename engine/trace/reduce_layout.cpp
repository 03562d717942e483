#include "engine/trace/reduce_layout.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <ember/error.h>

namespace ember {
namespace {

bool ArgsReduceTheirBlock(const ReduceStage& stage) {
  return stage.input.kind == FuseArgKind::kMultiBlockLocal && stage.input.block == stage.from &&
         stage.output.kind == FuseArgKind::kLocal;
}

}  // namespace

ReduceLayout MakeReduceLayout(const FuseTrace& trace, std::span<const Shape> block_shapes,
                              ReduceStageArgs args) {
  const size_t blocks = trace.blocks.size();
  const ReduceStage& first = trace.reduces.front();
  if (first.from + 1 >= blocks) throw Error(fmt::format("reduce from block {}", first.from));
  const Shape& full = block_shapes[first.from];
  const auto rank = static_cast<int64_t>(full.size());
  const int64_t axis = first.axis < 0 ? first.axis + rank : first.axis;
  if (axis < 0 || axis >= rank) {
    throw Error(fmt::format("reduce axis {} of rank {}", first.axis, rank));
  }
  Shape reduced = full;
  reduced[axis] = 1;
  int64_t previous = -1;
  for (const ReduceStage& stage : trace.reduces) {
    const int64_t from = stage.from;
    const int64_t stage_axis = stage.axis < 0 ? stage.axis + rank : stage.axis;
    if (from <= previous || from + 1 >= static_cast<int64_t>(blocks) || stage_axis != axis ||
        block_shapes[from] != full || block_shapes[from + 1] != reduced ||
        (args == ReduceStageArgs::kLocalOfItsBlock && !ArgsReduceTheirBlock(stage))) {
      throw Error(fmt::format("reduce stage from block {} does not reduce {} along axis {}", from,
                              full, axis));
    }
    previous = from;
  }
  ReduceLayout layout;
  layout.axis = axis;
  layout.length = full[axis];
  for (int64_t d = 0; d < axis; ++d) layout.units *= full[d];
  for (int64_t d = axis + 1; d < rank; ++d) layout.inner *= full[d];
  layout.full_shape = full;
  for (size_t b = 0; b < blocks; ++b) {
    const Shape& shape = block_shapes[b];
    if (shape != full && shape != reduced) {
      throw Error(fmt::format("block {} over {} is neither {} nor {}", b, shape, full, reduced));
    }
    layout.full.push_back(shape == full);
  }
  return layout;
}

}  // namespace ember

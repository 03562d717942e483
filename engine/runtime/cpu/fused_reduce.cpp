#include "engine/runtime/cpu/fused_reduce.h"

#include <algorithm>

#include "engine/runtime/cpu/convert.h"
#include "engine/runtime/cpu/reduce_fold.h"
#include "engine/runtime/cpu/reduce_lanes.h"
#include "engine/runtime/cpu/strided.h"

namespace ember::cpu {
namespace {

// Rows folded together: enough independent folds to hide an add's latency, few enough streams
// for the prefetcher when the rows are not in cache; float rows fold in the vector lanes of
// reduce_lanes.h, one tile at a time.
constexpr int64_t kRowsTogether = kRowLanes;

// The fold loop of ReduceTile with the op a constant, so Fold's switch leaves the loop.
template <ReduceOp kOp, typename V>
void FoldTile(const V* start, int64_t length, int64_t count, int64_t across, int64_t along,
              Accumulator<V>* acc) {
  for (int64_t r = 0; r < length; ++r) {
    const V* at = start + r * along;
    for (int64_t j = 0; j < count; ++j) Fold(kOp, acc[j], at[j * across], r);
  }
}

// Outputs [first, first + count) of the group, finished: stored as the unfused kernel stores
// its output, then loaded into the local's domain.
template <typename V>
void StoreTile(const ReducePlan& stage, const typename Accumulator<V>::A* finished, int64_t first,
               int64_t count, std::byte* output) {
  std::byte stored[kTileSize * 8];
  Store<V>(stage.op, finished, count, stage.output_dtype, stored);
  if (DomainOf(stage.output_dtype) == Domain::kFloat) {
    LoadRunF32(stored, stage.output_dtype, 1, count, reinterpret_cast<float*>(output) + first);
  } else {
    LoadRunI64(stored, stage.output_dtype, 1, count, reinterpret_cast<int64_t*>(output) + first);
  }
}

// Outputs [first, first + count) of the group, count <= kTileSize. Each output folds its
// numbers in order along the axis, as ReduceDim does; the outputs of a tile advance together
// so their folds overlap (a lone sum would wait on each add). With inner == 1 the outputs are
// rows (float rows fold in vector lanes, Note [Row folds in lanes]); otherwise they share one
// unit and each step along the axis reads a contiguous run (float: in lanes too, one output
// per lane).
template <typename V>
void ReduceTile(const ReducePlan& stage, const V* in, int64_t length, int64_t inner, int64_t first,
                int64_t count, std::byte* output) {
  using A = typename Accumulator<V>::A;
  const ReduceOp op = stage.op;
  const bool rows = inner == 1;
  const V* start =
      rows ? in + first * length : in + (first / inner) * length * inner + first % inner;
  const int64_t across = rows ? length : 1;  // between neighbouring outputs
  const int64_t along = rows ? 1 : inner;    // between neighbouring positions on the axis
  A finished[kTileSize];
  if constexpr (std::is_same_v<V, float>) {
    if (rows && FoldsInLanes(length)) {  // count <= kRowsTogether == kRowLanes
      const float* at[kRowLanes];
      for (int64_t j = 0; j < kRowLanes; ++j) at[j] = start + std::min(j, count - 1) * length;
      RowLanes lanes = StartRowLanes(op);
      FoldRowChunk(op, at, 0, length, lanes);
      FinishRowLanes(op, lanes, static_cast<int>(count), length, finished);
      StoreTile<V>(stage, finished, first, count, output);
      return;
    }
    if (!rows && FoldsInLanes(length)) {  // one unit's outputs, side by side
      ColumnLanes lanes;
      StartColumnLanes(op, count, lanes);
      FoldColumnChunk(op, start, along, 0, length, count, lanes);
      FinishColumnLanes(op, lanes, count, length, finished);
      StoreTile<V>(stage, finished, first, count, output);
      return;
    }
  }
  Accumulator<V> acc[kTileSize];
  std::fill_n(acc, count, Start<V>(op));
  switch (op) {
    case ReduceOp::kSum: FoldTile<ReduceOp::kSum>(start, length, count, across, along, acc); break;
    case ReduceOp::kMean:
      FoldTile<ReduceOp::kMean>(start, length, count, across, along, acc);
      break;
    case ReduceOp::kProd:
      FoldTile<ReduceOp::kProd>(start, length, count, across, along, acc);
      break;
    case ReduceOp::kMax: FoldTile<ReduceOp::kMax>(start, length, count, across, along, acc); break;
    case ReduceOp::kMin: FoldTile<ReduceOp::kMin>(start, length, count, across, along, acc); break;
    case ReduceOp::kArgMax:
      FoldTile<ReduceOp::kArgMax>(start, length, count, across, along, acc);
      break;
    case ReduceOp::kArgMin:
      FoldTile<ReduceOp::kArgMin>(start, length, count, across, along, acc);
      break;
  }
  for (int64_t j = 0; j < count; ++j) finished[j] = Finish(op, acc[j], length);
  StoreTile<V>(stage, finished, first, count, output);
}

template <typename V>
void ReduceTyped(const ReducePlan& stage, const V* in, std::byte* output, int64_t units,
                 int64_t length, int64_t inner, ThreadPool* pool) {
  // A tile: kRowsTogether rows (inner == 1), or up to kTileSize outputs of one unit.
  const int64_t width = inner == 1 ? kRowsTogether : kTileSize;
  const int64_t tiles_per_unit = (inner + width - 1) / width;
  const int64_t tiles = inner == 1 ? (units + width - 1) / width : units * tiles_per_unit;
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      if (inner == 1) {
        const int64_t first = t * width;
        ReduceTile(stage, in, length, inner, first, std::min(width, units - first), output);
        continue;
      }
      const int64_t i0 = (t % tiles_per_unit) * width;
      ReduceTile(stage, in, length, inner, (t / tiles_per_unit) * inner + i0,
                 std::min(width, inner - i0), output);
    }
  };
  if (pool == nullptr) {
    run(0, tiles);
    return;
  }
  const int64_t work = std::max<int64_t>(1, length * width);
  pool->ParallelFor(tiles, std::max<int64_t>(1, kParallelGrain / work), run);
}

}  // namespace

void ReduceGroup(const ReducePlan& stage, const std::byte* input, std::byte* output, int64_t units,
                 int64_t length, int64_t inner, ThreadPool* pool) {
  if (DomainOf(stage.input_dtype) == Domain::kFloat) {
    ReduceTyped(stage, reinterpret_cast<const float*>(input), output, units, length, inner, pool);
  } else {
    ReduceTyped(stage, reinterpret_cast<const int64_t*>(input), output, units, length, inner, pool);
  }
}

}  // namespace ember::cpu

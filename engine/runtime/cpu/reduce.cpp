// Reductions: SumDim, MeanDim, ProdDim, MaxDim, MinDim, ArgMax, ArgMin along one axis (kept
// with size 1), and Sum, Mean over all elements.
//
// Two loops, picked per call (both see the input as a strided view, so permuted, sliced and
// expanded inputs need no copy):
//  * along the axis: each output element walks its L inputs; used when the axis is the
//    innermost dense dim, or when there are few outputs. Float outputs fold eight at a time,
//    one per vector lane, each in the scalar fold's order (Note [Row folds in lanes],
//    reduce_lanes.h);
//  * across outputs: a tile of outputs is updated once per position r along the axis, so each
//    step reads a dense row of inputs; used when the axis is an outer dim. Float outputs fold
//    in vector lanes too, lane j = output j.
// Each output is computed by one thread in a fixed order, and ReduceAll combines fixed chunks
// in order, so results do not depend on the number of threads.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "engine/core/check.h"
#include "engine/runtime/cpu/convert.h"
#include "engine/runtime/cpu/cpu_buffer.h"
#include "engine/runtime/cpu/kernels.h"
#include "engine/runtime/cpu/reduce_fold.h"
#include "engine/runtime/cpu/reduce_lanes.h"
#include "engine/runtime/cpu/strided.h"

namespace ember::cpu {
namespace {

// Outputs below this count use the along-the-axis loop even for a strided axis.
constexpr int64_t kFewOutputs = 64;

template <typename V>
const V* Load(const StridedView& view, int64_t begin, int64_t n, V* scratch) {
  if constexpr (std::is_same_v<V, float>) {
    return LoadF32(view, begin, n, scratch);
  } else {
    return LoadI64(view, begin, n, scratch);
  }
}

// Positions of a row loaded (converted to f32, or gathered from a strided axis) per lane fold
// call; dense f32 rows are read in place, so this only bounds the scratch.
constexpr int64_t kLaneChunk = 512;

// The along-the-axis loop for float outputs (view: [outer..., L], output j owns the linear
// range [j*L, (j+1)*L)): groups of kRowLanes outputs fold together in vector lanes. Each output
// folds its L inputs in order from Start to Finish (reduce_lanes.h), so the results are
// Fold's, bit for bit, whatever the grouping or the number of threads.
void ReduceRowsInLanes(ReduceOp op, const StridedView& view, int64_t length, int64_t outputs,
                       DType out_dtype, std::byte* dst, ThreadPool& pool) {
  const int out_size = DTypeSize(out_dtype);
  // Whole groups per worker chunk; the grain is otherwise the scalar loop's.
  const int64_t grain =
      (std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(length, 1)) + kRowLanes - 1) /
      kRowLanes * kRowLanes;
  pool.ParallelFor(outputs, grain, [&](int64_t begin, int64_t end) {
    float scratch[kRowLanes][kLaneChunk];
    double finished[kTileSize];
    for (int64_t tile = begin; tile < end; tile += kTileSize) {
      const int64_t count = std::min(kTileSize, end - tile);
      for (int64_t group = 0; group < count; group += kRowLanes) {
        const int rows = static_cast<int>(std::min<int64_t>(kRowLanes, count - group));
        RowLanes lanes = StartRowLanes(op);
        for (int64_t r0 = 0; r0 < length; r0 += kLaneChunk) {
          const int64_t n = std::min(kLaneChunk, length - r0);
          const float* at[kRowLanes];
          for (int j = 0; j < kRowLanes; ++j) {  // lanes past `rows` repeat row 0, unused
            at[j] =
                j < rows ? LoadF32(view, (tile + group + j) * length + r0, n, scratch[j]) : at[0];
          }
          FoldRowChunk(op, at, r0, n, lanes);
        }
        FinishRowLanes(op, lanes, rows, length, finished + group);
      }
      Store<float>(op, finished, count, out_dtype, dst + tile * out_size);
    }
  });
}

// The across-outputs loop for float outputs (view: [L, outer...], position r of output j at
// linear index r*outputs + j): a tile of outputs folds in vector lanes, lane j = output j
// (reduce_lanes.h), each output in order from Start to Finish, as Fold does.
void ReduceColumnsInLanes(ReduceOp op, const StridedView& view, int64_t length, int64_t outputs,
                          DType out_dtype, std::byte* dst, ThreadPool& pool) {
  const int out_size = DTypeSize(out_dtype);
  const bool dense = view.dtype == DType::kF32 && view.IsDense();
  pool.ParallelFor(outputs, kTileSize, [&](int64_t begin, int64_t end) {
    const int64_t count = end - begin;
    ColumnLanes lanes;
    StartColumnLanes(op, count, lanes);
    if (dense) {  // position r of the tile: count floats at data + r*outputs + begin
      const float* first = reinterpret_cast<const float*>(view.data) + begin;
      FoldColumnChunk(op, first, outputs, 0, length, count, lanes);
    } else {
      float scratch[kTileSize];
      for (int64_t r = 0; r < length; ++r) {
        FoldColumnChunk(op, LoadF32(view, r * outputs + begin, count, scratch), 0, r, 1, count,
                        lanes);
      }
    }
    double finished[kTileSize];
    FinishColumnLanes(op, lanes, count, length, finished);
    Store<float>(op, finished, count, out_dtype, dst + begin * out_size);
  });
}

template <typename V>
void ReduceAxis(ReduceOp op, const TensorHandle& x, int64_t axis, TensorHandle& out,
                ThreadPool& pool) {
  using A = typename Accumulator<V>::A;
  const size_t rank = x.shape.size();
  const int64_t length = x.shape[axis];
  const int64_t outputs = out.NumElements();
  // The outputs' positions in the input: the input's shape and strides with the axis at 1.
  std::vector<int64_t> outer_shape(x.shape.begin(), x.shape.end());
  outer_shape[axis] = 1;
  std::byte* dst = ElementData(out);
  const int out_size = DTypeSize(out.dtype);
  const std::byte* src = ElementData(x);
  const bool along = x.strides[axis] == 1 || outputs < kFewOutputs;

  if (along) {
    // Iteration shape [outer..., L]: output j owns the linear range [j*L, (j+1)*L).
    std::vector<int64_t> shape = outer_shape;
    std::vector<int64_t> strides(x.strides.begin(), x.strides.end());
    shape.push_back(length);
    strides.push_back(x.strides[axis]);
    const StridedView view = MakeView(src, x.dtype, shape, strides);
    if constexpr (std::is_same_v<V, float>) {
      if (FoldsInLanes(length)) {
        ReduceRowsInLanes(op, view, length, outputs, out.dtype, dst, pool);
        return;
      }
    }
    const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(length, 1));
    pool.ParallelFor(outputs, grain, [&](int64_t begin, int64_t end) {
      V scratch[kTileSize];
      A finished[kTileSize];
      for (int64_t tile = begin; tile < end; tile += kTileSize) {
        const int64_t count = std::min(kTileSize, end - tile);
        for (int64_t j = 0; j < count; ++j) {
          Accumulator<V> acc = Start<V>(op);
          for (int64_t r0 = 0; r0 < length; r0 += kTileSize) {
            const int64_t n = std::min(kTileSize, length - r0);
            const V* v = Load(view, (tile + j) * length + r0, n, scratch);
            for (int64_t i = 0; i < n; ++i) Fold(op, acc, v[i], r0 + i);
          }
          finished[j] = Finish(op, acc, length);
        }
        Store<V>(op, finished, count, out.dtype, dst + tile * out_size);
      }
    });
    return;
  }

  // Iteration shape [L, outer...]: position r of output j is linear index r*outputs + j.
  std::vector<int64_t> shape = {length}, strides = {x.strides[axis]};
  for (size_t d = 0; d < rank; ++d) {
    shape.push_back(outer_shape[d]);
    strides.push_back(x.strides[d]);
  }
  const StridedView view = MakeView(src, x.dtype, shape, strides);
  if constexpr (std::is_same_v<V, float>) {
    if (FoldsInLanes(length)) {
      ReduceColumnsInLanes(op, view, length, outputs, out.dtype, dst, pool);
      return;
    }
  }
  pool.ParallelFor(outputs, kTileSize, [&](int64_t begin, int64_t end) {
    V scratch[kTileSize];
    Accumulator<V> acc[kTileSize];
    A finished[kTileSize];
    const int64_t count = end - begin;
    std::fill_n(acc, count, Start<V>(op));
    for (int64_t r = 0; r < length; ++r) {
      const V* v = Load(view, r * outputs + begin, count, scratch);
      for (int64_t j = 0; j < count; ++j) Fold(op, acc[j], v[j], r);
    }
    for (int64_t j = 0; j < count; ++j) finished[j] = Finish(op, acc[j], length);
    Store<V>(op, finished, count, out.dtype, dst + begin * out_size);
  });
}

template <typename V>
void ReduceEverything(ReduceOp op, const TensorHandle& x, TensorHandle& out, ThreadPool& pool) {
  using A = typename Accumulator<V>::A;
  const StridedView view = BroadcastView(x, x.shape);
  const int64_t total = x.NumElements();
  const int64_t chunks = (total + kParallelGrain - 1) / kParallelGrain;
  std::vector<A> partial(chunks, A{0});
  pool.ParallelFor(total, kParallelGrain, [&](int64_t begin, int64_t end) {
    V scratch[kTileSize];
    A sum{0};
    for (int64_t tile = begin; tile < end; tile += kTileSize) {
      const int64_t n = std::min(kTileSize, end - tile);
      const V* v = Load(view, tile, n, scratch);
      for (int64_t i = 0; i < n; ++i) sum = AddWrapping(sum, static_cast<A>(v[i]));
    }
    partial[begin / kParallelGrain] = sum;
  });
  Accumulator<V> acc = Start<V>(ReduceOp::kSum);
  for (A p : partial) acc.value = AddWrapping(acc.value, p);  // chunk order: deterministic
  const A result = Finish(op, acc, total);
  Store<V>(op, &result, 1, out.dtype, ElementData(out));
}

}  // namespace

TensorHandle ReduceDim(ReduceOp op, const TensorHandle& x, int64_t axis, const TensorIr& out,
                       ThreadPool& pool) {
  const int64_t a = NormalizeDim(axis, x.shape.size());
  Shape kept = x.shape;
  kept[a] = 1;
  EMBER_CHECK(out.shape == kept, "reduce: output shape does not keep axis {} as 1", a);
  TensorHandle result = NewHandle(out.shape, out.dtype);
  if (IsFloat(x.dtype)) {
    ReduceAxis<float>(op, x, a, result, pool);
  } else {
    ReduceAxis<int64_t>(op, x, a, result, pool);
  }
  return result;
}

TensorHandle ReduceAll(ReduceOp op, const TensorHandle& x, const TensorIr& out, ThreadPool& pool) {
  EMBER_CHECK(op == ReduceOp::kSum || op == ReduceOp::kMean, "ReduceAll supports Sum and Mean");
  EMBER_CHECK(NumElements(out.shape) == 1, "reduce-all output must have one element");
  TensorHandle result = NewHandle(out.shape, out.dtype);
  if (IsFloat(x.dtype)) {
    ReduceEverything<float>(op, x, result, pool);
  } else {
    ReduceEverything<int64_t>(op, x, result, pool);
  }
  return result;
}

}  // namespace ember::cpu

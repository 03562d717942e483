// Note [Row folds in lanes] (reduce_lanes.h): the generic bodies (rows, and outputs side by
// side), in GCC's vector extensions, compiled twice (baseline x86-64 and AVX2) by inlining each
// into one entry point per target.
#include "engine/runtime/cpu/reduce_lanes.h"

#include <cstring>

#include "engine/runtime/cpu/reduce_fold.h"

// GCC warns that a 32-byte vector passed by value without AVX "changes the ABI": every such
// function here is inlined into one target's entry point, so no call crosses targets.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace ember::cpu {
namespace {

// 32-byte vectors: eight rows of floats or positions, four rows of doubles. The baseline target
// has no 32-byte registers, so GCC splits each operation in two 16-byte ones.
typedef float F8 __attribute__((vector_size(32)));
typedef double D4 __attribute__((vector_size(32)));
typedef int32_t I8 __attribute__((vector_size(32)));
typedef float F4 __attribute__((vector_size(16)));
typedef uint64_t U4 __attribute__((vector_size(32), may_alias));
// An F8 read from any float address: GCC loads it directly (vmovups), no copy on the stack.
typedef float F8Unaligned __attribute__((vector_size(32), aligned(4), may_alias));

static_assert(kRowLanes == 8, "the transpose below is 8x8");

#define EMBER_LANES_INLINE inline __attribute__((always_inline))

// The first two rounds of the transpose of positions [p, p + 8) of four rows: four unaligned
// row loads, pairs of rows interleaved, then pairs of pairs. Afterwards quarter[q], q < 4,
// holds the four rows at position p + q in its low half and at p + q + 4 in its high half.
// (AVX2: vunpcklps/vunpckhps, vshufps.)
EMBER_LANES_INLINE void LoadQuarters(const float* const* rows, int64_t p, F8* quarter) {
  F8 r[4];
  for (int j = 0; j < 4; ++j) r[j] = *reinterpret_cast<const F8Unaligned*>(rows[j] + p);
  const F8 t0 = __builtin_shufflevector(r[0], r[1], 0, 8, 1, 9, 4, 12, 5, 13);
  const F8 t1 = __builtin_shufflevector(r[0], r[1], 2, 10, 3, 11, 6, 14, 7, 15);
  const F8 t2 = __builtin_shufflevector(r[2], r[3], 0, 8, 1, 9, 4, 12, 5, 13);
  const F8 t3 = __builtin_shufflevector(r[2], r[3], 2, 10, 3, 11, 6, 14, 7, 15);
  quarter[0] = __builtin_shufflevector(t0, t2, 0, 1, 8, 9, 4, 5, 12, 13);
  quarter[1] = __builtin_shufflevector(t0, t2, 2, 3, 10, 11, 6, 7, 14, 15);
  quarter[2] = __builtin_shufflevector(t1, t3, 0, 1, 8, 9, 4, 5, 12, 13);
  quarter[3] = __builtin_shufflevector(t1, t3, 2, 3, 10, 11, 6, 7, 14, 15);
}

// The whole transpose: col[k], k < 8, lane j holds rows[j][p + k] (the last round joins the
// 16-byte halves: vinsertf128/vperm2f128).
EMBER_LANES_INLINE void LoadColumns(const float* const* rows, int64_t p, F8* col) {
  F8 u[8];
  LoadQuarters(rows, p, u);
  LoadQuarters(rows + 4, p, u + 4);
  for (int q = 0; q < 4; ++q) {
    col[q] = __builtin_shufflevector(u[q], u[q + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    col[q + 4] = __builtin_shufflevector(u[q], u[q + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  }
}

// Half `high` of x as four doubles (exact): one vcvtps2pd ymm on AVX2, two cvtps2pd on SSE2.
// The empty asm keeps the half a register: without it GCC 12 traces each lane of the doubles
// back through the shuffles to its load and builds them from scalar inserts (three shuffle
// uops per four numbers instead of one conversion).
EMBER_LANES_INLINE D4 Widen(F8 x, bool high) {
  F4 h =
      high ? __builtin_shufflevector(x, x, 4, 5, 6, 7) : __builtin_shufflevector(x, x, 0, 1, 2, 3);
  asm("" : "+x"(h));
  return D4{static_cast<double>(h[0]), static_cast<double>(h[1]), static_cast<double>(h[2]),
            static_cast<double>(h[3])};
}

constexpr bool IsExtreme(ReduceOp op) {
  return op == ReduceOp::kMax || op == ReduceOp::kMin || op == ReduceOp::kArgMax ||
         op == ReduceOp::kArgMin;
}
constexpr bool TakesGreater(ReduceOp op) { return op == ReduceOp::kMax || op == ReduceOp::kArgMax; }

// Beats (reduce_fold.h) for one lane: a NaN best stays; a NaN x wins; else strictly better.
template <ReduceOp kOp>
EMBER_LANES_INLINE bool BeatsScalar(float x, float best) {
  if (best != best) return false;
  if (x != x) return true;
  return TakesGreater(kOp) ? x > best : x < best;
}

// The same, all lanes at once: a lane mask (all ones where x replaces best).
template <ReduceOp kOp>
EMBER_LANES_INLINE I8 BeatsLanes(F8 x, F8 best) {
  const I8 better = TakesGreater(kOp) ? (x > best) : (x < best);
  return (best == best) & ((x != x) | better);
}

// Whether any lane of the eight columns is a NaN (off the folds' dependency chains: the
// compares and ors of a block are independent of its steps).
EMBER_LANES_INLINE bool AnyNan(const F8* col) {
  I8 nan = col[0] != col[0];
  for (int k = 1; k < 8; ++k) nan |= col[k] != col[k];
  const U4 words = reinterpret_cast<U4&>(nan);
  return (words[0] | words[1] | words[2] | words[3]) != 0;
}

// kOp is kSum (also Mean), kProd, or one of the extremes (only kArgMax/kArgMin track the
// index: Finish of kMax/kMin reads the value alone).
template <ReduceOp kOp>
EMBER_LANES_INLINE void FoldChunk(const float* const* rows, int64_t r0, int64_t n,
                                  RowLanes& lanes) {
  int64_t p = 0;
  if constexpr (!IsExtreme(kOp)) {
    D4 lo, hi;
    std::memcpy(&lo, lanes.value, sizeof lo);
    std::memcpy(&hi, lanes.value + 4, sizeof hi);
    for (; p + 8 <= n; p += 8) {
      // Rows 0-3 (lo) then rows 4-7 (hi): two independent chains, eight steps each; four rows
      // at a time keep the transposed block and both accumulators in registers.
      for (int half = 0; half < 2; ++half) {
        F8 quarter[4];
        LoadQuarters(rows + 4 * half, p, quarter);
        D4& acc = half == 0 ? lo : hi;
        for (int k = 0; k < 8; ++k) {
          const D4 x = Widen(quarter[k % 4], k >= 4);  // position p + k
          acc = kOp == ReduceOp::kProd ? acc * x : acc + x;
        }
      }
    }
    std::memcpy(lanes.value, &lo, sizeof lo);
    std::memcpy(lanes.value + 4, &hi, sizeof hi);
    for (; p < n; ++p) {
      for (int j = 0; j < kRowLanes; ++j) {
        const double x = static_cast<double>(rows[j][p]);
        lanes.value[j] = kOp == ReduceOp::kProd ? lanes.value[j] * x : lanes.value[j] + x;
      }
    }
  } else {
    F8 best;
    I8 index;
    std::memcpy(&best, lanes.best, sizeof best);
    std::memcpy(&index, lanes.index, sizeof index);
    for (; p + 8 <= n; p += 8) {
      F8 col[8];
      LoadColumns(rows, p, col);
      const int32_t r = static_cast<int32_t>(r0 + p);
      if (!AnyNan(col)) {  // Beats without its NaN tests, which only a NaN x needs
        for (int k = 0; k < 8; ++k) {
          const I8 take = TakesGreater(kOp) ? col[k] > best : col[k] < best;
          best = take ? col[k] : best;  // vmaxps / vminps: keeps a NaN best, as Beats does
          if constexpr (IsArg(kOp)) {
            const I8 position = I8{} + (r + k);
            index = take ? position : index;
          }
        }
        continue;
      }
      for (int k = 0; k < 8; ++k) {
        const I8 take = BeatsLanes<kOp>(col[k], best);
        best = take ? col[k] : best;
        if constexpr (IsArg(kOp)) {
          const I8 position = I8{} + (r + k);
          index = take ? position : index;
        }
      }
    }
    std::memcpy(lanes.best, &best, sizeof best);
    std::memcpy(lanes.index, &index, sizeof index);
    for (; p < n; ++p) {
      for (int j = 0; j < kRowLanes; ++j) {
        const float x = rows[j][p];
        if (BeatsScalar<kOp>(x, lanes.best[j])) {
          lanes.best[j] = x;
          lanes.index[j] = static_cast<int32_t>(r0 + p);
        }
      }
    }
  }
}

EMBER_LANES_INLINE void FoldAnyOp(ReduceOp op, const float* const* rows, int64_t r0, int64_t n,
                                  RowLanes& lanes) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kMean: FoldChunk<ReduceOp::kSum>(rows, r0, n, lanes); return;
    case ReduceOp::kProd: FoldChunk<ReduceOp::kProd>(rows, r0, n, lanes); return;
    case ReduceOp::kMax: FoldChunk<ReduceOp::kMax>(rows, r0, n, lanes); return;
    case ReduceOp::kMin: FoldChunk<ReduceOp::kMin>(rows, r0, n, lanes); return;
    case ReduceOp::kArgMax: FoldChunk<ReduceOp::kArgMax>(rows, r0, n, lanes); return;
    case ReduceOp::kArgMin: FoldChunk<ReduceOp::kArgMin>(rows, r0, n, lanes); return;
  }
}

// Columns: lane j is output j, and position r0 + i of outputs [j0, j0 + 8 * kVectors) is the
// run at first + i * stride + j0, loaded as it is. kVectors vectors of eight outputs step
// together: independent chains, which the core overlaps.
template <ReduceOp kOp, int kVectors>
EMBER_LANES_INLINE void FoldColumnBlock(const float* first, int64_t stride, int64_t r0, int64_t n,
                                        int64_t j0, ColumnLanes& lanes) {
  if constexpr (!IsExtreme(kOp)) {
    D4 acc[2 * kVectors];
    for (int q = 0; q < 2 * kVectors; ++q) {
      std::memcpy(&acc[q], lanes.value + j0 + 4 * q, sizeof(D4));
    }
    for (int64_t i = 0; i < n; ++i) {
      const float* at = first + i * stride + j0;
#pragma GCC unroll 4
      for (int v = 0; v < kVectors; ++v) {
        const F8 x = *reinterpret_cast<const F8Unaligned*>(at + 8 * v);
        const D4 low = Widen(x, false), high = Widen(x, true);
        acc[2 * v] = kOp == ReduceOp::kProd ? acc[2 * v] * low : acc[2 * v] + low;
        acc[2 * v + 1] = kOp == ReduceOp::kProd ? acc[2 * v + 1] * high : acc[2 * v + 1] + high;
      }
    }
    for (int q = 0; q < 2 * kVectors; ++q) {
      std::memcpy(lanes.value + j0 + 4 * q, &acc[q], sizeof(D4));
    }
  } else {
    F8 best[kVectors];
    I8 index[kVectors];
    for (int v = 0; v < kVectors; ++v) {
      std::memcpy(&best[v], lanes.best + j0 + 8 * v, sizeof(F8));
      std::memcpy(&index[v], lanes.index + j0 + 8 * v, sizeof(I8));
    }
    for (int64_t i = 0; i < n; ++i) {
      const float* at = first + i * stride + j0;
      const I8 position = I8{} + static_cast<int32_t>(r0 + i);
#pragma GCC unroll 4
      for (int v = 0; v < kVectors; ++v) {
        const F8 x = *reinterpret_cast<const F8Unaligned*>(at + 8 * v);
        const I8 take = BeatsLanes<kOp>(x, best[v]);
        best[v] = take ? x : best[v];
        if constexpr (IsArg(kOp)) index[v] = take ? position : index[v];
      }
    }
    for (int v = 0; v < kVectors; ++v) {
      std::memcpy(lanes.best + j0 + 8 * v, &best[v], sizeof(F8));
      std::memcpy(lanes.index + j0 + 8 * v, &index[v], sizeof(I8));
    }
  }
}

// Outputs [0, count): blocks of 32, then of 8, then the last count % 8 one by one in scalar
// code doing the same operations.
template <ReduceOp kOp>
EMBER_LANES_INLINE void FoldColumns(const float* first, int64_t stride, int64_t r0, int64_t n,
                                    int64_t count, ColumnLanes& lanes) {
  int64_t j = 0;
  for (; j + 32 <= count; j += 32) FoldColumnBlock<kOp, 4>(first, stride, r0, n, j, lanes);
  for (; j + 8 <= count; j += 8) FoldColumnBlock<kOp, 1>(first, stride, r0, n, j, lanes);
  for (; j < count; ++j) {
    for (int64_t i = 0; i < n; ++i) {
      const float x = first[i * stride + j];
      if constexpr (!IsExtreme(kOp)) {
        const double d = static_cast<double>(x);
        lanes.value[j] = kOp == ReduceOp::kProd ? lanes.value[j] * d : lanes.value[j] + d;
      } else if (BeatsScalar<kOp>(x, lanes.best[j])) {
        lanes.best[j] = x;
        lanes.index[j] = static_cast<int32_t>(r0 + i);
      }
    }
  }
}

EMBER_LANES_INLINE void FoldColumnsAnyOp(ReduceOp op, const float* first, int64_t stride,
                                         int64_t r0, int64_t n, int64_t count, ColumnLanes& lanes) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kMean: FoldColumns<ReduceOp::kSum>(first, stride, r0, n, count, lanes); return;
    case ReduceOp::kProd: FoldColumns<ReduceOp::kProd>(first, stride, r0, n, count, lanes); return;
    case ReduceOp::kMax: FoldColumns<ReduceOp::kMax>(first, stride, r0, n, count, lanes); return;
    case ReduceOp::kMin: FoldColumns<ReduceOp::kMin>(first, stride, r0, n, count, lanes); return;
    case ReduceOp::kArgMax:
      FoldColumns<ReduceOp::kArgMax>(first, stride, r0, n, count, lanes);
      return;
    case ReduceOp::kArgMin:
      FoldColumns<ReduceOp::kArgMin>(first, stride, r0, n, count, lanes);
      return;
  }
}

// No "fma" in the target: the body has no multiply-add to contract, and must not get one.
__attribute__((target("avx2"))) void FoldAvx2(ReduceOp op, const float* const* rows, int64_t r0,
                                              int64_t n, RowLanes& lanes) {
  FoldAnyOp(op, rows, r0, n, lanes);
}

void FoldBaseline(ReduceOp op, const float* const* rows, int64_t r0, int64_t n, RowLanes& lanes) {
  FoldAnyOp(op, rows, r0, n, lanes);
}

__attribute__((target("avx2"))) void FoldColumnsAvx2(ReduceOp op, const float* first,
                                                     int64_t stride, int64_t r0, int64_t n,
                                                     int64_t count, ColumnLanes& lanes) {
  FoldColumnsAnyOp(op, first, stride, r0, n, count, lanes);
}

void FoldColumnsBaseline(ReduceOp op, const float* first, int64_t stride, int64_t r0, int64_t n,
                         int64_t count, ColumnLanes& lanes) {
  FoldColumnsAnyOp(op, first, stride, r0, n, count, lanes);
}

bool UseAvx2() {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
}

// Start and Finish of lanes held in arrays (rows' or columns').
void StartLanes(ReduceOp op, int64_t count, double* value, float* best, int32_t* index) {
  const float inf = std::numeric_limits<float>::infinity();
  const float start = !IsExtreme(op) ? 0.0f : TakesGreater(op) ? -inf : inf;
  for (int64_t j = 0; j < count; ++j) {
    value[j] = op == ReduceOp::kProd ? 1.0 : 0.0;
    best[j] = start;
    index[j] = 0;
  }
}

void FinishLanes(ReduceOp op, int64_t count, int64_t length, const double* value, const float* best,
                 const int32_t* index, double* finished) {
  for (int64_t j = 0; j < count; ++j) {
    Accumulator<float> acc = Start<float>(op);
    if (!IsExtreme(op)) {
      acc.value = value[j];
    } else if (length > 0) {  // an empty axis keeps Start's {0, 0}, as the scalar fold does
      acc = {static_cast<double>(best[j]), index[j]};
    }
    finished[j] = Finish(op, acc, length);
  }
}

}  // namespace

RowLanes StartRowLanes(ReduceOp op) {
  RowLanes lanes;
  StartLanes(op, kRowLanes, lanes.value, lanes.best, lanes.index);
  return lanes;
}

void FoldRowChunk(ReduceOp op, const float* const* rows, int64_t r0, int64_t n, RowLanes& lanes) {
  if (UseAvx2()) {
    FoldAvx2(op, rows, r0, n, lanes);
  } else {
    FoldBaseline(op, rows, r0, n, lanes);
  }
}

void FinishRowLanes(ReduceOp op, const RowLanes& lanes, int count, int64_t length,
                    double* finished) {
  FinishLanes(op, count, length, lanes.value, lanes.best, lanes.index, finished);
}

void StartColumnLanes(ReduceOp op, int64_t count, ColumnLanes& lanes) {
  StartLanes(op, count, lanes.value, lanes.best, lanes.index);
}

void FoldColumnChunk(ReduceOp op, const float* first, int64_t stride, int64_t r0, int64_t n,
                     int64_t count, ColumnLanes& lanes) {
  if (UseAvx2()) {
    FoldColumnsAvx2(op, first, stride, r0, n, count, lanes);
  } else {
    FoldColumnsBaseline(op, first, stride, r0, n, count, lanes);
  }
}

void FinishColumnLanes(ReduceOp op, const ColumnLanes& lanes, int64_t count, int64_t length,
                       double* finished) {
  FinishLanes(op, count, length, lanes.value, lanes.best, lanes.index, finished);
}

bool RowLaneTargetAvailable(RowLaneTarget target) {
  switch (target) {
    case RowLaneTarget::kBaseline: return true;
    case RowLaneTarget::kAvx2: return __builtin_cpu_supports("avx2");
  }
  return false;
}

void FoldRowChunkOn(RowLaneTarget target, ReduceOp op, const float* const* rows, int64_t r0,
                    int64_t n, RowLanes& lanes) {
  switch (target) {
    case RowLaneTarget::kBaseline: FoldBaseline(op, rows, r0, n, lanes); return;
    case RowLaneTarget::kAvx2: FoldAvx2(op, rows, r0, n, lanes); return;
  }
}

void FoldColumnChunkOn(RowLaneTarget target, ReduceOp op, const float* first, int64_t stride,
                       int64_t r0, int64_t n, int64_t count, ColumnLanes& lanes) {
  switch (target) {
    case RowLaneTarget::kBaseline:
      FoldColumnsBaseline(op, first, stride, r0, n, count, lanes);
      return;
    case RowLaneTarget::kAvx2: FoldColumnsAvx2(op, first, stride, r0, n, count, lanes); return;
  }
}

}  // namespace ember::cpu

// Row reductions folded in vector lanes: up to kRowLanes rows reduced along their last axis at
// once, one row per lane, each row in exactly the order of the scalar fold of reduce_fold.h.
// Used by ReduceDim's along-the-axis loop (reduce.cpp) and by the fused interpreter's reduce of
// rows (fused_reduce.cpp), so both stay bit-identical with each other and with Fold; reductions
// along an outer axis use the column form below, in both paths too.
//
// Note [Row folds in lanes]
// The scalar fold of one row is a chain: each step needs the accumulator of the step before
// (sum: acc + x in double; max: Beats then assign), so one row runs at the latency of one add
// or compare per element, and reordering it (a tree of partial sums, a vertical max) would
// change the results. The rows are independent chains, though, so the fold runs eight rows
// side by side: lane j of every vector is row j. Eight positions of the eight rows are loaded
// as eight row vectors and transposed in registers (load 8x8, shuffle), so vector k holds
// position p + k of every row; the lanes then step through k = 0..7 in order, and every lane
// performs the scalar fold's operations on its own row in the scalar fold's order:
//  * Sum, Mean: acc + double(x), from 0.0, two vectors of four doubles (the contract of
//    reduce_fold.h: floats accumulate in double); Prod: acc * double(x), from 1.0.
//  * Max, Min, ArgMax, ArgMin: the best value stays a float (float -> double is exact and
//    order preserving, so comparing in float is comparing the scalar fold's doubles), with
//    Beats' rules lane-wise: a NaN best is never replaced, a NaN x replaces a number, otherwise
//    strictly greater (less) wins, so the first of equal values (+0 before -0 or the reverse)
//    keeps its index. The scalar fold's "position 0 always assigns" is the start best = -inf
//    (Max) or +inf (Min) at index 0: any x at position 0 beats it or equals it (x = -inf for
//    Max), and either way the state after position 0 is {x, 0}, as assigning gives.
//    A block of eight positions without a NaN x (the common case, tested off the dependency
//    chain) steps with the compare alone: x > best is false for a NaN best, so it stays, which
//    is all Beats' NaN tests do when x is a number; only blocks with a NaN take the full rule.
// One thing is not the lanes' to keep: when a sum or product meets two NaNs, x86 returns the
// first operand's NaN, and which operand comes first is the compiler's choice (the add
// commutes), in the scalar fold as here, so the payload of a NaN sum was never a property of
// the fold order; it is NaN either way, and every path that folds rows in lanes (fused and
// unfused) gets the same one.
// A row's tail (its last length % 8 positions) folds lane by lane in scalar code doing the same
// operations. Nothing else differs between lanes and the scalar fold: no reassociation, no FMA
// (the vector code only adds, multiplies, compares and selects), and float -> double
// conversion is exact, so each row's result is bit-identical to Fold's (tests/runtime/cpu/
// cpu_reduce_lanes_test.cpp checks it against Fold for every op, on both targets).
//
// Two targets, picked once per process like vector_math.h's: AVX2 (the vectors in ymm
// registers) when the CPU has it, else the baseline x86-64 build (SSE2: the compiler splits each
// 32-byte vector in two). The code is one generic body in GCC's vector extensions compiled
// for both; the results do not depend on the target.
//
// Outputs side by side in memory (a reduce along an outer axis: ReduceDim's across-outputs loop,
// the fused reduce with inner > 1) fold the same way with lane j = output j: position r of the
// outputs is one contiguous run, loaded as it is, no transpose. Each output still folds its
// positions in order with the same operations (no fast path there: the steps of 32 outputs
// are independent chains already).
//
// Integer reductions (the i64 domain) still fold in reduce_fold.h's scalar loop.
#pragma once

#include <cstdint>
#include <limits>

#include "engine/runtime/cpu/kernels.h"

namespace ember::cpu {

inline constexpr int kRowLanes = 8;

// Arg ops keep their positions in 32-bit lanes: longer rows fold in the scalar loop.
inline constexpr int64_t kMaxLaneRowLength = std::numeric_limits<int32_t>::max();

// The running state of kRowLanes rows between chunks of their positions. Plain arrays so a
// caller can keep it across calls; lane j is row j.
struct RowLanes {
  alignas(32) double value[kRowLanes];   // Sum, Mean, Prod: the double accumulator
  alignas(32) float best[kRowLanes];     // Max, Min, ArgMax, ArgMin: the best value so far
  alignas(32) int32_t index[kRowLanes];  // and its position along the axis
};

// Whether float rows of `length` numbers fold in lanes for `op` (every op, rows short enough
// for 32-bit positions).
inline bool FoldsInLanes(int64_t length) { return length <= kMaxLaneRowLength; }

RowLanes StartRowLanes(ReduceOp op);

// Folds positions [r0, r0 + n) of kRowLanes rows: rows[j] points at position r0 of row j, with
// n readable floats. Rows past the caller's count must still be readable (point them at a real
// row; their lanes are ignored). Chunks of one row must come in order, r0 = 0 first.
void FoldRowChunk(ReduceOp op, const float* const* rows, int64_t r0, int64_t n, RowLanes& lanes);

// finished[j], j < count: Finish(op, ...) of row j's fold (reduce_fold.h), `length` positions
// folded in all.
void FinishRowLanes(ReduceOp op, const RowLanes& lanes, int count, int64_t length,
                    double* finished);

// Up to kTileSize outputs side by side (lane j is output j).
struct ColumnLanes {
  alignas(32) double value[kTileSize];
  alignas(32) float best[kTileSize];
  alignas(32) int32_t index[kTileSize];
};

// Lanes [0, count) of `lanes`, count <= kTileSize.
void StartColumnLanes(ReduceOp op, int64_t count, ColumnLanes& lanes);

// Folds positions [r0, r0 + n) of outputs [0, count): position r0 + i of output j is
// first[i * stride + j]. Chunks of positions must come in order, r0 = 0 first.
void FoldColumnChunk(ReduceOp op, const float* first, int64_t stride, int64_t r0, int64_t n,
                     int64_t count, ColumnLanes& lanes);

// finished[j], j < count: as FinishRowLanes.
void FinishColumnLanes(ReduceOp op, const ColumnLanes& lanes, int64_t count, int64_t length,
                       double* finished);

// The targets, for tests that fold the same rows on each: kBaseline runs on any x86-64,
// kAvx2 only where RowLaneTargetAvailable says so. FoldRowChunk uses the best available.
enum class RowLaneTarget { kBaseline, kAvx2 };
bool RowLaneTargetAvailable(RowLaneTarget target);
void FoldRowChunkOn(RowLaneTarget target, ReduceOp op, const float* const* rows, int64_t r0,
                    int64_t n, RowLanes& lanes);
void FoldColumnChunkOn(RowLaneTarget target, ReduceOp op, const float* first, int64_t stride,
                       int64_t r0, int64_t n, int64_t count, ColumnLanes& lanes);

}  // namespace ember::cpu

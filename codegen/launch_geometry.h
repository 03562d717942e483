// Launch geometry: how many threads a row kernel gives each row and each thread block (Note
// [Row geometry]), and grids in whole waves. Pure arithmetic over sizes and device limits, used
// by the planner (plan_trace.h) and by the backend once it knows a compiled kernel's occupancy.
//
// Note [Row geometry]
// A kRow kernel gives each row a group of G threads, G the smallest power of two (at most
// 1024) that leaves each thread kRowVectorsPerThread vectors or fewer, so the reductions,
// whose cost grows with G and not with the row, stay small beside the row's work: rows of
// 4096 f32 get 256 threads, rows of 512 get 32 (a warp: shuffles only), rows of 64 get 4.
// Groups smaller than kRowBlockThreads share a thread block (R = 256 / G rows each, fewer
// where their shared-memory rows would pass kRowSharedPerBlock). All threads of a block walk
// the same row iterations: the last iteration's surplus groups recompute the last row and
// store nothing, so __syncthreads and full-warp shuffles stay legal. Several rows per block
// need every full-block handover in shared memory (scratch handovers would be written by the
// surplus groups too).
#pragma once

#include <cstdint>

namespace ember::codegen {

// kRow: the vectors each thread of a row group aims to take per block of the trace, the threads
// of a thread block holding several rows, and the dynamic shared memory such a block may take
// (more would cost resident blocks, not save work).
inline constexpr int64_t kRowVectorsPerThread = 4;
inline constexpr int kRowBlockThreads = 256;
inline constexpr int64_t kRowSharedPerBlock = 48 * 1024;

// What a kRow kernel's geometry depends on (Note [Row geometry] above).
struct RowShape {
  int64_t vectors = 0;           // vectors along a row
  int64_t units = 0;             // rows
  int64_t row_shared_bytes = 0;  // a row's shared-memory handovers
  int64_t shared_budget = 0;     // the most of them a block takes
  int64_t multiprocessors = 1;
  bool multi_row = true;  // rows may share a block (no scratch handovers)
};
// Threads per row (`group`, a power of two) and per thread block.
struct RowGeometry {
  int group = 32;
  int threads = 32;
};
RowGeometry ChooseRowGeometry(const RowShape& shape);

// The grid of a grid-stride kernel (every generated kernel is one) in whole waves: at most the
// blocks the device holds at once, `resident_blocks` per multiprocessor (the backend asks the
// driver once the kernel is compiled; <= 0: unknown, `grid` unchanged). A grid that is not a
// whole number of waves leaves multiprocessors idle during its last one; a grid of one full
// wave whose threads loop does not.
int64_t WholeWaveGrid(int64_t grid, int64_t multiprocessors, int resident_blocks);

}  // namespace ember::codegen

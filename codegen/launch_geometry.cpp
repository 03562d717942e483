#include "codegen/launch_geometry.h"

#include <algorithm>

#include "codegen/kernel_variants.h"

namespace ember::codegen {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

RowGeometry ChooseRowGeometry(const RowShape& r) {
  int group = 1;
  // Note [Kernel variants]: vpt=N measures another share per thread.
  const int64_t variant = ActiveKernelVariants().row_vectors_per_thread;
  const int64_t vpt = variant > 0 ? variant : kRowVectorsPerThread;
  while (group < 1024 && group * vpt < r.vectors) group *= 2;
  if (!r.multi_row) {
    group = std::max(group, 32);
    return {.group = group, .threads = group};
  }
  // Whole warps: the shuffles name all 32 lanes.
  const int64_t least = 32 / std::min(group, 32);
  int64_t rows = std::max(1, kRowBlockThreads / group);
  while (rows > least && rows * r.row_shared_bytes > r.shared_budget) rows /= 2;
  // Fewer rows per block while the blocks would not give every multiprocessor a few.
  while (rows > least && CeilDiv(r.units, rows) < r.multiprocessors * 4) rows /= 2;
  return {.group = group, .threads = static_cast<int>(std::max(rows, least) * group)};
}

int64_t WholeWaveGrid(int64_t grid, int64_t multiprocessors, int resident_blocks) {
  if (resident_blocks <= 0 || multiprocessors <= 0) return grid;
  return std::clamp<int64_t>(grid, 1, multiprocessors * resident_blocks);
}

}  // namespace ember::codegen

// Note [Kernel variants]
// Code-generation choices that only a GPU can judge (a register cap, the threads a row group
// takes, a grid past one wave, an unrolled elementwise loop) are measured on the lent device,
// where a session gets a few calls of ten minutes. EMBER_KERNEL_VARIANTS names such variants
// so that one call can time each of them in its own process (bench/gpu/kernel-variants.sh)
// without a rebuild. It is a measuring tool, not a setting: unset (the default), every choice
// is the planner's own; a variant changes how a kernel runs, never what it computes beyond the
// rounding of a reduction's order (Note [GPU tolerances], tests/gpu/gpu_test_util.h). A variant
// that changes a kernel's source writes itself into it, so a kernel cache (keyed by the
// source: engine/runtime/cuda/kernel_cache.h) never serves one variant's binary for another.
//
// Words, comma-separated:
//   minblocks=N   row kernels: __launch_bounds__(threads, N), registers capped for N resident
//                 blocks per multiprocessor (1..32)
//   vpt=N         row kernels: each thread of a row group takes about N vectors (a power of two,
//                 1..64; the planner's is kRowVectorsPerThread, launch_geometry.h)
//   rownocap      row kernels: the grid is the planner's, not capped at one wave
//   noregcap      row kernels: no register cap from the compiled count (Note [Register cap],
//                 register_cap.h); minblocks=N also replaces that rule
//   unroll        elementwise kernels: the grid-stride loop unrolled 4 times
//   nocap         elementwise kernels: a block per 256 vectors, no grid stride
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ember::codegen {

struct KernelVariants {
  int row_min_blocks = 0;              // 0: no minimum in __launch_bounds__
  int64_t row_vectors_per_thread = 0;  // 0: the planner's kRowVectorsPerThread
  bool row_no_wave_cap = false;
  bool row_no_register_cap = false;
  bool elementwise_unroll = false;
  bool elementwise_no_cap = false;

  bool operator==(const KernelVariants&) const = default;
  // The words that give these variants, in the order above; empty for the planner's own.
  std::string Text() const;
};

// The variants `text` names (the syntax above). Throws ember::Error naming a word it does not
// know or a value out of range.
KernelVariants ParseKernelVariants(std::string_view text);

// EMBER_KERNEL_VARIANTS, read once per process (the planner's own choices when unset). Throws
// ember::Error, as ParseKernelVariants does, on the first use when the variable is malformed.
const KernelVariants& ActiveKernelVariants();

// Tests: replaces the process's variants until the next call (nullptr: back to the variable's).
void SetKernelVariantsForTesting(const KernelVariants* variants);

}  // namespace ember::codegen

// Note [Register cap]
// A row kernel (Note [Kernel modes], kernel_source.h) spends most of its time between phases:
// a block loads its row, then waits at the group reduction's barriers, so the device is kept
// busy by other blocks resident beside it, and how many fit is set by registers. A
// multiprocessor has 65,536 registers and hands them to a warp in steps of 256 (8 a thread),
// so a 256-thread kernel of 33 to 40 registers fits 6 blocks and one of 32 fits 8. NVCC sizes
// a kernel for itself, not for its neighbours: the softmax row kernel compiles to 34 registers
// and so runs 6 blocks of 8, although 2 registers fewer cost it nothing (no spill).
//
// The rule, applied once per kernel after NVRTC has compiled it without a cap: a row kernel
// whose register count lies at most kRegisterCapSlack registers above an allocation step is
// compiled again with __launch_bounds__(threads, B), B the blocks that fit at that step, and
// the capped binary is used unless it spills (CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES > 0) or the
// driver's occupancy calculator does not find more blocks resident with it than without (ptxas
// may meet the cap in another way). Checked with nvcc 13's ptxas for sm_90 on the golden sources
// (tests/codegen/golden): softmax.cu, 256 threads, 34 registers, 32 under (256, 8) and no spill;
// layernorm.cu, 64 threads, 44 registers, under (64, 25) 32 registers and 12 bytes of spill
// loads, so that build would be left out.
// A kernel further above the step keeps its registers: squeezing layernorm's 40 to 32 made it
// 8-14% slower, while softmax's 34 to 32 made it up to 8% faster per call and 13-20% back to
// back (docs/BENCHMARKS.md, "issue 46, second step", the minblocks=8 variant, H100). The
// planner cannot know the count before NVRTC has compiled, hence the second compile; both
// binaries go to the kernel store, so a warm start loads them instead of compiling.
//
// EMBER_KERNEL_VARIANTS=noregcap (Note [Kernel variants]) turns the rule off to measure it;
// minblocks=N replaces it with a fixed cap.
#pragma once

namespace ember::codegen {

inline constexpr int kRegisterCapSlack = 4;

// The multiprocessor a kernel runs on (sm_80 and sm_90: 65,536 registers, 2,048 threads;
// sm_86 and sm_89 hold 1,536 threads).
struct Multiprocessor {
  int registers = 65536;
  int threads = 2048;
  int blocks = 32;  // resident blocks at most (sm_90: 32; sm_86, sm_89: 16)
};

// The minimum resident blocks to compile a kernel of `threads` threads a block and
// `registers` registers a thread with, by the rule above, or 0: keep it as compiled (also
// when the cap would not add a resident block, the threads being the limit).
int RegisterCapBlocks(int threads, int registers, Multiprocessor sm = {});

}  // namespace ember::codegen

// Note [Register cap] (codegen/register_cap.h): which compiled register counts a row kernel is
// built again for, and under which cap; and the cap written into the kernel's source.
#include <gtest/gtest.h>

#include "codegen/kernel_variants.h"
#include "codegen/register_cap.h"

namespace ember::codegen {
namespace {

TEST(RegisterCap, ALittleAboveAStepIsCappedAtTheStepBelow) {
  // 33..36 registers: 6 blocks of 256 threads as compiled (40 allocated), 8 at 32.
  for (int r : {33, 34, 35, 36}) EXPECT_EQ(RegisterCapBlocks(256, r), 8) << r;
  // 41..44: 5 blocks (48 allocated), 6 at 40.
  for (int r : {41, 42, 43, 44}) EXPECT_EQ(RegisterCapBlocks(256, r), 6) << r;
}

TEST(RegisterCap, FurtherAboveTheStepKeepsItsRegisters) {
  // layernorm's 40: squeezed to 32 it ran slower (docs/BENCHMARKS.md, issue 46).
  for (int r : {37, 38, 39, 40, 45, 48, 64, 255}) EXPECT_EQ(RegisterCapBlocks(256, r), 0) << r;
}

TEST(RegisterCap, NoCapWhereTheThreadsAlreadyLimitTheBlocks) {
  // 256 threads: 8 blocks at most whatever the registers, so 25..32 gain nothing.
  for (int r = 1; r <= 32; ++r) EXPECT_EQ(RegisterCapBlocks(256, r), 0) << r;
  // 128 threads: 16 blocks at most; 34 registers give 12, 32 give 16.
  EXPECT_EQ(RegisterCapBlocks(128, 34), 16);
  EXPECT_EQ(RegisterCapBlocks(1024, 34), 2);  // 1 block at 40 registers, 2 at 32
  EXPECT_EQ(RegisterCapBlocks(0, 34), 0);
  // sm_86 and sm_89: 1,536 threads, so 6 blocks of 256 whatever the registers.
  EXPECT_EQ(RegisterCapBlocks(256, 34, {.registers = 65536, .threads = 1536}), 0);
  EXPECT_EQ(RegisterCapBlocks(256, 44, {.registers = 65536, .threads = 1536}), 6);
  // 64 threads: 32 resident blocks at most; 34 registers give 25, 32 give 32.
  EXPECT_EQ(RegisterCapBlocks(64, 34), 32);
  EXPECT_EQ(RegisterCapBlocks(64, 34, {.blocks = 24}), 0);  // the block limit binds already
}

TEST(RegisterCap, ANoregcapVariantIsParsedAndNamed) {
  const KernelVariants v = ParseKernelVariants("noregcap");
  EXPECT_TRUE(v.row_no_register_cap);
  EXPECT_EQ(v.Text(), "noregcap");
  EXPECT_FALSE(ParseKernelVariants("").row_no_register_cap);
}

}  // namespace
}  // namespace ember::codegen

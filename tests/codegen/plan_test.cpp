// The planner's launch decisions that need no GPU to check: the row geometry of kRow kernels
// (Note [Row geometry], codegen/plan_trace.cpp), the two-kernel split of few long rows
// (Note [Split rows]) and grids in whole waves (WholeWaveGrid).
#include <gtest/gtest.h>

#include <ember/error.h>

#include "codegen/kernel_source.h"
#include "codegen/plan_trace.h"
#include "tests/codegen/golden_cases.h"

namespace ember {
namespace {

using codegen::KernelMode;
using codegen::TracePlan;

TracePlan PlanOf(const FuseTrace& trace, std::map<int64_t, int64_t> dims) {
  codegen_test::LaunchMaker maker(std::move(dims));
  return codegen::PlanTrace(maker.Make(trace));
}

FuseTrace SumRows() {
  return codegen_test::ops::ReduceRows(OpKind::kSumDim, DType::kF32, DType::kF32);
}

TEST(RowGeometry, ShortRowsShareAThreadBlock) {
  // Rows of 64 f32: 16 vectors, 4 threads each row, 64 rows per block of 256.
  const TracePlan plan = PlanOf(SumRows(), {{1, 100000}, {2, 64}});
  ASSERT_EQ(plan.kernels.size(), 1u);
  const codegen::KernelSpec& k = plan.kernels[0];
  EXPECT_EQ(k.mode, KernelMode::kRow);
  EXPECT_EQ(k.width, 4);
  EXPECT_EQ(k.group, 4);
  EXPECT_EQ(k.threads, 256);
  EXPECT_EQ(k.grid, (100000 + 63) / 64);
}

TEST(RowGeometry, SoftmaxRowsOf4096TakeAGroupOf256) {
  const TracePlan plan = PlanOf(codegen_test::ops::Softmax(), {{1, 2048}, {2, 4096}});
  ASSERT_EQ(plan.kernels.size(), 1u);
  const codegen::KernelSpec& k = plan.kernels[0];
  EXPECT_EQ(k.group, 256);
  EXPECT_EQ(k.threads, 256);
  EXPECT_TRUE(k.shared_handover);
  // Two handovers of a row in one slot (Note [Shared handover slots]), one row per block.
  EXPECT_EQ(k.shared_bytes, 4096 * 4);
  EXPECT_TRUE(plan.scratch.empty());
}

TEST(RowGeometry, FewRowsKeepEveryMultiprocessorBusy) {
  // 200 rows of 64: packing 64 per block would leave 4 blocks; fewer rows per block instead.
  const TracePlan plan = PlanOf(SumRows(), {{1, 200}, {2, 64}});
  const codegen::KernelSpec& k = plan.kernels.at(0);
  EXPECT_EQ(k.group, 4);
  EXPECT_EQ(k.threads, 32);  // never less than a warp
  EXPECT_EQ(k.grid, (200 + 7) / 8);
}

TEST(RowGeometry, GroupsGrowWithTheRowAndStopAt1024) {
  using codegen::ChooseRowGeometry;
  EXPECT_EQ(ChooseRowGeometry({.vectors = 1, .units = 1 << 20, .multiprocessors = 132}).group, 1);
  EXPECT_EQ(ChooseRowGeometry({.vectors = 1, .units = 1 << 20, .multiprocessors = 132}).threads,
            256);
  EXPECT_EQ(ChooseRowGeometry({.vectors = 128, .units = 1 << 20, .multiprocessors = 132}).group,
            32);
  const codegen::RowGeometry huge =
      ChooseRowGeometry({.vectors = 1 << 20, .units = 4, .multiprocessors = 132});
  EXPECT_EQ(huge.group, 1024);
  EXPECT_EQ(huge.threads, 1024);
  // Rows with scratch handovers get a block each, of whole warps.
  const codegen::RowGeometry alone = ChooseRowGeometry(
      {.vectors = 8, .units = 1 << 20, .multiprocessors = 132, .multi_row = false});
  EXPECT_EQ(alone.group, 32);
  EXPECT_EQ(alone.threads, 32);
}

TEST(RowGeometry, SharedMemoryBoundsTheRowsOfABlock) {
  // Rows of 256 vectors (64 threads), 8 KiB of handovers each, 16 KiB per block: 2 rows.
  const codegen::RowGeometry g = codegen::ChooseRowGeometry({.vectors = 256,
                                                             .units = 1 << 20,
                                                             .row_shared_bytes = 8192,
                                                             .shared_budget = 16384,
                                                             .multiprocessors = 132});
  EXPECT_EQ(g.group, 64);
  EXPECT_EQ(g.threads, 128);
}

TEST(SplitRows, OneLongRowRunsAsPartialsThenACombine) {
  // ReduceAll's [1, n]: n = 2^22 f32, 2^20 vectors.
  const TracePlan plan = PlanOf(SumRows(), {{1, 1}, {2, 1 << 22}});
  ASSERT_EQ(plan.kernels.size(), 2u);
  EXPECT_EQ(plan.kernels[0].mode, KernelMode::kRowPartial);
  EXPECT_EQ(plan.kernels[1].mode, KernelMode::kRowCombine);
  // Enough parts for 8 blocks on each of the 132 multiprocessors, each thread 4 vectors or
  // more: min(2^20 / 1024, 132 * 8) = 1024.
  EXPECT_EQ(plan.parts, 1024);
  EXPECT_EQ(plan.kernels[0].grid, 1024);
  EXPECT_EQ(plan.kernels[1].grid, 1);
  // A sum keeps values only: one buffer of 8-byte words, one per partial.
  ASSERT_EQ(plan.scratch.size(), 1u);
  EXPECT_EQ(plan.scratch[0].dtype, DType::kI64);
  EXPECT_EQ(plan.scratch[0].positions, 1024);
  EXPECT_NE(plan.kernels[0].signature, plan.kernels[1].signature);
}

TEST(SplitRows, ArgMaxKeepsPositionsToo) {
  const TracePlan plan =
      PlanOf(codegen_test::ops::ReduceRows(OpKind::kArgMax, DType::kF32, DType::kI64),
             {{1, 4}, {2, 1 << 18}});
  ASSERT_EQ(plan.kernels.size(), 2u);
  EXPECT_EQ(plan.parts, 64);  // 2^16 vectors / 1024 per part
  ASSERT_EQ(plan.scratch.size(), 2u);
  EXPECT_EQ(plan.scratch[0].positions, 4 * 64);
  EXPECT_EQ(plan.scratch[1].positions, 4 * 64);
}

TEST(SplitRows, ManyRowsOrShortRowsStayOneKernel) {
  EXPECT_EQ(PlanOf(SumRows(), {{1, 512}, {2, 1 << 16}}).kernels.size(), 1u);
  EXPECT_EQ(PlanOf(SumRows(), {{1, 1}, {2, 4096}}).kernels.size(), 1u);
  // A softmax hands values between full blocks: it cannot split.
  EXPECT_EQ(PlanOf(codegen_test::ops::Softmax(), {{1, 1}, {2, 1 << 20}}).kernels.size(), 1u);
}

TEST(SplitRows, ThePartsSlotCarriesThePlansParts) {
  const FuseTrace trace = SumRows();
  codegen_test::LaunchMaker maker({{1, 1}, {2, 1 << 22}});
  codegen::TraceLaunch launch = maker.Make(trace);
  const TracePlan plan = codegen::PlanTrace(launch);
  for (const codegen::ScratchSpec& s : plan.scratch) {
    launch.scratch.push_back({.dtype = s.dtype, .shape = {s.positions}, .strides = {1}});
  }
  for (const codegen::KernelSpec& spec : plan.kernels) {
    const codegen::GeneratedKernel kernel = codegen::GenerateKernel(trace, spec);
    const std::vector<uint64_t> args = codegen::KernelArguments(launch, plan, kernel.slots);
    bool found = false;
    for (size_t k = 0; k < kernel.slots.size(); ++k) {
      if (kernel.slots[k].kind != codegen::Slot::Kind::kParts) continue;
      EXPECT_EQ(args[k], 1024u);
      found = true;
    }
    EXPECT_TRUE(found);
  }
}

// The generated code indexes a block with as many coordinates as its shape_ref has dims; a
// launch of another rank is refused (the engine then runs the ops unfused) rather than run with
// coordinates that do not exist.
TEST(PlanTrace, ABlockLaunchedAtAnotherRankIsRefused) {
  const FuseTrace trace = SumRows();
  codegen_test::LaunchMaker maker({{1, 8}, {2, 64}});
  codegen::TraceLaunch launch = maker.Make(trace);
  EXPECT_NO_THROW(codegen::PlanTrace(launch));
  launch.block_shapes[0].insert(launch.block_shapes[0].begin(), 1);
  EXPECT_THROW(codegen::PlanTrace(launch), Error);
}

TEST(WholeWaveGrid, CapsAtOneWaveOfResidentBlocks) {
  // chains5x8: 2112 blocks asked, 5 of 256 threads resident per multiprocessor.
  EXPECT_EQ(codegen::WholeWaveGrid(2112, 132, 5), 660);
  EXPECT_EQ(codegen::WholeWaveGrid(100, 132, 5), 100);    // less than a wave: as asked
  EXPECT_EQ(codegen::WholeWaveGrid(2112, 132, 0), 2112);  // occupancy unknown
}

}  // namespace
}  // namespace ember

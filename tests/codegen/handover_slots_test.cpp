// Note [Shared handover slots] (codegen/handover.h): a row kernel's shared arrays are reused
// once the last read of their value has run, so a softmax needs one array and independent
// reduce chains in one trace need the shared memory of one chain.
#include <gtest/gtest.h>

#include <algorithm>

#include "codegen/handover.h"
#include "codegen/kernel_source.h"
#include "codegen/plan_trace.h"
#include "tests/codegen/golden_cases.h"

namespace ember {
namespace {

using codegen::Handover;

std::vector<bool> AllFullButReduced(const FuseTrace& trace) {
  // Blocks after a reduce stage hold the reduced shape until the next full one: the layout
  // the planner computes (MakeReduceLayout) from the launch.
  codegen_test::LaunchMaker maker({{1, 64}, {2, 4096}});
  return codegen::MakeReduceLayout(maker.Make(trace)).full;
}

std::vector<const Handover*> Shared(const std::vector<Handover>& all) {
  std::vector<const Handover*> shared;
  for (const Handover& h : all) {
    if (h.storage == Handover::Storage::kShared) shared.push_back(&h);
  }
  std::sort(shared.begin(), shared.end(),
            [](const Handover* a, const Handover* b) { return a->block < b->block; });
  return shared;
}

TEST(SharedHandoverSlots, OneSoftmaxTakesOneSlot) {
  const FuseTrace trace = codegen_test::ops::Softmax();
  const auto all =
      codegen::FindHandovers(trace, codegen::KernelMode::kRow, true, AllFullButReduced(trace));
  const auto shared = Shared(all);
  ASSERT_EQ(shared.size(), 2u);
  // exp's values are written after the block's last read of the scaled input: its array.
  EXPECT_EQ(shared[0]->last_read, shared[1]->block);
  EXPECT_LT(shared[0]->last_read_step, shared[1]->write_step);
  EXPECT_EQ(shared[0]->slot, shared[1]->slot);
  EXPECT_EQ(codegen::SharedSlotBytes(all), 4);
}

TEST(SharedHandoverSlots, AValueReadAfterTheNewOneIsWrittenKeepsItsSlot) {
  // The softmax trace with one more write in block 2, after exp's values are handed over:
  // an output that is the scaled input itself. The scaled input is then read after e is
  // stored, so e must not take its array.
  FuseTrace trace = codegen_test::ops::Softmax();
  ASSERT_EQ(trace.blocks.size(), 5u);
  FuseOp copy;
  copy.kind = FuseOpKind::kAssign;
  copy.args[0] = {
      .kind = FuseArgKind::kMultiBlockLocal, .dtype = DType::kF32, .pos = 0, .block = 0};
  copy.out = {.kind = FuseArgKind::kOutput, .dtype = DType::kF32, .pos = 1};
  trace.blocks[2].writes.push_back(copy);
  const auto all =
      codegen::FindHandovers(trace, codegen::KernelMode::kRow, true, AllFullButReduced(trace));
  const auto shared = Shared(all);
  ASSERT_EQ(shared.size(), 2u);
  EXPECT_GT(shared[0]->last_read_step, shared[1]->write_step);
  EXPECT_NE(shared[0]->slot, shared[1]->slot);
  EXPECT_EQ(codegen::SharedSlotBytes(all), 8);
}

TEST(SharedHandoverSlots, ASecondIndependentChainReusesTheFirstsSlot) {
  const FuseTrace trace = codegen_test::ops::TwoSoftmaxes();
  ASSERT_EQ(trace.reduces.size(), 4u) << "the fuser took both softmaxes";
  const auto all =
      codegen::FindHandovers(trace, codegen::KernelMode::kRow, true, AllFullButReduced(trace));
  const auto shared = Shared(all);
  ASSERT_EQ(shared.size(), 4u);
  // Written in block order: t1, e1, t2, e2, each after its predecessor's last read.
  for (const Handover* h : shared) {
    EXPECT_LT(h->block, h->last_read);
    EXPECT_EQ(h->slot, shared[0]->slot);
  }
  EXPECT_EQ(codegen::SharedSlotBytes(all), 4);
}

TEST(SharedHandoverSlots, TheTwoChainsRunFromSharedMemoryNotScratch) {
  codegen_test::LaunchMaker maker({{1, 2048}, {2, 4096}});
  // 48 KiB a block (DeviceLimits' default): the four handovers' 64 KiB a row would not fit;
  // one slot's 16 KiB does. Each chain is a kernel of its own (Note [Trace chains]).
  const codegen::TracePlan plan = codegen::PlanTrace(maker.Make(codegen_test::ops::TwoSoftmaxes()));
  ASSERT_EQ(plan.kernels.size(), 2u);
  for (const codegen::KernelSpec& k : plan.kernels) {
    EXPECT_EQ(k.mode, codegen::KernelMode::kRow);
    EXPECT_TRUE(k.shared_handover);
    EXPECT_EQ(k.shared_bytes, 4096 * 4);
  }
  EXPECT_TRUE(plan.scratch.empty());
}

// The chains stay one kernel where one writes memory the other reads (codegen/chain_memory.h):
// the two inputs overlap, so the first chain's output (in the first input's buffer, as an
// in-place reuse) overlaps the second chain's input.
codegen::TraceLaunch OneKernelLaunch(codegen_test::LaunchMaker& maker, const FuseTrace& trace) {
  codegen::TraceLaunch launch = maker.Make(trace);
  launch.inputs.at(1).address = launch.inputs.at(0).address + 256;
  for (codegen::BoundTensor& out : launch.outputs) out.address = launch.inputs.at(0).address;
  return launch;
}

TEST(SharedHandoverSlots, OneKernelOfBothChainsRunsFromOneSlot) {
  codegen_test::LaunchMaker maker({{1, 2048}, {2, 4096}});
  const FuseTrace trace = codegen_test::ops::TwoSoftmaxes();
  const codegen::TracePlan plan = codegen::PlanTrace(OneKernelLaunch(maker, trace));
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels[0].chain, -1);
  EXPECT_TRUE(plan.kernels[0].shared_handover);
  EXPECT_EQ(plan.kernels[0].shared_bytes, 4096 * 4);
  EXPECT_TRUE(plan.scratch.empty());
}

TEST(SharedHandoverSlots, ReusedSlotsShareOneOffsetInTheSource) {
  codegen_test::LaunchMaker maker({{1, 2048}, {2, 4096}});
  const FuseTrace trace = codegen_test::ops::TwoSoftmaxes();
  const codegen::TracePlan plan = codegen::PlanTrace(OneKernelLaunch(maker, trace));
  const std::string source = codegen::GenerateKernel(trace, plan.kernels.at(0)).source;
  // Four shared pointers, all at the one slot's offset.
  size_t at_zero = 0, pointers = 0;
  for (size_t p = source.find("* sh"); p != std::string::npos; p = source.find("* sh", p + 1)) {
    ++pointers;
    const size_t eol = source.find('\n', p);
    if (source.substr(p, eol - p).find("(ember_smem + 0)") != std::string::npos) ++at_zero;
  }
  EXPECT_EQ(pointers, 4u) << source;
  EXPECT_EQ(at_zero, 4u) << source;
}

}  // namespace
}  // namespace ember

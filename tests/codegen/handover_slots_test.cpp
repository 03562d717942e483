// Note [Shared handover slots] (codegen/handover.h): a row kernel's shared arrays are reused
// once their last reader has run, so independent reduce chains in one trace need the shared
// memory of one chain.
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

TEST(SharedHandoverSlots, OneSoftmaxTakesTwoSlots) {
  const FuseTrace trace = codegen_test::ops::Softmax();
  const auto all =
      codegen::FindHandovers(trace, codegen::KernelMode::kRow, true, AllFullButReduced(trace));
  const auto shared = Shared(all);
  ASSERT_EQ(shared.size(), 2u);
  // The scaled input is still read by the block that writes exp's values: two arrays.
  EXPECT_NE(shared[0]->slot, shared[1]->slot);
  EXPECT_EQ(codegen::SharedSlotBytes(all), 8);
}

TEST(SharedHandoverSlots, ASecondIndependentChainReusesTheFirstsSlots) {
  const FuseTrace trace = codegen_test::ops::TwoSoftmaxes();
  ASSERT_EQ(trace.reduces.size(), 4u) << "the fuser took both softmaxes";
  const auto all =
      codegen::FindHandovers(trace, codegen::KernelMode::kRow, true, AllFullButReduced(trace));
  const auto shared = Shared(all);
  ASSERT_EQ(shared.size(), 4u);
  // Written in block order: t1, e1, t2, e2. t2 is written after t1's last reader, e2 after
  // e1's; t1 and e1 meet in one block.
  EXPECT_EQ(shared[0]->slot, shared[2]->slot);
  EXPECT_EQ(shared[1]->slot, shared[3]->slot);
  EXPECT_NE(shared[0]->slot, shared[1]->slot);
  for (const Handover* h : shared) EXPECT_LT(h->block, h->last_read);
  EXPECT_EQ(codegen::SharedSlotBytes(all), 8);
}

TEST(SharedHandoverSlots, TheTwoChainsRunFromSharedMemoryNotScratch) {
  codegen_test::LaunchMaker maker({{1, 2048}, {2, 4096}});
  // 48 KiB a block (DeviceLimits' default): the four handovers' 64 KiB a row would not fit;
  // two slots' 32 KiB do.
  const codegen::TracePlan plan = codegen::PlanTrace(maker.Make(codegen_test::ops::TwoSoftmaxes()));
  ASSERT_EQ(plan.kernels.size(), 1u);
  const codegen::KernelSpec& k = plan.kernels[0];
  EXPECT_EQ(k.mode, codegen::KernelMode::kRow);
  EXPECT_TRUE(k.shared_handover);
  EXPECT_EQ(k.shared_bytes, 4096 * 4 * 2);
  EXPECT_TRUE(plan.scratch.empty());
}

TEST(SharedHandoverSlots, ReusedSlotsShareOneOffsetInTheSource) {
  codegen_test::LaunchMaker maker({{1, 2048}, {2, 4096}});
  const FuseTrace trace = codegen_test::ops::TwoSoftmaxes();
  const codegen::TraceLaunch launch = maker.Make(trace);
  const codegen::TracePlan plan = codegen::PlanTrace(launch);
  const std::string source = codegen::GenerateKernel(trace, plan.kernels.at(0)).source;
  // Two distinct offsets among four shared pointers: "(ember_smem + 0)" and the next slot's.
  size_t at_zero = 0, pointers = 0;
  for (size_t p = source.find("* sh"); p != std::string::npos; p = source.find("* sh", p + 1)) {
    ++pointers;
    const size_t eol = source.find('\n', p);
    if (source.substr(p, eol - p).find("(ember_smem + 0)") != std::string::npos) ++at_zero;
  }
  EXPECT_EQ(pointers, 4u) << source;
  EXPECT_EQ(at_zero, 2u) << source;
}

}  // namespace
}  // namespace ember

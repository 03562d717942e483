// The sync tail (Note [Sync tail], engine/stream/explorer.cpp), end to end on the CPU: by
// default burn's rule (what a sync's search leaves uncovered runs unfused, as one leaf of the
// same plan); with [fusion.search] search_sync_tail, ember's re-search of that tail. The
// program is issue 45's, tried as a user would: `u = v * 3` (v: [16]), then
// `w = ((x.SumDim(1) * 2) + 1).Sqrt()` (x: [64, 32]), then a sync.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>

#include "engine/core/config.h"
#include "tests/api/api_test_util.h"

namespace ember {
namespace {

struct Launched {
  uint64_t launches = 0;
  uint64_t fused = 0;
};

// Runs the program once on a fresh stream of a fresh CPU device under `search_sync_tail`, checks
// its values, and returns what the device launched for it.
Launched RunTailProgram(bool search_sync_tail) {
  const Config before = GlobalConfig();
  Config config = before;
  config.search_sync_tail = search_sync_tail;
  SetGlobalConfigForTesting(config);
  ReleaseDevice(Device::Cpu());
  Launched launched;
  testing::OnFreshStream([&] {
    // From the host: no creation op joins the segment.
    Tensor v = Tensor::FromVector(std::vector<float>(16, 2.0f), {16});
    Tensor x = Tensor::FromVector(std::vector<float>(64 * 32, 0.5f), {64, 32});
    Sync();
    const Stats start = GetStats();
    Tensor u = v * 3.0;
    Tensor w = ((x.SumDim(1) * 2.0) + 1.0).Sqrt();
    Sync();
    const Stats end = GetStats();
    launched = {.launches = end.launches - start.launches,
                .fused = end.fused_executions - start.fused_executions};
    for (float value : u.ToVector<float>()) EXPECT_EQ(value, 6.0f);
    for (float value : w.ToVector<float>()) EXPECT_EQ(value, std::sqrt(33.0f));
  });
  SetGlobalConfigForTesting(before);
  ReleaseDevice(Device::Cpu());
  return launched;
}

TEST(SyncTail, ByDefaultTheUncoveredTailRunsUnfusedAsBurnRunsIt) {
  const Launched l = RunTailProgram(false);
  EXPECT_EQ(l.launches, 5u) << "burn runs the five ops one by one";
  EXPECT_EQ(l.fused, 0u);
}

TEST(SyncTail, TheResearchSettingFusesTheTail) {
  const Launched l = RunTailProgram(true);
  EXPECT_EQ(l.launches, 3u) << "v * 3 and the sum alone, then *2, +1, sqrt fused";
  EXPECT_EQ(l.fused, 1u);
}

}  // namespace
}  // namespace ember

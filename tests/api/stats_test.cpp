// ember::GetStats counts what the engine did on a device.
#include <gtest/gtest.h>

#include "tests/api/api_test_util.h"

namespace ember {
namespace {

TEST(Stats, ExplorationsThenCacheHitsForARepeatedProgram) {
  testing::OnFreshStream([] {
    const Stats before = GetStats();
    auto run = [] {
      Tensor a = Tensor::Full({8, 8}, 1.0, DType::kF32);
      Tensor b = (a * 2.0).Exp();
      (void)std::move(b).ToVector<float>();
    };
    // The first run's segments start at a fresh head; from the second run on, each segment
    // starts with the Drop of the previous run's `a`, so runs 2 and 3 queue the same segments.
    run();
    EXPECT_GT(GetStats().explorations, before.explorations);
    EXPECT_GT(GetStats().plans, before.plans);
    run();
    const Stats first = GetStats();
    run();
    const Stats second = GetStats();
    // The CPU interprets fused traces: it compiles nothing (the GPU's count is
    // tests/gpu/kernel_stats_gpu_test.cpp).
    EXPECT_EQ(second.kernels_compiled, 0u);
    EXPECT_EQ(second.compile_ms, 0.0);
    EXPECT_EQ(second.explorations, first.explorations) << "the same program explored again";
    EXPECT_GT(second.cache_hits, first.cache_hits);
    EXPECT_EQ(second.plans, first.plans);
  });
}

TEST(Stats, AReleasedDeviceStartsFromZero) {
  testing::OnFreshStream([] {
    (void)Tensor::Ones({2}, DType::kF32).ToVector<float>();
    ReleaseDevice(Device::Cpu());
    const Stats none = GetStats();
    EXPECT_EQ(none.explorations, 0u);
    EXPECT_EQ(none.cache_hits, 0u);
    EXPECT_EQ(none.plans, 0u);
    (void)Tensor::Ones({2}, DType::kF32).ToVector<float>();
    EXPECT_GT(GetStats().explorations, 0u);
  });
}

TEST(Stats, TheStartIsBrokenDown) {
  testing::OnFreshStream([] {
    ReleaseDevice(Device::Cpu());
    EXPECT_EQ(GetStats().start.engine_ms, 0.0) << "a device never started has no start";
    (void)Tensor::Ones({2}, DType::kF32).ToVector<float>();
    const StartBreakdown start = GetStats().start;
    EXPECT_GT(start.engine_ms, 0.0);
    EXPECT_GE(start.engine_ms, start.context_ms);
    EXPECT_GE(start.engine_ms, start.plan_db_open_ms);
    // The CPU loads no library and no kernel: only a GPU reports those parts.
    EXPECT_EQ(start.libraries_ms, 0.0);
    EXPECT_EQ(start.kernel_load_ms, 0.0);
    EXPECT_EQ(start.kernel_source_ms, 0.0);
    // The start is the engine's: later work does not change it.
    (void)Tensor::Ones({3}, DType::kF32).ToVector<float>();
    EXPECT_EQ(GetStats().start.engine_ms, start.engine_ms);
  });
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

TEST(Stats, UnfusedOperationsAndLaunchesCountWhatRan) {
  testing::OnFreshStream([] {
    const Stats before = GetStats();
    Tensor a = Tensor::Full({4}, 1.0, DType::kF32);  // Full: a launch
    Tensor b = std::move(a) + 1.0;                   // AddScalar: a launch
    (void)std::move(b).ToVector<float>();
    const Stats after = GetStats();
    EXPECT_EQ(after.unfused_operations - before.unfused_operations, 2u);
    EXPECT_EQ(after.launches - before.launches, 2u);
    EXPECT_EQ(after.fused_executions, before.fused_executions) << "no fuser exists yet";
  });
}

}  // namespace
}  // namespace ember

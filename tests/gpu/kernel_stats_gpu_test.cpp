// ember::Stats' kernel counters (kernels_compiled, compile_ms): the first run of a fused program
// on the GPU compiles its kernels, and running it again (cache hits, the same shapes) compiles
// nothing. On the CPU both stay zero (tests/api/stats_test.cpp). And the launch-record counters
// (engine/runtime/cuda/backend/launch_records.h): a repeated program, fused or not, replays its
// records from the second round on and records nothing new.
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>

#include "tests/gpu/gpu_test_util.h"
#include "tools/lab/seed_programs.h"

namespace ember::gpu {
namespace {

// One round of the seed program on fresh [rows, cols] inputs, read back (a sync).
void RunSeed(Device device, int64_t rows, int64_t cols) {
  Tensor a = Tensor::RandomUniform({rows, cols}, DType::kF32, device);
  Tensor b = Tensor::RandomUniform({rows, cols}, DType::kF32, device);
  Tensor c = Tensor::RandomUniform({rows, cols}, DType::kF32, device);
  (void)lab::SeedExpression(a, b, c, 2.0).ToVector<float>();
}

TEST(KernelStatsGpu, ASteadyStateCompilesNothing) {
  EMBER_CUDA_OR_SKIP(cuda);
  if (SuiteOnCpu()) GTEST_SKIP() << "the CPU compiles no kernels";
  UseFusion(true);
  auto run = [&] { RunSeed(cuda, 64, 64); };
  run();
  const Stats first = GetStats(cuda);
  EXPECT_GE(first.kernels_compiled, 1u);
  EXPECT_GT(first.compile_ms, 0.0);
  for (int i = 0; i < 3; ++i) run();
  const Stats later = GetStats(cuda);
  EXPECT_GT(later.cache_hits, first.cache_hits);
  EXPECT_EQ(later.kernels_compiled, first.kernels_compiled);
  EXPECT_EQ(later.compile_ms, first.compile_ms);
}

// Fused and unfused alike. Unfused is the case that used to grow without bound: each unfused op
// built a trace with its own tensor ids, so every call missed the compiled-kernel map, generated
// its source again and kept one more entry (docs/BENCHMARKS.md, issue 41).
TEST(KernelStatsGpu, ARepeatedProgramReplaysItsLaunchRecords) {
  EMBER_CUDA_OR_SKIP(cuda);
  if (SuiteOnCpu()) GTEST_SKIP() << "the CPU keeps no launch records";
  for (bool fused : {true, false}) {
    SCOPED_TRACE(fused ? "fused" : "unfused");
    UseFusion(fused);
    auto run = [&] { RunSeed(cuda, 48, 80); };
    run();
    run();  // a fused program's first round explores: its plans run from the second on
    const Stats warm = GetStats(cuda);
    EXPECT_GE(warm.launch_record_misses, 1u);
    for (int i = 0; i < 4; ++i) run();
    const Stats later = GetStats(cuda);
    EXPECT_EQ(later.launch_record_misses, warm.launch_record_misses);
    EXPECT_GT(later.launch_record_hits, warm.launch_record_hits);
    EXPECT_EQ(later.kernels_compiled, warm.kernels_compiled);
  }
}

}  // namespace
}  // namespace ember::gpu

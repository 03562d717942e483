// ember::Stats' kernel counters (kernels_compiled, compile_ms): the first run of a fused program
// on the GPU compiles its kernels, and running it again (cache hits, the same shapes) compiles
// nothing. On the CPU both stay zero (tests/api/stats_test.cpp).
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>

#include "tests/gpu/gpu_test_util.h"
#include "tools/lab/seed_programs.h"

namespace ember::gpu {
namespace {

TEST(KernelStatsGpu, ASteadyStateCompilesNothing) {
  EMBER_CUDA_OR_SKIP(cuda);
  if (SuiteOnCpu()) GTEST_SKIP() << "the CPU compiles no kernels";
  UseFusion(true);
  auto run = [&] {
    Tensor a = Tensor::RandomUniform({64, 64}, DType::kF32, cuda);
    Tensor b = Tensor::RandomUniform({64, 64}, DType::kF32, cuda);
    Tensor c = Tensor::RandomUniform({64, 64}, DType::kF32, cuda);
    (void)lab::SeedExpression(a, b, c, 2.0).ToVector<float>();
  };
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

}  // namespace
}  // namespace ember::gpu

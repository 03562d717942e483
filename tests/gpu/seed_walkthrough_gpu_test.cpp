// The seed's walk-through (tests/end_to_end/seed_walkthrough_test.cpp) on Device::Cuda(0): the
// same fusion decisions on the GPU as on the CPU (the search does not depend on the backend:
// score 630 for (a*b + c*2).exp(), 7390 for five independent chains), cache hits for another
// scalar and for 32x32, a new exploration for 64x32 (relative shape [1,2]), and the same
// values as the CPU within Note [GPU tolerances] (gpu_test_util.h). The programs are
// ember-lab's (tools/lab/seed_programs.h).
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "engine/core/config.h"
#include "engine/core/log.h"
#include "tests/api/api_test_util.h"
#include "tests/gpu/gpu_test_util.h"
#include "tools/lab/seed_programs.h"

namespace ember::gpu {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

class SeedWalkthroughGpu : public ::testing::Test {
 protected:
  void SetUp() override { UseFusion(true); }
  void TearDown() override { UseFusion(true); }
};

// |got - want| within a few f32 ulps of want: the GPU's expf is not glibc's.
void ExpectCloseF32(const std::vector<float>& got, const std::vector<float>& want,
                    const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::abs(double{got[i]} - want[i]) <= 4e-7 * std::abs(double{want[i]})) continue;
    if (bad++ < 5) ADD_FAILURE() << what << "[" << i << "]: gpu " << got[i] << ", want " << want[i];
  }
  EXPECT_EQ(bad, 0u) << what;
}

// Runs (a * b + c * s).exp() on `cuda` with inputs drawn there (RandomUniform) and returns the
// engine's log lines; checks the values against host f32 math and against the CPU backend on
// the same inputs.
std::vector<std::string> RunSeedExpression(Device cuda, std::vector<int64_t> shape, double s) {
  std::vector<std::string> lines;
  std::vector<float> va, vb, vc, out;
  {
    ScopedLogCapture capture(LogLevel::kFull);
    Tensor a = Tensor::RandomUniform(shape, DType::kF32, cuda);
    Tensor b = Tensor::RandomUniform(shape, DType::kF32, cuda);
    Tensor c = Tensor::RandomUniform(shape, DType::kF32, cuda);
    out = lab::SeedExpression(a, b, c, s).ToVector<float>();
    va = a.ToVector<float>();
    vb = b.ToVector<float>();
    vc = c.ToVector<float>();
    lines = capture.lines();
  }
  std::vector<float> expected(out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    expected[i] = std::exp(va[i] * vb[i] + vc[i] * static_cast<float>(s));
  }
  ExpectCloseF32(out, expected, "seed expression");
  // The CPU backend on the GPU's inputs (outside the capture: its own log lines stay out).
  Tensor ca = Tensor::FromVector<float>(va, shape), cb = Tensor::FromVector<float>(vb, shape),
         cc = Tensor::FromVector<float>(vc, shape);
  const ProgramOutput cpu = Read(lab::SeedExpression(ca, cb, cc, s), "cpu");
  const ProgramOutput gpu{"gpu", DType::kF32, shape, out, {}};
  EXPECT_EQ(Compare(cpu, gpu), "");
  return lines;
}

TEST_F(SeedWalkthroughGpu, ReuseAcrossScalarsAndShapesAndReexploreForNewRelativeShape) {
  EMBER_CUDA_OR_SKIP(cuda);
  ember::testing::OnFreshStream([cuda] {
    Seed(cuda, InputSeed());
    // 1. Explored at the sync: one fused ElementWise block of four ops, score 630.
    const auto first = RunSeedExpression(cuda, {64, 64}, 2.0);
    EXPECT_THAT(first, Contains(HasSubstr("op 0 NumericFloat::Mul → new block (total: 1)")));
    EXPECT_THAT(first, Contains(HasSubstr("op 1 NumericFloat::MulScalar → new block (total: 2)")));
    EXPECT_THAT(first, Contains(HasSubstr("op 2 NumericFloat::Add → accepted in 1/1 block(s)")));
    EXPECT_THAT(first, Contains(HasSubstr("op 3 Float::Exp → accepted in 1/1 block(s)")));
    EXPECT_THAT(first,
                Contains(HasSubstr("[plan] exploration completed: sync, 4/4 ops optimized")));
    EXPECT_THAT(first, Contains(AllOf(HasSubstr("▸ fused ElementWise (score=630, 4 ops)"),
                                      HasSubstr("NumericFloat::Mul"))));
    EXPECT_THAT(first, Contains("    1 launch(es)"));

    // 2-4. The same program, another scalar, another square shape: cache hits, no exploration.
    for (auto [shape, s] : {std::pair{std::vector<int64_t>{64, 64}, 2.0},
                            std::pair{std::vector<int64_t>{64, 64}, 3.0},
                            std::pair{std::vector<int64_t>{32, 32}, 2.0}}) {
      const Stats before = GetStats(cuda);
      const auto lines = RunSeedExpression(cuda, shape, s);
      EXPECT_THAT(lines, Contains(AllOf(HasSubstr("[plan] cache hit"),
                                        HasSubstr("(sync, segment has 4 ops)"))));
      EXPECT_THAT(lines, Not(Contains(HasSubstr("exploration completed: sync"))));
      EXPECT_THAT(lines, Contains(HasSubstr("▸ fused ElementWise (score=630, 4 ops)")));
      const Stats after = GetStats(cuda);
      EXPECT_EQ(after.explorations, before.explorations);
      EXPECT_GT(after.cache_hits, before.cache_hits);
    }

    // 5. 64x32 has relative shape [1,2]: a new exploration with the same decision.
    const Stats before = GetStats(cuda);
    const auto other = RunSeedExpression(cuda, {64, 32}, 2.0);
    EXPECT_THAT(other,
                Contains(HasSubstr("[plan] exploration completed: sync, 4/4 ops optimized")));
    EXPECT_THAT(other, Contains(HasSubstr("▸ fused ElementWise (score=630, 4 ops)")));
    EXPECT_GT(GetStats(cuda).explorations, before.explorations);
  });
}

TEST_F(SeedWalkthroughGpu, FiveIndependentChainsBecomeOneFortyOpKernel) {
  EMBER_CUDA_OR_SKIP(cuda);
  ember::testing::OnFreshStream([cuda] {
    HostData data(7390);
    std::vector<Tensor> inputs;
    std::vector<float> host[5];
    for (int k = 0; k < 5; ++k) {
      host[k] = data.Uniform(256 * 256, -1, 1);
      inputs.push_back(Tensor::FromVector<float>(host[k], {256, 256}, cuda));
    }
    Sync(cuda);
    const Stats before = GetStats(cuda);

    std::vector<std::string> lines;
    std::vector<Tensor> outputs;
    {
      ScopedLogCapture capture(LogLevel::kFull);
      for (int k = 0; k < 5; ++k) outputs.push_back(lab::UnrelatedChain(inputs[k]));
      Sync(cuda);
      lines = capture.lines();
    }
    EXPECT_THAT(lines, Contains(HasSubstr("op 32 NumericFloat::MulScalar → new block (total: 5)")));
    EXPECT_THAT(lines, Contains(HasSubstr("op 39 NumericFloat::Abs → accepted in 1/5 block(s)")));
    EXPECT_THAT(lines,
                Contains(HasSubstr("[plan] exploration completed: sync, 40/40 ops optimized")));
    EXPECT_THAT(lines, Contains(HasSubstr("▸ fused ElementWise (score=7390, 40 ops)")));
    const Stats after = GetStats(cuda);
    EXPECT_EQ(after.fused_executions - before.fused_executions, 1u);
    EXPECT_EQ(after.launches - before.launches, 1u);

    for (int k = 0; k < 5; ++k) {
      const ProgramOutput gpu = Read(outputs[k], "chain " + std::to_string(k));
      const ProgramOutput cpu =
          Read(lab::UnrelatedChain(Tensor::FromVector<float>(host[k], {256, 256})), "cpu");
      EXPECT_EQ(Compare(cpu, gpu), "") << "chain " << k;
    }
  });
}

TEST_F(SeedWalkthroughGpu, LoneAddScalarScoresZeroAndRunsAsASingleOp) {
  EMBER_CUDA_OR_SKIP(cuda);
  ember::testing::OnFreshStream([cuda] {
    HostData data(1);
    const std::vector<float> vx = data.Uniform(64 * 64, -1, 1);
    Tensor x = Tensor::FromVector<float>(vx, {64, 64}, cuda);
    Sync(cuda);
    std::vector<float> y;
    std::vector<std::string> lines;
    {
      ScopedLogCapture capture(LogLevel::kFull);
      y = (x + 1.0).ToVector<float>();
      lines = capture.lines();
    }
    EXPECT_THAT(lines, Contains(HasSubstr("▸ un-fused (1 op)")));
    EXPECT_THAT(lines, Not(Contains(HasSubstr("▸ fused"))));
    for (size_t i = 0; i < vx.size(); i += 101) EXPECT_EQ(y[i], vx[i] + 1.0f) << i;
  });
}

TEST_F(SeedWalkthroughGpu, ExplorationCapRunsMissesUnfusedAndKeepsTheStoreSmall) {
  EMBER_CUDA_OR_SKIP(cuda);
  Config config = GlobalConfig();
  config.max_explorations = 2;
  SetGlobalConfigForTesting(config);
  ReleaseDevice(cuda);
  ember::testing::OnFreshStream([cuda] {
    // Rank 1, 2, 3, ...: every step has a new relative shape, so every segment misses.
    std::optional<uint64_t> plans_at_cap;
    for (size_t rank = 1; rank <= 6; ++rank) {
      Tensor a = Tensor::Full(std::vector<int64_t>(rank, 3), 1.0, DType::kF32, cuda);
      const std::vector<float> v = ((a * 2.0) + 1.0).Exp().ToVector<float>();
      EXPECT_NEAR(v[0], std::exp(3.0f), 4e-7 * std::exp(3.0f));
      const Stats stats = GetStats(cuda);
      EXPECT_LE(stats.explorations, 2u) << "rank " << rank;
      if (stats.explorations == 2 && !plans_at_cap) plans_at_cap = stats.plans;
      if (plans_at_cap) {
        EXPECT_EQ(stats.plans, *plans_at_cap) << "rank " << rank;
      }
    }
    EXPECT_EQ(GetStats(cuda).explorations, 2u);
    EXPECT_TRUE(plans_at_cap.has_value());
  });
}

}  // namespace
}  // namespace ember::gpu

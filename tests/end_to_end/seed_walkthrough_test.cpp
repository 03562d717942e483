// The seed's walk-through (ember-lab's `reuse` and `unrelated`, tools/lab/scenario_seed.cpp;
// README.md, "ember-lab"), end to end with the real fusers and the CPU backend, checked on the
// engine's own log lines (level full) and on the values. The programs are ember-lab's
// (tools/lab/seed_programs.h).
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "engine/core/config.h"
#include "engine/core/log.h"
#include "engine/runtime/cpu/vector_math.h"
#include "tests/api/api_test_util.h"
#include "tools/lab/seed_programs.h"

namespace ember {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

// The CPU backend's exp, sin and tanh on one value (vector_math.h: SLEEF's, within 1 ULP of
// glibc's), so that the host computes what the engine computes, bit for bit.
float HostFn(cpu::VectorFn fn, float x) {
  float y = 0;
  cpu::ApplyVectorFn(fn, &x, &y, 1);
  return y;
}
float HostExp(float x) { return HostFn(cpu::VectorFn::kExp, x); }

// Runs (a * b + c * s).exp() on fresh random inputs of `shape` and returns the log lines;
// checks the values against the same f32 math on the host.
std::vector<std::string> RunSeedExpression(std::vector<int64_t> shape, double s) {
  ScopedLogCapture capture(LogLevel::kFull);
  Tensor a = Tensor::RandomUniform(shape, DType::kF32);
  Tensor b = Tensor::RandomUniform(shape, DType::kF32);
  Tensor c = Tensor::RandomUniform(shape, DType::kF32);
  const std::vector<float> out = lab::SeedExpression(a, b, c, s).ToVector<float>();
  const std::vector<float> va = a.ToVector<float>(), vb = b.ToVector<float>(),
                           vc = c.ToVector<float>();
  EXPECT_EQ(out.size(), va.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const float expected = HostExp(va[i] * vb[i] + vc[i] * static_cast<float>(s));
    EXPECT_EQ(out[i], expected) << "element " << i;
  }
  return capture.lines();
}

TEST(SeedWalkthrough, ReuseAcrossScalarsAndShapesAndReexploreForNewRelativeShape) {
  testing::OnFreshStream([] {
    // 1. Explored at the sync: one fused ElementWise block of four ops, score 630.
    const auto first = RunSeedExpression({64, 64}, 2.0);
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
      const auto lines = RunSeedExpression(shape, s);
      EXPECT_THAT(lines, Contains(AllOf(HasSubstr("[plan] cache hit"),
                                        HasSubstr("(sync, segment has 4 ops)"))));
      EXPECT_THAT(lines, Not(Contains(HasSubstr("exploration completed: sync"))));
      EXPECT_THAT(lines, Contains(HasSubstr("▸ fused ElementWise (score=630, 4 ops)")));
    }

    // 5. 64x32 has relative shape [1,2]: a new exploration with the same decision.
    const auto other = RunSeedExpression({64, 32}, 2.0);
    EXPECT_THAT(other,
                Contains(HasSubstr("[plan] exploration completed: sync, 4/4 ops optimized")));
    EXPECT_THAT(other, Contains(HasSubstr("▸ fused ElementWise (score=630, 4 ops)")));
  });
}

TEST(SeedWalkthrough, FiveIndependentChainsBecomeOneFortyOpKernel) {
  testing::OnFreshStream([] {
    std::vector<Tensor> inputs;
    for (int k = 0; k < 5; ++k) inputs.push_back(Tensor::RandomUniform({256, 256}, DType::kF32));
    std::vector<float> host[5];
    for (int k = 0; k < 5; ++k) host[k] = inputs[k].ToVector<float>();
    const Stats before = GetStats();

    ScopedLogCapture capture(LogLevel::kFull);
    std::vector<Tensor> outputs;
    for (int k = 0; k < 5; ++k) outputs.push_back(lab::UnrelatedChain(inputs[k]));
    Sync();
    const auto lines = capture.lines();
    EXPECT_THAT(lines, Contains(HasSubstr("op 32 NumericFloat::MulScalar → new block (total: 5)")));
    EXPECT_THAT(lines, Contains(HasSubstr("op 39 NumericFloat::Abs → accepted in 1/5 block(s)")));
    EXPECT_THAT(lines,
                Contains(HasSubstr("[plan] exploration completed: sync, 40/40 ops optimized")));
    EXPECT_THAT(lines, Contains(HasSubstr("▸ fused ElementWise (score=7390, 40 ops)")));
    const Stats after = GetStats();
    EXPECT_EQ(after.fused_executions - before.fused_executions, 1u);
    EXPECT_EQ(after.launches - before.launches, 1u);

    for (int k = 0; k < 5; ++k) {
      const std::vector<float> got = outputs[k].ToVector<float>();
      for (size_t i = 0; i < got.size(); i += 997) {
        float v = host[k][i] * 0.5f;
        v = std::abs(HostFn(cpu::VectorFn::kSin,
                            HostFn(cpu::VectorFn::kTanh, HostExp(v + 1.0f) - 0.25f) * 3.0f));
        EXPECT_EQ(got[i], v);
      }
    }
  });
}

TEST(SeedWalkthrough, LoneAddScalarScoresZeroAndRunsAsASingleOp) {
  testing::OnFreshStream([] {
    Tensor x = Tensor::RandomUniform({64, 64}, DType::kF32);
    Sync();
    ScopedLogCapture capture(LogLevel::kFull);
    const std::vector<float> y = (x + 1.0).ToVector<float>();
    const auto lines = capture.lines();
    EXPECT_THAT(lines, Contains(HasSubstr("▸ un-fused (1 op)")));
    EXPECT_THAT(lines, Not(Contains(HasSubstr("▸ fused"))));
    const std::vector<float> vx = x.ToVector<float>();
    EXPECT_EQ(y[5], vx[5] + 1.0f);
  });
}

TEST(SeedWalkthrough, ExplorationCapRunsMissesUnfusedAndKeepsTheStoreSmall) {
  const Config before = GlobalConfig();
  Config config = before;
  config.max_explorations = 2;
  SetGlobalConfigForTesting(config);
  ReleaseDevice(Device::Cpu());
  testing::OnFreshStream([] {
    // Rank 1, 2, 3, ...: every step has a new relative shape, so every segment misses.
    std::optional<uint64_t> plans_at_cap;
    for (size_t rank = 1; rank <= 6; ++rank) {
      Tensor a = Tensor::Full(std::vector<int64_t>(rank, 3), 1.0, DType::kF32);
      const std::vector<float> v = ((a * 2.0) + 1.0).Exp().ToVector<float>();
      EXPECT_EQ(v[0], HostExp(3.0f));
      const Stats stats = GetStats();
      EXPECT_LE(stats.explorations, 2u) << "rank " << rank;
      if (stats.explorations == 2 && !plans_at_cap) plans_at_cap = stats.plans;
      if (plans_at_cap) {
        EXPECT_EQ(stats.plans, *plans_at_cap) << "rank " << rank;
      }
    }
    EXPECT_EQ(GetStats().explorations, 2u);
    EXPECT_TRUE(plans_at_cap.has_value());
  });
  SetGlobalConfigForTesting(before);
  ReleaseDevice(Device::Cpu());
}

}  // namespace
}  // namespace ember

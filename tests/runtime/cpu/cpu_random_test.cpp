// Random ops of the CPU backend: reproducibility by seed, statistics, bounds, dtypes.
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include <gtest/gtest.h>

#include "engine/runtime/cpu/random.h"
#include "tests/runtime/cpu/cpu_test_util.h"

namespace ember {
namespace {

using testing::Harness;
using V = std::vector<double>;

Distribution Uniform(double a, double b) { return {Distribution::Kind::kUniform, a, b}; }
Distribution Normal(double mean, double std) { return {Distribution::Kind::kNormal, mean, std}; }

struct Moments {
  double mean, std;
};
Moments MomentsOf(const V& v) {
  double sum = 0, sq = 0;
  for (double x : v) sum += x;
  const double mean = sum / v.size();
  for (double x : v) sq += (x - mean) * (x - mean);
  return {mean, std::sqrt(sq / v.size())};
}

V Draw(Harness& h, const Distribution& d, const Shape& shape, DType dtype = DType::kF32) {
  return h.Run(ir::Random(h.Output(shape, dtype), d));
}

TEST(CpuRandom, SameSeedSameSequence) {
  Harness a, b;
  a.backend().Seed(1234);
  b.backend().Seed(1234);
  EXPECT_EQ(Draw(a, Uniform(0, 1), {1000}), Draw(b, Uniform(0, 1), {1000}));
  EXPECT_EQ(Draw(a, Normal(0, 1), {999}), Draw(b, Normal(0, 1), {999}));
}

TEST(CpuRandom, ConsecutiveOpsAndDifferentSeedsDiffer) {
  Harness h;
  h.backend().Seed(7);
  const V first = Draw(h, Uniform(0, 1), {100});
  const V second = Draw(h, Uniform(0, 1), {100});
  EXPECT_NE(first, second);
  h.backend().Seed(7);
  EXPECT_EQ(Draw(h, Uniform(0, 1), {100}), first);  // reseeding restarts the stream
  h.backend().Seed(8);
  EXPECT_NE(Draw(h, Uniform(0, 1), {100}), first);
}

TEST(CpuRandom, PinnedValuesForSeedZero) {
  // The stream is defined by Note [CPU random streams]; these values must never change.
  const uint64_t key = [] {
    cpu::RandomGenerator g(0);
    return g.key();
  }();
  const double u0 = static_cast<double>(cpu::RandomGenerator::Bits(key, 0) >> 11) * 0x1p-53;
  Harness h;
  h.backend().Seed(0);
  const V got = Draw(h, Uniform(0, 1), {3});
  EXPECT_EQ(got[0], static_cast<double>(static_cast<float>(u0)));
  // Normal: Box-Muller on draws 3 and 4 (the uniform op above reserved 0..2).
  const V normal = Draw(h, Normal(1, 2), {2});
  const double u1 = 1.0 - static_cast<double>(cpu::RandomGenerator::Bits(key, 3) >> 11) * 0x1p-53;
  const double u2 = static_cast<double>(cpu::RandomGenerator::Bits(key, 4) >> 11) * 0x1p-53;
  const double radius = std::sqrt(-2.0 * std::log(u1)), angle = 2.0 * std::numbers::pi * u2;
  EXPECT_EQ(normal[0], static_cast<double>(static_cast<float>(1 + 2 * (radius * std::cos(angle)))));
  EXPECT_EQ(normal[1], static_cast<double>(static_cast<float>(1 + 2 * (radius * std::sin(angle)))));
  // SplitMix64 of the first counter: a published reference value of the mixer.
  EXPECT_EQ(cpu::RandomGenerator::Bits(0, 0), 0xe220a8397b1dcdafull);
}

TEST(CpuRandom, UniformStaysInRangeWithTheRightMoments) {
  Harness h;
  h.backend().Seed(99);
  const V v = Draw(h, Uniform(-2, 3), {200000});
  for (double x : v) ASSERT_TRUE(x >= -2 && x < 3) << x;
  const Moments m = MomentsOf(v);
  EXPECT_NEAR(m.mean, 0.5, 0.02);
  EXPECT_NEAR(m.std, 5 / std::sqrt(12.0), 0.02);
}

TEST(CpuRandom, NormalHasTheRightMoments) {
  Harness h;
  h.backend().Seed(5);
  const V v = Draw(h, Normal(3, 2), {200001});
  const Moments m = MomentsOf(v);
  EXPECT_NEAR(m.mean, 3, 0.02);
  EXPECT_NEAR(m.std, 2, 0.02);
  int within_one = 0;
  for (double x : v) within_one += std::fabs(x - 3) < 2;
  EXPECT_NEAR(within_one / 200001.0, 0.6827, 0.005);
}

TEST(CpuRandom, HalfTypesRespectTheExcludedUpperBound) {
  for (DType dtype : {DType::kF16, DType::kBF16}) {
    Harness h;
    h.backend().Seed(3);
    const V v = Draw(h, Uniform(0, 1), {100000}, dtype);
    double max = 0;
    for (double x : v) {
      ASSERT_TRUE(x >= 0 && x < 1) << x;
      max = std::max(max, x);
    }
    EXPECT_GT(max, 0.99);
    EXPECT_NEAR(MomentsOf(v).mean, 0.5, 0.02);
  }
}

TEST(CpuRandom, IntegerDtypesTakeTheFloor) {
  Harness h;
  h.backend().Seed(11);
  const V v = Draw(h, Uniform(0, 10), {50000}, DType::kI32);
  std::vector<int> counts(10, 0);
  for (double x : v) {
    ASSERT_TRUE(x >= 0 && x <= 9 && x == std::floor(x)) << x;
    ++counts[static_cast<int>(x)];
  }
  for (int c : counts) EXPECT_NEAR(c, 5000, 400);
  const V bits = Draw(h, Uniform(0, 2), {10000}, DType::kBool);
  double ones = 0;
  for (double x : bits) ones += x;
  EXPECT_NEAR(ones / 10000, 0.5, 0.03);
}

TEST(CpuRandom, SameValuesWithOneOrManyThreads) {
  Harness one(1), many(4);
  one.backend().Seed(42);
  many.backend().Seed(42);
  EXPECT_EQ(Draw(one, Normal(0, 1), {100001}), Draw(many, Normal(0, 1), {100001}));
  EXPECT_EQ(Draw(one, Uniform(-1, 1), {70000}, DType::kBF16),
            Draw(many, Uniform(-1, 1), {70000}, DType::kBF16));
}

}  // namespace
}  // namespace ember

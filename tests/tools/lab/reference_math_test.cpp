// ember-lab's double-precision reference (tools/lab/reference_math.h): the check that keeps a
// wrong fusion from passing must itself notice wrong values.
#include "tools/lab/reference_math.h"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace ember::lab {
namespace {

TEST(ReferenceMath, MaxRelErrorIsRelativeToTheLargestReferenceValue) {
  EXPECT_EQ(MaxRelError({1.0f, -2.0f, 4.0f}, {1.0, -2.0, 4.0}), 0.0);
  EXPECT_DOUBLE_EQ(MaxRelError({1.0f, -2.0f, 4.5f}, {1.0, -2.0, 4.0}), 0.5 / 4.0);
  EXPECT_DOUBLE_EQ(MaxRelError({1.25f, -2.0f, 4.0f}, {1.0, -2.0, 4.0}), 0.25 / 4.0);
  // An all-zero reference divides by 1e-6, not by zero.
  EXPECT_DOUBLE_EQ(MaxRelError({0.0f, 1e-6f}, {0.0, 0.0}), double{1e-6f} / 1e-6);
}

TEST(ReferenceMath, NaNOrAMissingValueIsAnInfiniteError) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(MaxRelError({1.0f, std::nanf("")}, {1.0, 1.0}), inf);
  EXPECT_EQ(MaxRelError({std::nanf(""), 1.0f}, {1.0, 1.0}), inf);
  EXPECT_EQ(MaxRelError({1.0f}, {1.0, 1.0}), inf);
  EXPECT_GT(MaxRelError({1.0f, 1.5f}, {1.0, 1.0}), kF32Tolerance);
}

TEST(ReferenceMath, MatMulTransposeAndBroadcastAdd) {
  Matrix a(2, 3);
  a.v = {1, 2, 3, 4, 5, 6};
  Matrix b(3, 2);
  b.v = {7, 8, 9, 10, 11, 12};
  const Matrix c = MatMul(a, b);
  EXPECT_EQ(c.v, (std::vector<double>{58, 64, 139, 154}));
  EXPECT_EQ(Transpose(a).v, (std::vector<double>{1, 4, 2, 5, 3, 6}));
  Matrix row(1, 3);
  row.v = {10, 20, 30};
  EXPECT_EQ(Add(a, row).v, (std::vector<double>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(SumRows(a).v, (std::vector<double>{5, 7, 9}));
}

TEST(ReferenceMath, SoftmaxLayerNormAndGelu) {
  Matrix x(2, 4);
  x.v = {1, 2, 3, 4, -1, 0, 1, 100};
  const Matrix p = Softmax(x);
  for (int64_t r = 0; r < 2; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < 4; ++c) sum += p.at(r, c);
    EXPECT_NEAR(sum, 1.0, 1e-15);
  }
  EXPECT_NEAR(p.at(0, 3) / p.at(0, 2), std::exp(1.0), 1e-12);
  Matrix ones(1, 4, 1.0), zeros(1, 4, 0.0);
  const Matrix n = LayerNorm(x, ones, zeros, 0.0);
  double mean = 0, var = 0;
  for (int64_t c = 0; c < 4; ++c) mean += n.at(0, c) / 4;
  for (int64_t c = 0; c < 4; ++c) var += (n.at(0, c) - mean) * (n.at(0, c) - mean) / 4;
  EXPECT_NEAR(mean, 0.0, 1e-12);
  EXPECT_NEAR(var, 1.0, 1e-12);
  Matrix g(1, 3);
  g.v = {0.0, 1.0, -1.0};
  const Matrix out = Gelu(g);
  EXPECT_EQ(out.v[0], 0.0);
  EXPECT_NEAR(out.v[1], 0.8413447460685429, 1e-12);
  EXPECT_NEAR(out.v[2], -0.15865525393145707, 1e-12);
}

TEST(ReferenceMath, HostRandomIsDeterministicAndInRange) {
  HostRandom a(7), b(7), c(8);
  const Matrix ma = a.UniformMatrix(4, 4, -1.0, 1.0);
  EXPECT_EQ(ma.v, b.UniformMatrix(4, 4, -1.0, 1.0).v);
  EXPECT_NE(ma.v, c.UniformMatrix(4, 4, -1.0, 1.0).v);
  for (double v : ma.v) {
    EXPECT_GE(v, -1.0);
    EXPECT_LT(v, 1.0);
    EXPECT_EQ(v, static_cast<double>(static_cast<float>(v))) << "not exactly an f32";
  }
}

}  // namespace
}  // namespace ember::lab

// Every Tensor method once, end to end through the queue and the CPU backend, against
// hand-computed values, and the edge cases of a few (a seed orders with the random ops queued
// before it, a slice step that does not divide its range). (The kernels themselves are tested
// in depth in tests/runtime.)
#include <gtest/gtest.h>

#include <cmath>

#include "tests/api/api_test_util.h"

namespace ember {
namespace {

using F = std::vector<float>;
using I = std::vector<int64_t>;
using B = std::vector<bool>;
using testing::OnFreshStream;

Tensor M23() { return Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}); }

void ExpectNear(const F& got, const F& want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

TEST(Values, Creation) {
  EXPECT_EQ(Tensor::Zeros({2}, DType::kF32).ToVector<float>(), (F{0, 0}));
  EXPECT_EQ(Tensor::Ones({2}, DType::kI64).ToVector<int64_t>(), (I{1, 1}));
  EXPECT_EQ(Tensor::Full({3}, 7, DType::kI32).ToVector<int32_t>(), (std::vector<int32_t>{7, 7, 7}));
  EXPECT_EQ(Tensor::Full({2}, 1, DType::kBool).ToVector<bool>(), (B{true, true}));
  EXPECT_EQ(Tensor::FromVector<bool>({true, false}, {2}).ToVector<bool>(), (B{true, false}));
  ExpectNear(Tensor::FromVector({0.1f, 1.5f}, {2}, DType::kBF16).ToVector<float>(), {0.1f, 1.5f},
             1e-3f);
  ExpectNear(Tensor::FromVector({0.1f, 1.5f}, {2}, DType::kF16).ToVector<float>(), {0.1f, 1.5f},
             1e-4f);
  Tensor s = Tensor::FromVector<float>({42}, {});
  EXPECT_TRUE(s.Shape().empty());
  EXPECT_EQ(s.ToVector<float>(), (F{42}));
}

TEST(Values, RandomIsSeededAndInRange) {
  Seed(Device::Cpu(), 7);
  F a = Tensor::RandomUniform({1000}, DType::kF32, Device::Cpu(), 2.0, 3.0).ToVector<float>();
  Seed(Device::Cpu(), 7);
  F b = Tensor::RandomUniform({1000}, DType::kF32, Device::Cpu(), 2.0, 3.0).ToVector<float>();
  EXPECT_EQ(a, b);
  for (float v : a) {
    EXPECT_GE(v, 2.0f);
    EXPECT_LT(v, 3.0f);
  }
  F n = Tensor::RandomNormal({4000}, DType::kF32, Device::Cpu(), 5.0, 0.5).ToVector<float>();
  double mean = 0;
  for (float v : n) mean += v;
  EXPECT_NEAR(mean / 4000.0, 5.0, 0.05);
}

TEST(Values, Arithmetic) {
  Tensor a = M23();
  Tensor row = Tensor::FromVector<float>({10, 20, 30}, {3});
  ExpectNear((a + row).ToVector<float>(), {11, 22, 33, 14, 25, 36});
  ExpectNear((a - 1.0).ToVector<float>(), {0, 1, 2, 3, 4, 5});
  ExpectNear((a * a).ToVector<float>(), {1, 4, 9, 16, 25, 36});
  ExpectNear((a / 2.0).ToVector<float>(), {0.5, 1, 1.5, 2, 2.5, 3});
  ExpectNear((row / a).ToVector<float>(), {10, 10, 10, 2.5, 4, 5});
  ExpectNear((1.0 - a).ToVector<float>(), {0, -1, -2, -3, -4, -5});
  ExpectNear((6.0 / a).ToVector<float>(), {6, 3, 2, 1.5, 1.2, 1});
  ExpectNear((2.0 * a + 1.0).ToVector<float>(), {3, 5, 7, 9, 11, 13});
  ExpectNear((-a).ToVector<float>(), {-1, -2, -3, -4, -5, -6});
  ExpectNear(a.Rem(4.0).ToVector<float>(), {1, 2, 3, 0, 1, 2});
  ExpectNear((a - 4.0).Rem(3.0).ToVector<float>(), {0, 1, 2, 0, 1, 2});
  Tensor i = Tensor::FromVector<int64_t>({7, -7}, {2});
  EXPECT_EQ((i / 2.0).ToVector<int64_t>(), (I{3, -3}));
  EXPECT_EQ((10.0 / Tensor::FromVector<int64_t>({3, 5}, {2})).ToVector<int64_t>(), (I{3, 2}));
  EXPECT_EQ(i.Rem(Tensor::FromVector<int64_t>({3, 3}, {2})).ToVector<int64_t>(), (I{1, 2}));
}

TEST(Values, MathFunctions) {
  Tensor x = Tensor::FromVector<float>({0.25f, 1.0f, 2.0f}, {3});
  auto each = [&](float (*f)(float)) {
    F out;
    for (float v : {0.25f, 1.0f, 2.0f}) out.push_back(f(v));
    return out;
  };
  ExpectNear(x.Exp().ToVector<float>(), each([](float v) { return std::exp(v); }));
  ExpectNear(x.Log().ToVector<float>(), each([](float v) { return std::log(v); }));
  ExpectNear(x.Log1p().ToVector<float>(), each([](float v) { return std::log1p(v); }));
  ExpectNear(x.Sqrt().ToVector<float>(), each([](float v) { return std::sqrt(v); }));
  ExpectNear(x.Recip().ToVector<float>(), each([](float v) { return 1.0f / v; }));
  ExpectNear(x.Sin().ToVector<float>(), each([](float v) { return std::sin(v); }));
  ExpectNear(x.Cos().ToVector<float>(), each([](float v) { return std::cos(v); }));
  ExpectNear(x.Tanh().ToVector<float>(), each([](float v) { return std::tanh(v); }));
  ExpectNear(x.Erf().ToVector<float>(), each([](float v) { return std::erf(v); }));
  ExpectNear(x.Powf(2.0).ToVector<float>(), each([](float v) { return v * v; }));
  ExpectNear(x.Powf(x).ToVector<float>(), each([](float v) { return std::pow(v, v); }));
  ExpectNear((x - 1.0).Abs().ToVector<float>(), {0.75f, 0.0f, 1.0f});
  ExpectNear(x.Clamp(0.5, 1.5).ToVector<float>(), {0.5f, 1.0f, 1.5f});
  EXPECT_EQ(Tensor::FromVector<int32_t>({-3, 4}, {2}).Abs().ToVector<int32_t>(),
            (std::vector<int32_t>{3, 4}));
}

TEST(Values, ClampOfI32WithBoundsPastItsRangeClipsAllOrNothing) {
  // The bounds were stored as i32 and wrapped: a bound of 2^40 read as 0.
  const Tensor x = Tensor::FromVector<int32_t>({-7, 3, INT32_MAX}, {3});
  const double big = 1099511627776.0;  // 2^40
  EXPECT_EQ(x.Clamp(-big, big).ToVector<int32_t>(), (std::vector<int32_t>{-7, 3, INT32_MAX}));
  EXPECT_EQ(x.Clamp(-big, 0).ToVector<int32_t>(), (std::vector<int32_t>{-7, 0, 0}));
  EXPECT_EQ(x.Clamp(big, big).ToVector<int32_t>(),
            (std::vector<int32_t>{INT32_MAX, INT32_MAX, INT32_MAX}));
  const Tensor y = Tensor::FromVector<int64_t>({-7, 3}, {2});
  EXPECT_EQ(y.Clamp(-big, 2).ToVector<int64_t>(), (std::vector<int64_t>{-7, 2}));
}

TEST(Values, ComparisonsAndMasks) {
  Tensor a = Tensor::FromVector<float>({1, 2, 3}, {3});
  Tensor b = Tensor::FromVector<float>({3, 2, 1}, {3});
  EXPECT_EQ(a.Equal(b).ToVector<bool>(), (B{false, true, false}));
  EXPECT_EQ(a.Equal(2.0).ToVector<bool>(), (B{false, true, false}));
  EXPECT_EQ(a.Lower(b).ToVector<bool>(), (B{true, false, false}));
  EXPECT_EQ(a.Lower(2.0).ToVector<bool>(), (B{true, false, false}));
  EXPECT_EQ(a.Greater(b).ToVector<bool>(), (B{false, false, true}));
  EXPECT_EQ(a.Greater(2.0).ToVector<bool>(), (B{false, false, true}));
  EXPECT_EQ(a.LowerEqual(b).ToVector<bool>(), (B{true, true, false}));
  EXPECT_EQ(a.LowerEqual(2.0).ToVector<bool>(), (B{true, true, false}));
  EXPECT_EQ(a.GreaterEqual(b).ToVector<bool>(), (B{false, true, true}));
  EXPECT_EQ(a.GreaterEqual(2.0).ToVector<bool>(), (B{false, true, true}));
  Tensor mask = a.Greater(1.5);
  ExpectNear(a.MaskFill(mask, -1.0).ToVector<float>(), {1, -1, -1});
  ExpectNear(a.MaskWhere(mask, b).ToVector<float>(), {1, 2, 1});
  EXPECT_EQ(mask.Equal(a.Lower(2.5)).ToVector<bool>(), (B{false, true, false}));
}

TEST(Values, BitwiseOps) {
  using I32 = std::vector<int32_t>;
  const Tensor a = Tensor::FromVector<int32_t>({12, -1, 5, INT32_MIN}, {4});
  const Tensor b = Tensor::FromVector<int32_t>({10, 3, -3, -1}, {4});
  EXPECT_EQ(a.BitwiseAnd(b).ToVector<int32_t>(), (I32{8, 3, 5, INT32_MIN}));
  EXPECT_EQ(a.BitwiseOr(b).ToVector<int32_t>(), (I32{14, -1, -3, -1}));
  EXPECT_EQ(a.BitwiseXor(b).ToVector<int32_t>(), (I32{6, -4, -8, INT32_MAX}));
  EXPECT_EQ(a.BitwiseNot().ToVector<int32_t>(), (I32{-13, 0, -6, INT32_MAX}));
  EXPECT_EQ(a.BitwiseAnd(6).ToVector<int32_t>(), (I32{4, 6, 4, 0}));
  EXPECT_EQ(a.BitwiseOr(INT32_MIN).ToVector<int32_t>(),
            (I32{INT32_MIN + 12, -1, INT32_MIN + 5, INT32_MIN}));
  EXPECT_EQ(a.BitwiseXor(-1).ToVector<int32_t>(), (I32{-13, 0, -6, INT32_MAX}));
  // Shifts: a broadcast row of amounts; past the width, 0 to the left and the sign fill to the
  // right (NumPy's int32 results).
  const Tensor amounts = Tensor::FromVector<int32_t>({1, 31, 32, -1}, {4});
  EXPECT_EQ(a.BitwiseLeftShift(amounts).ToVector<int32_t>(), (I32{24, INT32_MIN, 0, 0}));
  EXPECT_EQ(a.BitwiseRightShift(amounts).ToVector<int32_t>(), (I32{6, -1, 0, -1}));
  EXPECT_EQ(a.BitwiseLeftShift(3).ToVector<int32_t>(), (I32{96, -8, 40, 0}));
  EXPECT_EQ(a.BitwiseRightShift(1000).ToVector<int32_t>(), (I32{0, -1, 0, -1}));
  // An i64 mask past 2^53 keeps every bit (a double would round it).
  const int64_t mask = (int64_t{1} << 60) + 1;
  const Tensor c = Tensor::FromVector<int64_t>({-1, 2, INT64_MAX}, {3});
  EXPECT_EQ(c.BitwiseAnd(mask).ToVector<int64_t>(), (I{mask, 0, mask}));
  EXPECT_EQ(c.BitwiseLeftShift(63).ToVector<int64_t>(), (I{INT64_MIN, 0, INT64_MIN}));
  EXPECT_EQ(c.BitwiseRightShift(64).ToVector<int64_t>(), (I{-1, 0, 0}));
}

TEST(Values, Casts) {
  Tensor a = Tensor::FromVector<float>({-1.7f, 0.0f, 2.5f}, {3});
  EXPECT_EQ(a.Cast(DType::kI32).ToVector<int32_t>(), (std::vector<int32_t>{-1, 0, 2}));
  EXPECT_EQ(a.Cast(DType::kBool).ToVector<bool>(), (B{true, false, true}));
  ExpectNear(a.Cast(DType::kF16).Cast(DType::kF32).ToVector<float>(), {-1.7f, 0, 2.5f}, 1e-3f);
  ExpectNear(a.Greater(0.0).Cast(DType::kF32).ToVector<float>(), {0, 0, 1});
  Tensor same = a.Cast(DType::kF32);
  EXPECT_EQ(same.node(), a.node()) << "a cast to the same dtype is the same tensor";
}

TEST(Values, ShapesAndMovement) {
  Tensor a = M23();
  EXPECT_EQ(a.Reshape({3, -1}).Shape(), (std::vector<int64_t>{3, 2}));
  ExpectNear(a.Reshape({3, 2}).ToVector<float>(), {1, 2, 3, 4, 5, 6});
  ExpectNear(a.SwapDims(0, 1).ToVector<float>(), {1, 4, 2, 5, 3, 6});
  ExpectNear(a.Permute({1, 0}).ToVector<float>(), {1, 4, 2, 5, 3, 6});
  ExpectNear(a.Slice({Slice{1}, Slice{0, 3, 2}}).ToVector<float>(), {4, 6});
  ExpectNear(a.Slice({Slice{0, std::nullopt, 1}, Slice{0, std::nullopt, -1}}).ToVector<float>(),
             {3, 2, 1, 6, 5, 4});
  ExpectNear(Tensor::FromVector<float>({1, 2}, {2, 1}).Expand({2, 3}).ToVector<float>(),
             {1, 1, 1, 2, 2, 2});
  ExpectNear(Tensor::FromVector<float>({1, 2}, {2}).Expand({2, 2}).ToVector<float>(), {1, 2, 1, 2});
  Tensor idx = Tensor::FromVector<int64_t>({2, 0, 1, 1, 0, 2}, {2, 3});
  ExpectNear(a.Gather(1, idx).ToVector<float>(), {3, 1, 2, 5, 4, 6});
  ExpectNear(a.Select(1, Tensor::FromVector<int32_t>({2, 0}, {2})).ToVector<float>(), {3, 1, 6, 4});
  Tensor c = Cat({a, Tensor::FromVector<float>({7, 8, 9}, {1, 3})}, 0);
  EXPECT_EQ(c.Shape(), (std::vector<int64_t>{3, 3}));
  ExpectNear(c.ToVector<float>(), {1, 2, 3, 4, 5, 6, 7, 8, 9});
  ExpectNear(Cat({a, a}, -1).ToVector<float>(), {1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6});
}

TEST(Values, Reductions) {
  Tensor a = M23();
  ExpectNear(a.SumDim(0).ToVector<float>(), {5, 7, 9});
  EXPECT_EQ(a.SumDim(1).Shape(), (std::vector<int64_t>{2, 1}));
  ExpectNear(a.SumDim(-1).ToVector<float>(), {6, 15});
  ExpectNear(a.MeanDim(1).ToVector<float>(), {2, 5});
  ExpectNear(a.ProdDim(1).ToVector<float>(), {6, 120});
  ExpectNear(a.MaxDim(0).ToVector<float>(), {4, 5, 6});
  ExpectNear(a.MinDim(1).ToVector<float>(), {1, 4});
  EXPECT_EQ(a.ArgMax(1).ToVector<int64_t>(), (I{2, 2}));
  EXPECT_EQ(a.ArgMin(0).ToVector<int64_t>(), (I{0, 0, 0}));
  EXPECT_EQ(a.ArgMax(1).Dtype(), DType::kI64);
  EXPECT_EQ(a.Sum().Shape(), (std::vector<int64_t>{1}));
  ExpectNear(a.Sum().ToVector<float>(), {21});
  ExpectNear(a.Mean().ToVector<float>(), {3.5});
  EXPECT_EQ(Tensor::FromVector<int32_t>({1, 2, 4}, {3}).Mean().ToVector<int32_t>(),
            (std::vector<int32_t>{2}));
}

TEST(Values, MatmulWithBroadcastBatch) {
  Tensor a = M23();                                                  // [2,3]
  Tensor b = Tensor::FromVector<float>({1, 0, 0, 1, 1, 1}, {3, 2});  // [3,2]
  ExpectNear(a.Matmul(b).ToVector<float>(), {4, 5, 10, 11});
  Tensor batch = Cat({b.Reshape({1, 3, 2}), (b * 2.0).Reshape({1, 3, 2})}, 0);  // [2,3,2]
  Tensor out = a.Matmul(batch);
  EXPECT_EQ(out.Shape(), (std::vector<int64_t>{2, 2, 2}));
  ExpectNear(out.ToVector<float>(), {4, 5, 10, 11, 8, 10, 20, 22});
  Tensor ia = Tensor::FromVector<int64_t>({1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(ia.Matmul(ia).ToVector<int64_t>(), (I{7, 10, 15, 22}));
}

TEST(Values, LongProgramWithoutSyncComputesEveryStep) {
  testing::OnFreshStream([] {
    Tensor x = Tensor::Zeros({8}, DType::kF32);
    for (int i = 0; i < 3000; ++i) x = x + 1.0;
    EXPECT_EQ(x.ToVector<float>()[0], 3000.0f);
  });
}

TEST(Seed, SeedOrdersWithQueuedRandomOps) {
  OnFreshStream([] {
    Seed(Device::Cpu(), 7);
    Tensor a = Tensor::RandomUniform({256}, DType::kF32);
    Seed(Device::Cpu(), 7);  // a was queued under seed 7 and must run with it
    Tensor b = Tensor::RandomUniform({256}, DType::kF32);
    EXPECT_EQ(a.ToVector<float>(), b.ToVector<float>());
    Seed(Device::Cpu(), 8);
    Tensor c = Tensor::RandomUniform({256}, DType::kF32);
    EXPECT_NE(a.ToVector<float>(), c.ToVector<float>());
  });
}

TEST(SliceValues, NegativeStepThatDoesNotDivideTheRange) {
  Tensor a = Tensor::FromVector<float>({0, 1, 2, 3, 4}, {5});
  EXPECT_EQ(a.Slice({Slice{0, 3, -2}}).ToVector<float>(), (std::vector<float>{2, 0}));
  EXPECT_EQ(a.Slice({Slice{-4, std::nullopt, -3}}).ToVector<float>(), (std::vector<float>{4, 1}));
}

}  // namespace
}  // namespace ember

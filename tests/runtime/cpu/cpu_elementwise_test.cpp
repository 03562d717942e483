// Arithmetic, math, clamp and mask kernels of the CPU backend.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "tests/runtime/cpu/cpu_test_util.h"

namespace ember {
namespace {

using testing::ExpectWithinOneUlp;
using testing::Harness;
using testing::RoundTo;
using testing::TestData;
using V = std::vector<double>;
using I = std::vector<int64_t>;

constexpr DType kFloatTypes[] = {DType::kF32, DType::kF16, DType::kBF16};

// Relative and absolute tolerance of a float dtype for one rounding of an f32 result.
struct Tolerance {
  double rel, abs;
};
Tolerance TolFor(DType dtype) {
  switch (dtype) {
    case DType::kF16: return {1.5e-3, 1e-4};
    case DType::kBF16: return {1e-2, 1e-3};
    default: return {3e-6, 1e-6};
  }
}

void ExpectNear(const V& got, const V& want, DType dtype, const char* what) {
  ASSERT_EQ(got.size(), want.size());
  const Tolerance tol = TolFor(dtype);
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " [" << i << "]";
      continue;
    }
    EXPECT_NEAR(got[i], want[i], tol.abs + tol.rel * std::fabs(want[i]))
        << what << " " << DTypeName(dtype) << " [" << i << "]";
  }
}

TEST(CpuElementwise, ArithmeticOnHandComputedValues) {
  Harness h;
  const TensorIr a = h.Input({2, 3}, DType::kF32, {1, 2, 3, 4, 5, 6});
  const TensorIr b = h.Input({2, 3}, DType::kF32, {2, 2, 2, -4, 0.5, 8});
  EXPECT_EQ(h.Run(ir::Binary(OpKind::kAdd, a, b, h.Output({2, 3}))), (V{3, 4, 5, 0, 5.5, 14}));
  EXPECT_EQ(h.Run(ir::Binary(OpKind::kSub, a, b, h.Output({2, 3}))), (V{-1, 0, 1, 8, 4.5, -2}));
  EXPECT_EQ(h.Run(ir::Binary(OpKind::kMul, a, b, h.Output({2, 3}))), (V{2, 4, 6, -16, 2.5, 48}));
  EXPECT_EQ(h.Run(ir::Binary(OpKind::kDiv, a, b, h.Output({2, 3}))),
            (V{0.5, 1, 1.5, -1, 10, 0.75}));
  EXPECT_EQ(h.Run(ir::Binary(OpKind::kPowf, a, b, h.Output({2, 3}))),
            (V{1, 4, 9, 1.0 / 256, std::sqrt(5.0f), 1679616}));
}

TEST(CpuElementwise, ScalarFormsOnEveryNumericDtype) {
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16, DType::kI32, DType::kI64}) {
    Harness h;
    const TensorIr a = h.Input({4}, dtype, {1, -2, 7, 0});
    const bool is_float = IsFloat(dtype);
    const ScalarIr three = is_float ? ScalarIr::Float(3.0) : ScalarIr::Int(3);
    EXPECT_EQ(h.Run(ir::Scalar(OpKind::kAddScalar, a, three, h.Output({4}, dtype))),
              (V{4, 1, 10, 3}));
    EXPECT_EQ(h.Run(ir::Scalar(OpKind::kSubScalar, a, three, h.Output({4}, dtype))),
              (V{-2, -5, 4, -3}));
    EXPECT_EQ(h.Run(ir::Scalar(OpKind::kMulScalar, a, three, h.Output({4}, dtype))),
              (V{3, -6, 21, 0}));
    const V div = h.Run(ir::Scalar(OpKind::kDivScalar, a, three, h.Output({4}, dtype)));
    if (is_float) {
      ExpectNear(div, V{1.0 / 3, -2.0 / 3, 7.0 / 3, 0}, dtype, "div");
    } else {
      EXPECT_EQ(div, (V{0, 0, 2, 0}));  // truncates toward zero
    }
    // Remainder takes the divisor's sign: -2 % 3 = 1.
    EXPECT_EQ(h.Run(ir::Scalar(OpKind::kRemScalar, a, three, h.Output({4}, dtype))),
              (V{1, 1, 1, 0}));
  }
}

TEST(CpuElementwise, IntegerDivisionTruncatesAndRemainderFollowsTheDivisor) {
  for (DType dtype : {DType::kI32, DType::kI64}) {
    Harness h;
    const TensorIr a = h.InputInts({6}, dtype, {7, -7, 7, -7, 0, 5});
    const TensorIr b = h.InputInts({6}, dtype, {2, 2, -2, -2, 3, 5});
    EXPECT_EQ(h.RunInts(ir::Binary(OpKind::kDiv, a, b, h.Output({6}, dtype))),
              (I{3, -3, -3, 3, 0, 1}));
    EXPECT_EQ(h.RunInts(ir::Binary(OpKind::kRem, a, b, h.Output({6}, dtype))),
              (I{1, 1, -1, -1, 0, 0}));
  }
}

TEST(CpuElementwise, IntegerDivisionOrRemainderByZeroGivesZero) {
  for (DType dtype : {DType::kI32, DType::kI64}) {
    Harness h;
    const TensorIr a = h.InputInts({3}, dtype, {7, -7, 0});
    const TensorIr zeros = h.InputInts({3}, dtype, {0, 0, 0});
    EXPECT_EQ(h.RunInts(ir::Binary(OpKind::kDiv, a, zeros, h.Output({3}, dtype))), (I{0, 0, 0}));
    EXPECT_EQ(h.RunInts(ir::Binary(OpKind::kRem, a, zeros, h.Output({3}, dtype))), (I{0, 0, 0}));
    EXPECT_EQ(h.RunInts(ir::Scalar(OpKind::kDivScalar, a, ScalarIr::Int(0), h.Output({3}, dtype))),
              (I{0, 0, 0}));
    EXPECT_EQ(h.RunInts(ir::Scalar(OpKind::kRemScalar, a, ScalarIr::Int(0), h.Output({3}, dtype))),
              (I{0, 0, 0}));
  }
}

TEST(CpuElementwise, IntegerOverflowWrapsWithoutTrapping) {
  Harness h;
  constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
  const TensorIr a = h.InputInts({3}, DType::kI64, {kMin64, kMax64, kMin64});
  const TensorIr b = h.InputInts({3}, DType::kI64, {-1, 1, -1});
  EXPECT_EQ(h.RunInts(ir::Binary(OpKind::kDiv, a, b, h.Output({3}, DType::kI64))),
            (I{kMin64, kMax64, kMin64}));
  EXPECT_EQ(h.RunInts(ir::Binary(OpKind::kRem, a, b, h.Output({3}, DType::kI64))), (I{0, 0, 0}));
  EXPECT_EQ(h.RunInts(ir::Binary(OpKind::kAdd, a, b, h.Output({3}, DType::kI64))),
            (I{kMax64, kMin64, kMax64}));
  EXPECT_EQ(h.RunInts(ir::Unary(OpKind::kNeg, a, h.Output({3}, DType::kI64))),
            (I{kMin64, -kMax64, kMin64}));
  const TensorIr c = h.InputInts({2}, DType::kI32, {2147483647, -2147483647 - 1});
  EXPECT_EQ(
      h.RunInts(ir::Scalar(OpKind::kAddScalar, c, ScalarIr::Int(1), h.Output({2}, DType::kI32))),
      (I{-2147483647 - 1, -2147483647}));
  EXPECT_EQ(
      h.RunInts(ir::Scalar(OpKind::kDivScalar, c, ScalarIr::Int(-1), h.Output({2}, DType::kI32))),
      (I{-2147483647, -2147483647 - 1}));
}

TEST(CpuElementwise, FloatRemainderTakesTheDivisorsSign) {
  Harness h;
  const TensorIr a = h.Input({4}, DType::kF32, {5.5, -5.5, 5.5, -5.5});
  const TensorIr b = h.Input({4}, DType::kF32, {2, 2, -2, -2});
  EXPECT_EQ(h.Run(ir::Binary(OpKind::kRem, a, b, h.Output({4}))), (V{1.5, 0.5, -0.5, -1.5}));
}

TEST(CpuElementwise, AbsAndNegOnEveryNumericDtype) {
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16, DType::kI32, DType::kI64}) {
    Harness h;
    const TensorIr a = h.Input({3}, dtype, {-3, 0, 2});
    EXPECT_EQ(h.Run(ir::Unary(OpKind::kAbs, a, h.Output({3}, dtype))), (V{3, 0, 2}));
    EXPECT_EQ(h.Run(ir::Unary(OpKind::kNeg, a, h.Output({3}, dtype))), (V{3, 0, -2}));
  }
}

// The transcendental ops are SLEEF's (vector_math.h): within 1 ULP of glibc's.
TEST(CpuElementwise, MathOpsOnHandComputedValues) {
  Harness h;
  const TensorIr a = h.Input({2}, DType::kF32, {0, 1});
  const TensorIr b = h.Input({2}, DType::kF32, {4, 0.25});
  ExpectWithinOneUlp(h.Run(ir::Unary(OpKind::kExp, a, h.Output({2}))), V{1, std::exp(1.0f)},
                     "kExp");
  ExpectWithinOneUlp(h.Run(ir::Unary(OpKind::kLog, b, h.Output({2}))),
                     V{std::log(4.0f), std::log(0.25f)}, "kLog");
  ExpectWithinOneUlp(h.Run(ir::Unary(OpKind::kLog1p, a, h.Output({2}))), V{0, std::log(2.0f)},
                     "kLog1p");
  EXPECT_EQ(h.Run(ir::Unary(OpKind::kSqrt, b, h.Output({2}))), (V{2, 0.5}));
  EXPECT_EQ(h.Run(ir::Unary(OpKind::kRecip, b, h.Output({2}))), (V{0.25, 4}));
  ExpectWithinOneUlp(h.Run(ir::Unary(OpKind::kSin, a, h.Output({2}))), V{0, std::sin(1.0f)},
                     "kSin");
  ExpectWithinOneUlp(h.Run(ir::Unary(OpKind::kCos, a, h.Output({2}))), V{1, std::cos(1.0f)},
                     "kCos");
  ExpectWithinOneUlp(h.Run(ir::Unary(OpKind::kTanh, a, h.Output({2}))), V{0, std::tanh(1.0f)},
                     "kTanh");
  ExpectWithinOneUlp(h.Run(ir::Unary(OpKind::kErf, a, h.Output({2}))), V{0, std::erf(1.0f)},
                     "kErf");
  EXPECT_EQ(h.Run(ir::Scalar(OpKind::kPowfScalar, b, ScalarIr::Float(0.5), h.Output({2}))),
            (V{2, 0.5}));
  // IEEE special values pass through.
  const TensorIr z = h.Input({2}, DType::kF32, {0, -1});
  const V logs = h.Run(ir::Unary(OpKind::kLog, z, h.Output({2})));
  EXPECT_EQ(logs[0], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(logs[1]));
  EXPECT_TRUE(std::isinf(h.Run(ir::Unary(OpKind::kRecip, z, h.Output({2})))[0]));
}

struct MathCase {
  OpKind kind;
  double lo, hi;
  std::function<double(double)> reference;
};

TEST(CpuElementwise, UnaryMathMatchesDoubleReferenceForEveryFloatDtype) {
  const std::vector<MathCase> cases = {
      {OpKind::kExp, -8, 8, [](double x) { return std::exp(x); }},
      {OpKind::kLog, 1e-3, 100, [](double x) { return std::log(x); }},
      {OpKind::kLog1p, -0.9, 100, [](double x) { return std::log1p(x); }},
      {OpKind::kSqrt, 0, 1000, [](double x) { return std::sqrt(x); }},
      {OpKind::kRecip, 0.01, 100, [](double x) { return 1.0 / x; }},
      {OpKind::kSin, -6, 6, [](double x) { return std::sin(x); }},
      {OpKind::kCos, -6, 6, [](double x) { return std::cos(x); }},
      {OpKind::kTanh, -5, 5, [](double x) { return std::tanh(x); }},
      {OpKind::kErf, -3, 3, [](double x) { return std::erf(x); }},
      {OpKind::kAbs, -50, 50, [](double x) { return std::fabs(x); }},
      {OpKind::kNeg, -50, 50, [](double x) { return -x; }},
  };
  for (DType dtype : kFloatTypes) {
    for (const MathCase& c : cases) {
      Harness h;
      const V data = TestData(3001, c.lo, c.hi, static_cast<uint64_t>(c.kind));
      const TensorIr x = h.Input({3001}, dtype, data);
      V want(data.size());
      for (size_t i = 0; i < data.size(); ++i) {
        want[i] = RoundTo(c.reference(RoundTo(data[i], dtype)), dtype);
      }
      ExpectNear(h.Run(ir::Unary(c.kind, x, h.Output({3001}, dtype))), want, dtype,
                 std::string(OpKindName(c.kind)).c_str());
    }
  }
}

TEST(CpuElementwise, BinaryMathMatchesDoubleReferenceForEveryFloatDtype) {
  struct BinaryCase {
    OpKind kind;
    std::function<double(double, double)> reference;
  };
  const std::vector<BinaryCase> cases = {
      {OpKind::kAdd, [](double a, double b) { return a + b; }},
      {OpKind::kSub, [](double a, double b) { return a - b; }},
      {OpKind::kMul, [](double a, double b) { return a * b; }},
      {OpKind::kDiv, [](double a, double b) { return a / b; }},
      {OpKind::kPowf, [](double a, double b) { return std::pow(a, b); }},
  };
  for (DType dtype : kFloatTypes) {
    for (const BinaryCase& c : cases) {
      Harness h;
      const V a = TestData(2500, 0.1, 4, 7), b = TestData(2500, 0.5, 3, 8);
      const TensorIr ta = h.Input({50, 50}, dtype, a), tb = h.Input({50, 50}, dtype, b);
      V want(a.size());
      for (size_t i = 0; i < a.size(); ++i) {
        want[i] = RoundTo(c.reference(RoundTo(a[i], dtype), RoundTo(b[i], dtype)), dtype);
      }
      ExpectNear(h.Run(ir::Binary(c.kind, ta, tb, h.Output({50, 50}, dtype))), want, dtype,
                 std::string(OpKindName(c.kind)).c_str());
    }
  }
}

TEST(CpuElementwise, BroadcastsBetweenInputsNumpyStyle) {
  Harness h;
  const TensorIr col = h.Input({2, 1}, DType::kF32, {10, 20});
  const TensorIr row = h.Input({3}, DType::kF32, {1, 2, 3});
  EXPECT_EQ(h.Run(ir::Binary(OpKind::kAdd, col, row, h.Output({2, 3}))),
            (V{11, 12, 13, 21, 22, 23}));
  EXPECT_EQ(h.Run(ir::Binary(OpKind::kSub, row, col, h.Output({2, 3}))),
            (V{-9, -8, -7, -19, -18, -17}));
  const TensorIr one = h.Input({1}, DType::kI64, {5});
  const TensorIr m = h.Input({2, 2, 2}, DType::kI64, {1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_EQ(h.Run(ir::Binary(OpKind::kMul, one, m, h.Output({2, 2, 2}, DType::kI64))),
            (V{5, 10, 15, 20, 25, 30, 35, 40}));
}

TEST(CpuElementwise, StridedViewsAsInputs) {
  Harness h;
  // x = [[0,1,2],[3,4,5]]; its transpose is [[0,3],[1,4],[2,5]].
  const TensorIr x = h.Input({2, 3}, DType::kF32, {0, 1, 2, 3, 4, 5});
  const TensorIr xt = h.Exec(ir::SwapDims(x, 0, 1, h.Output({3, 2})));
  const TensorIr y = h.Input({3, 2}, DType::kF32, {10, 20, 30, 40, 50, 60});
  EXPECT_EQ(h.Run(ir::Binary(OpKind::kAdd, xt, y, h.Output({3, 2}))), (V{10, 23, 31, 44, 52, 65}));
  // Reverse the columns with a negative-step slice: [[2,1,0],[5,4,3]].
  const TensorIr rev = h.Exec(
      ir::SliceOp(x, {Slice{0, std::nullopt, 1}, Slice{0, std::nullopt, -1}}, h.Output({2, 3})));
  EXPECT_EQ(h.Run(ir::Binary(OpKind::kMul, rev, x, h.Output({2, 3}))), (V{0, 1, 0, 15, 16, 15}));
  // An expanded column plus a permuted tensor.
  const TensorIr c = h.Input({3, 1}, DType::kF32, {100, 200, 300});
  const TensorIr ce = h.Exec(ir::Unary(OpKind::kExpand, c, h.Output({3, 2})));
  EXPECT_EQ(h.Run(ir::Binary(OpKind::kAdd, ce, xt, h.Output({3, 2}))),
            (V{100, 103, 201, 204, 302, 305}));
  // A strided f16 input through a math op.
  const TensorIr hx = h.Input({2, 3}, DType::kF16, {0, 1, 4, 9, 16, 25});
  const TensorIr hxt = h.Exec(ir::Permute(hx, {1, 0}, h.Output({3, 2}, DType::kF16)));
  EXPECT_EQ(h.Run(ir::Unary(OpKind::kSqrt, hxt, h.Output({3, 2}, DType::kF16))),
            (V{0, 3, 1, 4, 2, 5}));
}

TEST(CpuElementwise, LargeBroadcastsAcrossTilesAndThreads) {
  // Bigger than a tile and a parallel chunk, with a broadcast row and a transposed input.
  Harness h(4);
  const int64_t rows = 300, cols = 257;
  const V a = TestData(rows * cols, -1, 1, 3), r = TestData(cols, -1, 1, 4);
  const TensorIr ta = h.Input({cols, rows}, DType::kF32, a);
  const TensorIr at = h.Exec(ir::SwapDims(ta, 0, 1, h.Output({rows, cols})));
  const TensorIr tr = h.Input({cols}, DType::kF32, r);
  const V got = h.Run(ir::Binary(OpKind::kMul, at, tr, h.Output({rows, cols})));
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      ASSERT_EQ(got[i * cols + j], static_cast<double>(static_cast<float>(a[j * rows + i]) *
                                                       static_cast<float>(r[j])));
    }
  }
}

TEST(CpuElementwise, ClampOnFloatsAndInts) {
  Harness h;
  const TensorIr f = h.Input({5}, DType::kF32, {-5, -1, 0, 1, 5});
  EXPECT_EQ(h.Run(ir::Clamp(f, ScalarIr::Float(-2), ScalarIr::Float(1.5), h.Output({5}))),
            (V{-2, -1, 0, 1, 1.5}));
  const TensorIr nan = h.Input({1}, DType::kF32, {std::nan("")});
  EXPECT_TRUE(
      std::isnan(h.Run(ir::Clamp(nan, ScalarIr::Float(0), ScalarIr::Float(1), h.Output({1})))[0]));
  const TensorIr i = h.Input({5}, DType::kI32, {-5, -1, 0, 1, 5});
  EXPECT_EQ(h.Run(ir::Clamp(i, ScalarIr::Int(-1), ScalarIr::Int(2), h.Output({5}, DType::kI32))),
            (V{-1, -1, 0, 1, 2}));
}

TEST(CpuElementwise, MaskWhereBroadcastsAllThreeInputs) {
  for (DType dtype : {DType::kF32, DType::kBF16, DType::kI64, DType::kBool}) {
    Harness h;
    const TensorIr t = h.Input({2, 3}, dtype, {1, 0, 1, 0, 1, 0});
    const TensorIr mask = h.Input({3}, DType::kBool, {1, 0, 1});
    const TensorIr value = h.Input({2, 1}, dtype, {0, 1});
    EXPECT_EQ(h.Run(ir::MaskWhere(t, mask, value, h.Output({2, 3}, dtype))), (V{0, 0, 0, 1, 1, 1}));
  }
  Harness h;
  const TensorIr t = h.Input({2, 2}, DType::kF32, {1, 2, 3, 4});
  const TensorIr mask = h.Input({2, 1}, DType::kBool, {0, 1});
  const TensorIr value = h.Input({2}, DType::kF32, {-1, -2});
  EXPECT_EQ(h.Run(ir::MaskWhere(t, mask, value, h.Output({2, 2}))), (V{1, 2, -1, -2}));
}

TEST(CpuElementwise, MaskFillWithScalar) {
  Harness h;
  const TensorIr t = h.Input({2, 2}, DType::kF16, {1, 2, 3, 4});
  const TensorIr mask = h.Input({2, 2}, DType::kBool, {1, 0, 0, 1});
  EXPECT_EQ(h.Run(ir::MaskFill(t, mask, ScalarIr::Float(-0.5), h.Output({2, 2}, DType::kF16))),
            (V{-0.5, 2, 3, -0.5}));
  const TensorIr ti = h.Input({3}, DType::kI32, {1, 2, 3});
  const TensorIr row = h.Input({1}, DType::kBool, {1});
  EXPECT_EQ(h.Run(ir::MaskFill(ti, row, ScalarIr::Int(9), h.Output({3}, DType::kI32))),
            (V{9, 9, 9}));
}

TEST(CpuElementwise, EmptyTensorsProduceEmptyOutputs) {
  Harness h;
  const TensorIr a = h.Input({0, 3}, DType::kF32, {});
  EXPECT_TRUE(h.Run(ir::Unary(OpKind::kExp, a, h.Output({0, 3}))).empty());
  EXPECT_TRUE(h.Run(ir::Binary(OpKind::kAdd, a, a, h.Output({0, 3}))).empty());
}

}  // namespace
}  // namespace ember

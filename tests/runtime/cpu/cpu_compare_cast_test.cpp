// Comparisons, casts and the creation ops (Zeros, Ones, Full) of the CPU backend.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "tests/runtime/cpu/cpu_test_util.h"

namespace ember {
namespace {

using testing::Harness;
using V = std::vector<double>;
using I = std::vector<int64_t>;

constexpr DType kAllTypes[] = {DType::kF32, DType::kF16, DType::kBF16,
                               DType::kI32, DType::kI64, DType::kBool};

TEST(CpuCompare, TensorTensorComparisonsGiveBool) {
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16, DType::kI32, DType::kI64}) {
    Harness h;
    const TensorIr a = h.Input({4}, dtype, {1, 2, 3, -4});
    const TensorIr b = h.Input({4}, dtype, {1, 3, 2, -4});
    auto run = [&](OpKind kind) {
      const TensorIr out = h.Output({4}, DType::kBool);
      const V values = h.Run(ir::Binary(kind, a, b, out));
      EXPECT_EQ(h.Handle(out).dtype, DType::kBool);
      return values;
    };
    EXPECT_EQ(run(OpKind::kEqual), (V{1, 0, 0, 1})) << DTypeName(dtype);
    EXPECT_EQ(run(OpKind::kLower), (V{0, 1, 0, 0}));
    EXPECT_EQ(run(OpKind::kGreater), (V{0, 0, 1, 0}));
    EXPECT_EQ(run(OpKind::kLowerEqual), (V{1, 1, 0, 1}));
    EXPECT_EQ(run(OpKind::kGreaterEqual), (V{1, 0, 1, 1}));
  }
}

TEST(CpuCompare, ElemFormsCompareWithAScalar) {
  Harness h;
  const TensorIr a = h.Input({3}, DType::kF32, {1, 2, 3});
  const ScalarIr two = ScalarIr::Float(2);
  auto run = [&](OpKind kind) {
    return h.Run(ir::Scalar(kind, a, two, h.Output({3}, DType::kBool)));
  };
  EXPECT_EQ(run(OpKind::kEqualElem), (V{0, 1, 0}));
  EXPECT_EQ(run(OpKind::kLowerElem), (V{1, 0, 0}));
  EXPECT_EQ(run(OpKind::kGreaterElem), (V{0, 0, 1}));
  EXPECT_EQ(run(OpKind::kLowerEqualElem), (V{1, 1, 0}));
  EXPECT_EQ(run(OpKind::kGreaterEqualElem), (V{0, 1, 1}));
  const TensorIr i = h.Input({3}, DType::kI64, {-1, 0, 1});
  EXPECT_EQ(
      h.Run(ir::Scalar(OpKind::kGreaterElem, i, ScalarIr::Int(0), h.Output({3}, DType::kBool))),
      (V{0, 0, 1}));
}

TEST(CpuCompare, NanComparesFalse) {
  Harness h;
  const TensorIr a = h.Input({2}, DType::kF32, {std::nan(""), 1});
  for (OpKind kind : {OpKind::kEqual, OpKind::kLower, OpKind::kGreater, OpKind::kLowerEqual,
                      OpKind::kGreaterEqual}) {
    EXPECT_EQ(h.Run(ir::Binary(kind, a, a, h.Output({2}, DType::kBool)))[0], 0) << OpKindName(kind);
  }
}

TEST(CpuCompare, BoolEqualityAndBroadcast) {
  Harness h;
  const TensorIr a = h.Input({2, 2}, DType::kBool, {1, 0, 1, 0});
  const TensorIr b = h.Input({2}, DType::kBool, {1, 1});
  EXPECT_EQ(h.Run(ir::Binary(OpKind::kEqual, a, b, h.Output({2, 2}, DType::kBool))),
            (V{1, 0, 1, 0}));
  EXPECT_EQ(h.Run(ir::Scalar(OpKind::kEqualElem, a, ScalarIr::Bool(false),
                             h.Output({2, 2}, DType::kBool))),
            (V{0, 1, 0, 1}));
}

TEST(CpuCast, BetweenEveryPairOfDtypesForSmallIntegers) {
  const V values = {0, 1, -3, 7};
  for (DType from : kAllTypes) {
    for (DType to : kAllTypes) {
      Harness h;
      const V in = from == DType::kBool ? V{0, 1, 1, 1} : values;
      const TensorIr x = h.Input({4}, from, in);
      V want = in;
      if (to == DType::kBool) {
        for (double& v : want) v = v != 0;
      }
      EXPECT_EQ(h.Run(ir::Unary(OpKind::kCast, x, h.Output({4}, to))), want)
          << DTypeName(from) << " -> " << DTypeName(to);
    }
  }
}

TEST(CpuCast, FloatToIntTruncatesSaturatesAndMapsNanToZero) {
  Harness h;
  const double inf = std::numeric_limits<double>::infinity();
  const TensorIr x =
      h.Input({8}, DType::kF32, {2.9, -2.9, std::nan(""), inf, -inf, 3e9, -3e9, 1e19});
  EXPECT_EQ(h.RunInts(ir::Unary(OpKind::kCast, x, h.Output({8}, DType::kI32))),
            (I{2, -2, 0, 2147483647, -2147483648LL, 2147483647, -2147483648LL, 2147483647}));
  EXPECT_EQ(h.RunInts(ir::Unary(OpKind::kCast, x, h.Output({8}, DType::kI64))),
            (I{2, -2, 0, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(),
               3000000000LL, -3000000000LL, std::numeric_limits<int64_t>::max()}));
  const TensorIr hx = h.Input({3}, DType::kF16, {-0.75, 65504, -inf});
  EXPECT_EQ(h.RunInts(ir::Unary(OpKind::kCast, hx, h.Output({3}, DType::kI32))),
            (I{0, 65504, -2147483648LL}));
}

TEST(CpuCast, ToBoolIsNonZeroAndNanIsTrue) {
  Harness h;
  const TensorIr x = h.Input({4}, DType::kF32, {0, -0.0, 0.25, std::nan("")});
  EXPECT_EQ(h.Run(ir::Unary(OpKind::kCast, x, h.Output({4}, DType::kBool))), (V{0, 0, 1, 1}));
  const TensorIr i = h.InputInts({3}, DType::kI64, {0, 1LL << 40, -1});
  EXPECT_EQ(h.Run(ir::Unary(OpKind::kCast, i, h.Output({3}, DType::kBool))), (V{0, 1, 1}));
}

TEST(CpuCast, NarrowingFloatsRoundToNearestEvenAndOverflowToInfinity) {
  Harness h;
  const TensorIr x = h.Input({4}, DType::kF32, {1e6, -1e6, 1.0 + 1.0 / 2048, 0.1});
  const V halves = h.Run(ir::Unary(OpKind::kCast, x, h.Output({4}, DType::kF16)));
  EXPECT_EQ(halves[0], std::numeric_limits<double>::infinity());
  EXPECT_EQ(halves[1], -std::numeric_limits<double>::infinity());
  EXPECT_EQ(halves[2], 1.0);  // tie to even
  EXPECT_EQ(halves[3], HalfToFloat(FloatToHalf(0.1f)));
  const V bf = h.Run(ir::Unary(OpKind::kCast, x, h.Output({4}, DType::kBF16)));
  EXPECT_EQ(bf[3], BFloat16ToFloat(FloatToBFloat16(0.1f)));
  // Widening is exact.
  const TensorIr b = h.Input({1}, DType::kBF16, {3.140625});
  EXPECT_EQ(h.Run(ir::Unary(OpKind::kCast, b, h.Output({1}, DType::kF32))), (V{3.140625}));
}

TEST(CpuCast, I64ToI32Wraps) {
  Harness h;
  const TensorIr x = h.InputInts({2}, DType::kI64, {(1LL << 32) + 5, -(1LL << 31) - 1});
  EXPECT_EQ(h.RunInts(ir::Unary(OpKind::kCast, x, h.Output({2}, DType::kI32))), (I{5, 2147483647}));
}

TEST(CpuCast, StridedInputAndSameDtypeSharesTheBuffer) {
  Harness h;
  const TensorIr x = h.Input({2, 2}, DType::kF32, {1.5, 2.5, 3.5, 4.5});
  const TensorIr xt = h.Exec(ir::Permute(x, {1, 0}, h.Output({2, 2})));
  EXPECT_EQ(h.RunInts(ir::Unary(OpKind::kCast, xt, h.Output({2, 2}, DType::kI32))),
            (I{1, 3, 2, 4}));
  const TensorIr same = h.Exec(ir::Unary(OpKind::kCast, x, h.Output({2, 2})));
  EXPECT_EQ(h.Handle(same).buffer, h.Handle(x).buffer);
}

TEST(CpuCreation, ZerosOnesAndFullForEveryDtype) {
  for (DType dtype : kAllTypes) {
    Harness h;
    EXPECT_EQ(h.Run(ir::Creation(OpKind::kZeros, h.Output({2, 2}, dtype))), (V{0, 0, 0, 0}));
    EXPECT_EQ(h.Run(ir::Creation(OpKind::kOnes, h.Output({3}, dtype))), (V{1, 1, 1}));
    const ScalarIr value = IsFloat(dtype)          ? ScalarIr::Float(-2.5)
                           : dtype == DType::kBool ? ScalarIr::Bool(true)
                                                   : ScalarIr::Int(-7);
    const double want = IsFloat(dtype) ? -2.5 : dtype == DType::kBool ? 1 : -7;
    EXPECT_EQ(h.Run(ir::Full(h.Output({2}, dtype), value)), (V{want, want})) << DTypeName(dtype);
  }
  Harness h;
  // A float scalar into an int tensor truncates; a large fill crosses threads.
  EXPECT_EQ(h.RunInts(ir::Full(h.Output({1}, DType::kI64), ScalarIr::Float(-3.9))), (I{-3}));
  // Float scalars into ints follow the cast rules: NaN -> 0, saturation at the dtype's range.
  EXPECT_EQ(h.RunInts(ir::Full(h.Output({1}, DType::kI64), ScalarIr::Float(std::nan("")))), (I{0}));
  EXPECT_EQ(h.RunInts(ir::Full(h.Output({1}, DType::kI64), ScalarIr::Float(1e30))),
            (I{std::numeric_limits<int64_t>::max()}));
  EXPECT_EQ(h.RunInts(ir::Full(h.Output({1}, DType::kI32), ScalarIr::Float(-1e30))),
            (I{std::numeric_limits<int32_t>::min()}));
  EXPECT_EQ(h.RunInts(ir::Full(h.Output({1}, DType::kI32), ScalarIr::Int(1LL << 32 | 7))), (I{7}));
  const V big = h.Run(ir::Full(h.Output({100000}, DType::kBF16), ScalarIr::Float(0.5)));
  for (double v : big) ASSERT_EQ(v, 0.5);
}

}  // namespace
}  // namespace ember

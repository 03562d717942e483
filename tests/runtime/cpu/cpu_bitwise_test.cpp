// The bitwise kernels of the CPU backend (Note [Bitwise ops], engine/runtime/cpu/elementwise.cpp):
// hand-computed values on i32 and i64, negative numbers and the extremes included, and shifts by
// amounts inside and outside [0, 64), which give what NumPy's left_shift and right_shift give
// for the same dtype (the expectations below are NumPy 1.24's results).
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "engine/runtime/cpu/kernels.h"
#include "tests/runtime/cpu/cpu_test_util.h"

namespace ember {
namespace {

using testing::Harness;
using I = std::vector<int64_t>;

constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int64_t kMax32 = std::numeric_limits<int32_t>::max();

TEST(CpuBitwise, AndOrXorNotOnHandComputedValues) {
  for (DType dtype : {DType::kI32, DType::kI64}) {
    Harness h;
    const TensorIr a = h.InputInts({6}, dtype, {12, -1, 5, -8, 0, -6});
    const TensorIr b = h.InputInts({6}, dtype, {10, 3, -3, 7, -1, -11});
    auto run = [&](OpKind kind) { return h.RunInts(ir::Binary(kind, a, b, h.Output({6}, dtype))); };
    EXPECT_EQ(run(OpKind::kBitwiseAnd), (I{8, 3, 5, 0, 0, -16})) << DTypeName(dtype);
    EXPECT_EQ(run(OpKind::kBitwiseOr), (I{14, -1, -3, -1, -1, -1})) << DTypeName(dtype);
    EXPECT_EQ(run(OpKind::kBitwiseXor), (I{6, -4, -8, -1, -1, 15})) << DTypeName(dtype);
    EXPECT_EQ(h.RunInts(ir::Unary(OpKind::kBitwiseNot, a, h.Output({6}, dtype))),
              (I{-13, 0, -6, 7, -1, 5}))
        << DTypeName(dtype);
  }
}

// The i64 result truncated to i32 is the i32 result: the extremes of each dtype.
TEST(CpuBitwise, ExtremesOfEachDtype) {
  Harness h;
  const TensorIr a64 = h.InputInts({4}, DType::kI64, {kMin64, kMax64, kMin64, -1});
  const TensorIr b64 = h.InputInts({4}, DType::kI64, {kMax64, kMax64, -1, kMin64});
  auto run64 = [&](OpKind kind) {
    return h.RunInts(ir::Binary(kind, a64, b64, h.Output({4}, DType::kI64)));
  };
  EXPECT_EQ(run64(OpKind::kBitwiseAnd), (I{0, kMax64, kMin64, kMin64}));
  EXPECT_EQ(run64(OpKind::kBitwiseOr), (I{-1, kMax64, -1, -1}));
  EXPECT_EQ(run64(OpKind::kBitwiseXor), (I{-1, 0, kMax64, kMax64}));
  EXPECT_EQ(h.RunInts(ir::Unary(OpKind::kBitwiseNot, a64, h.Output({4}, DType::kI64))),
            (I{kMax64, kMin64, kMax64, 0}));
  const TensorIr a32 = h.InputInts({4}, DType::kI32, {kMin32, kMax32, kMin32, -1});
  const TensorIr b32 = h.InputInts({4}, DType::kI32, {kMax32, kMax32, -1, kMin32});
  auto run32 = [&](OpKind kind) {
    return h.RunInts(ir::Binary(kind, a32, b32, h.Output({4}, DType::kI32)));
  };
  EXPECT_EQ(run32(OpKind::kBitwiseAnd), (I{0, kMax32, kMin32, kMin32}));
  EXPECT_EQ(run32(OpKind::kBitwiseOr), (I{-1, kMax32, -1, -1}));
  EXPECT_EQ(run32(OpKind::kBitwiseXor), (I{-1, 0, kMax32, kMax32}));
  EXPECT_EQ(h.RunInts(ir::Unary(OpKind::kBitwiseNot, a32, h.Output({4}, DType::kI32))),
            (I{kMax32, kMin32, kMax32, 0}));
}

// Scalar forms take the scalar as an exact i64: a mask past 2^53 keeps every bit.
TEST(CpuBitwise, ScalarFormsTakeExactInt64Masks) {
  Harness h;
  const int64_t mask = 0x00ff00ff00ff00ffLL + 2;  // not a double: 2^53 < mask, odd low bits
  const TensorIr a = h.InputInts({3}, DType::kI64, {-1, kMax64, 0x0123456789abcdefLL});
  auto run = [&](OpKind kind, int64_t s) {
    return h.RunInts(ir::Scalar(kind, a, ScalarIr::Int(s), h.Output({3}, DType::kI64)));
  };
  EXPECT_EQ(run(OpKind::kBitwiseAndScalar, mask), (I{mask, mask, 0x0123456789abcdefLL & mask}));
  EXPECT_EQ(run(OpKind::kBitwiseOrScalar, mask), (I{-1, kMax64, 0x0123456789abcdefLL | mask}));
  EXPECT_EQ(run(OpKind::kBitwiseXorScalar, mask),
            (I{~mask, kMax64 ^ mask, 0x0123456789abcdefLL ^ mask}));
  EXPECT_EQ(run(OpKind::kBitwiseLeftShiftScalar, 4), (I{-16, -16, 0x123456789abcdef0LL}));
  EXPECT_EQ(run(OpKind::kBitwiseRightShiftScalar, 4), (I{-1, kMax64 >> 4, 0x00123456789abcdeLL}));
}

// NumPy's left_shift and right_shift of these values by these amounts, per dtype.
struct ShiftCase {
  int64_t amount;
  I left_i64, right_i64, left_i32, right_i32;
};

TEST(CpuBitwise, ShiftAmountsInsideAndOutsideTheWidthGiveNumPysValues) {
  const I i64_values = {5, -5, kMin64, kMax64};
  const I i32_values = {5, -5, kMin32, kMax32};
  const I zeros = {0, 0, 0, 0};
  const I fill = {0, -1, -1, 0};  // the sign fill
  const ShiftCase cases[] = {
      {-1, zeros, fill, zeros, fill},
      {0, i64_values, i64_values, i32_values, i32_values},
      {31,
       {10737418240LL, -10737418240LL, 0, -2147483648LL},
       {0, -1, -4294967296LL, 4294967295LL},
       {kMin32, kMin32, 0, kMin32},
       fill},
      {32,
       {21474836480LL, -21474836480LL, 0, -4294967296LL},
       {0, -1, -2147483648LL, 2147483647LL},
       zeros,
       fill},
      {63, {kMin64, kMin64, 0, kMin64}, fill, zeros, fill},
      {64, zeros, fill, zeros, fill},
      {1000, zeros, fill, zeros, fill},
  };
  for (const ShiftCase& c : cases) {
    Harness h;
    for (DType dtype : {DType::kI64, DType::kI32}) {
      const bool wide = dtype == DType::kI64;
      const TensorIr x = h.InputInts({4}, dtype, wide ? i64_values : i32_values);
      const TensorIr amount = h.InputInts({1}, dtype, {c.amount});  // broadcast
      const ScalarIr s = ScalarIr::Int(c.amount);
      const I& left = wide ? c.left_i64 : c.left_i32;
      const I& right = wide ? c.right_i64 : c.right_i32;
      const std::string where = std::string(DTypeName(dtype)) + " by " + std::to_string(c.amount);
      EXPECT_EQ(h.RunInts(ir::Binary(OpKind::kBitwiseLeftShift, x, amount, h.Output({4}, dtype))),
                left)
          << where;
      EXPECT_EQ(h.RunInts(ir::Binary(OpKind::kBitwiseRightShift, x, amount, h.Output({4}, dtype))),
                right)
          << where;
      EXPECT_EQ(h.RunInts(ir::Scalar(OpKind::kBitwiseLeftShiftScalar, x, s, h.Output({4}, dtype))),
                left)
          << where;
      EXPECT_EQ(h.RunInts(ir::Scalar(OpKind::kBitwiseRightShiftScalar, x, s, h.Output({4}, dtype))),
                right)
          << where;
    }
  }
}

// An i32 value shifted by 32..63 in the i64 domain and wrapped back to i32 is what NumPy's int32
// shifts give: 0 to the left, the sign fill to the right.
TEST(CpuBitwise, I32ShiftsPastItsWidthWrapToNumPysInt32Results) {
  Harness h;
  const I values = {1, -1, 7, -7, kMin32, kMax32, 0x12345678, -0x12345678};
  const TensorIr x = h.InputInts({8}, DType::kI32, values);
  for (int64_t amount = 32; amount < 64; ++amount) {
    const TensorIr a = h.InputInts({1}, DType::kI32, {amount});
    const I left =
        h.RunInts(ir::Binary(OpKind::kBitwiseLeftShift, x, a, h.Output({8}, DType::kI32)));
    const I right =
        h.RunInts(ir::Binary(OpKind::kBitwiseRightShift, x, a, h.Output({8}, DType::kI32)));
    for (size_t i = 0; i < values.size(); ++i) {
      EXPECT_EQ(left[i], 0) << values[i] << " << " << amount;
      EXPECT_EQ(right[i], values[i] < 0 ? -1 : 0) << values[i] << " >> " << amount;
    }
  }
}

// The bitwise ops compute in i64 whatever their operands' dtype, as the float math ops compute
// in f32 whatever theirs: one domain, and no float form to disagree with the CUDA generator's.
TEST(CpuBitwise, TheTileIsInTheIntDomainForEveryDtype) {
  for (FuseOpKind kind :
       {FuseOpKind::kBitwiseAnd, FuseOpKind::kBitwiseOr, FuseOpKind::kBitwiseXor,
        FuseOpKind::kBitwiseLeftShift, FuseOpKind::kBitwiseRightShift, FuseOpKind::kBitwiseNot}) {
    for (DType dtype : {DType::kF32, DType::kF16, DType::kI32, DType::kI64, DType::kBool}) {
      const cpu::TileOp tile = cpu::ElementTile(kind, dtype);
      EXPECT_EQ(tile.domain, cpu::Domain::kInt) << FuseOpKindName(kind) << " " << DTypeName(dtype);
      EXPECT_NE(tile.int_fn, nullptr);
      EXPECT_EQ(tile.float_fn, nullptr);
    }
  }
}

}  // namespace
}  // namespace ember

// Bad input at the bitwise ops (Note [Bitwise ops], engine/runtime/cpu/elementwise.cpp): float
// and bool tensors, operands that do not match, scalars past an i32 tensor's range (bad_input.h).
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/api/bad_input.h"

namespace ember::bad_input {
namespace {

constexpr int64_t k2e31 = int64_t{1} << 31;

// clang-format off
std::vector<BadCall> BitwiseCases() {
  const Needs kStale = Needs::kStale;
  return {
    {"BitwiseAnd_Float", [](O o) { (void)o.f.BitwiseAnd(o.f); },
     {"BitwiseAnd", "[2,3] f32", "int tensor"}},
    {"BitwiseOr_Bool", [](O o) { (void)o.b.BitwiseOr(o.b); },
     {"BitwiseOr", "[2,3] bool", "int tensor"}},
    {"BitwiseXor_WrongDtypeMix", [](O o) { (void)o.i.BitwiseXor(o.idx23); },
     {"BitwiseXor", "[2,3] i32", "[2,3] i64", "same dtype"}},
    {"BitwiseLeftShift_WrongShape", [](O o) { (void)o.i.BitwiseLeftShift(o.i32x2); },
     {"BitwiseLeftShift", "[2,3]", "[3,2]", "do not broadcast"}},
    {"BitwiseRightShift_FloatAmount", [](O o) { (void)o.i.BitwiseRightShift(o.f); },
     {"BitwiseRightShift", "[2,3] i32", "[2,3] f32"}},
    {"BitwiseAndScalar_Float", [](O o) { (void)o.f.BitwiseAnd(int64_t{1}); },
     {"BitwiseAnd", "[2,3] f32", "int tensor"}},
    {"BitwiseXorScalar_Bool", [](O o) { (void)Tensor(o.b).BitwiseXor(int64_t{1}); },
     {"BitwiseXor", "[2,3] bool", "int tensor"}},
    {"BitwiseOrScalar_OutOfI32Range", [](O o) { (void)o.i.BitwiseOr(k2e31); },
     {"BitwiseOr", "2147483648", "i32", "range"}},
    {"BitwiseLeftShiftScalar_BelowI32Range", [](O o) { (void)o.i.BitwiseLeftShift(-k2e31 - 1); },
     {"BitwiseLeftShift", "-2147483649", "i32", "range"}},
    {"BitwiseNot_Float", [](O o) { (void)o.f.BitwiseNot(); },
     {"BitwiseNot", "[2,3] f32", "int tensor"}},
    {"BitwiseNot_Bool", [](O o) { (void)o.bool_scalar.BitwiseNot(); },
     {"BitwiseNot", "[] bool", "int tensor"}},
    {"BitwiseAnd_EmptyTensor", [](O o) { (void)o.empty.BitwiseAnd(int64_t{1}); },
     {"BitwiseAnd", "empty"}},
    {"BitwiseOr_EmptyOperand", [](O o) { (void)o.i.BitwiseOr(o.empty); },
     {"BitwiseOr", "the second operand is empty"}},
    {"BitwiseRightShift_ReleasedDevice", [](O o) { (void)o.stale_idx.BitwiseRightShift(1); },
     {"BitwiseRightShift", "[2] i64", "released"}, kStale},
  };
}
// clang-format on

INSTANTIATE_TEST_SUITE_P(Api, BadInput, ::testing::ValuesIn(BitwiseCases()), BadCallName);

}  // namespace
}  // namespace ember::bad_input

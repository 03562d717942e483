// Bad input at the elementwise ops: unary, binary with a tensor or a scalar, clamp, masks and
// cast (operands that do not broadcast, wrong dtypes, non-finite scalars; bad_input.h).
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/api/bad_input.h"

namespace ember::bad_input {
namespace {

// clang-format off
std::vector<BadCall> ElementwiseCases() {
  const Needs kStale = Needs::kStale;
  const Needs kCuda = Needs::kCuda;
  return {
    // --- Unary -----------------------------------------------------------------------------
    {"Exp_WrongDtype", [](O o) { (void)o.i.Exp(); }, {"Exp", "[2,3] i32", "float tensor"}},
    {"Log_WrongDtype", [](O o) { (void)o.b.Log(); }, {"Log", "[2,3] bool", "float tensor"}},
    {"Log1p_WrongDtype", [](O o) { (void)o.i.Log1p(); }, {"Log1p", "[2,3] i32", "float"}},
    {"Sqrt_WrongDtype", [](O o) { (void)o.idx.Sqrt(); }, {"Sqrt", "[2] i64", "float"}},
    {"Recip_WrongDtype", [](O o) { (void)o.i.Recip(); }, {"Recip", "[2,3] i32", "float"}},
    {"Sin_WrongDtype", [](O o) { (void)o.b.Sin(); }, {"Sin", "[2,3] bool", "float"}},
    {"Cos_WrongDtype", [](O o) { (void)o.i.Cos(); }, {"Cos", "[2,3] i32", "float"}},
    {"Tanh_WrongDtype", [](O o) { (void)Tensor(o.i).Tanh(); }, {"Tanh", "[2,3] i32"}},
    {"Erf_WrongDtype", [](O o) { (void)o.bool_scalar.Erf(); }, {"Erf", "[] bool", "float"}},
    {"Abs_WrongDtype", [](O o) { (void)o.b.Abs(); }, {"Abs", "[2,3] bool", "float or int"}},
    {"Neg_WrongDtype", [](O o) { (void)o.b.Neg(); }, {"Neg", "[2,3] bool", "float or int"}},
    {"UnaryMinus_WrongDtype", [](O o) { (void)(-o.b); }, {"Neg", "[2,3] bool"}},
    {"Sum_WrongDtype", [](O o) { (void)o.b.Sum(); }, {"Sum", "[2,3] bool", "float or int"}},
    {"Mean_WrongDtype", [](O o) { (void)o.b.Mean(); }, {"Mean", "[2,3] bool"}},
    {"Exp_EmptyTensor", [](O o) { (void)o.empty.Exp(); }, {"Exp", "empty"}},
    {"Sum_EmptyTensor", [](O o) { (void)std::move(o.empty).Sum(); }, {"Sum", "empty"}},
    {"UnaryMinus_EmptyTensor", [](O o) { (void)(-o.empty); }, {"Neg", "empty"}},
    {"Log_ReleasedDevice", [](O o) { (void)o.stale.Log(); },
     {"Log", "[2,3] f32", "cpu", "released"}, kStale},
    {"Mean_ReleasedDevice", [](O o) { (void)o.stale.Mean(); }, {"Mean", "released"}, kStale},

    // --- Binary, tensor with tensor --------------------------------------------------------
    {"Add_WrongShape", [](O o) { (void)(o.f + o.g); },
     {"Add", "[2,3]", "[3,2]", "do not broadcast"}},
    {"Sub_WrongRank", [](O o) { (void)(o.f - o.v4); }, {"Sub", "[2,3]", "[4]", "broadcast"}},
    {"Mul_WrongDtype", [](O o) { (void)(o.f * o.i); },
     {"Mul", "[2,3] f32", "[2,3] i32", "same dtype"}},
    {"Div_WrongDtypeBool", [](O o) { (void)(o.b / o.b); }, {"Div", "[2,3] bool"}},
    {"Add_ShapeOverflow", [](O o) { (void)(o.tall + o.wide); },
     {"Add", "[1048576,1]", "[1,2097152]", "more than"}},
    {"Powf_WrongDtype", [](O o) { (void)o.i.Powf(o.i); }, {"Powf", "[2,3] i32", "float"}},
    {"Powf_WrongShape", [](O o) { (void)o.f.Powf(o.g); }, {"Powf", "[2,3]", "[3,2]"}},
    {"Rem_WrongDtype", [](O o) { (void)o.b.Rem(o.b); }, {"Rem", "[2,3] bool"}},
    {"Rem_WrongDtypeMix", [](O o) { (void)o.i.Rem(o.f); }, {"Rem", "[2,3] i32", "[2,3] f32"}},
    {"Equal_WrongDtype", [](O o) { (void)o.f.Equal(o.b); },
     {"Equal", "[2,3] f32", "[2,3] bool"}},
    {"Equal_WrongShape", [](O o) { (void)o.f.Equal(o.g); }, {"Equal", "[2,3]", "[3,2]"}},
    {"Lower_WrongDtype", [](O o) { (void)o.b.Lower(o.b); }, {"Lower", "[2,3] bool"}},
    {"Greater_WrongShape", [](O o) { (void)o.f.Greater(o.v4); },
     {"Greater", "[2,3]", "[4]"}},
    {"LowerEqual_ShapeOverflow", [](O o) { (void)o.tall.LowerEqual(o.wide); },
     {"LowerEqual", "[1048576,1]", "[1,2097152]", "more than"}},
    {"GreaterEqual_WrongDtype", [](O o) { (void)o.i.GreaterEqual(o.f); },
     {"GreaterEqual", "[2,3] i32", "[2,3] f32"}},
    {"Add_EmptyTensor", [](O o) { (void)(o.f + o.empty); },
     {"Add", "the second operand is empty"}},
    {"Mul_EmptyTensorLeft", [](O o) { (void)(o.empty * o.f); }, {"Mul", "the tensor is empty"}},
    {"Add_ReleasedDevice", [](O o) { (void)(o.f + o.stale); },
     {"Add", "[2,3] f32", "released"}, kStale},
    {"Sub_ReleasedDeviceLeft", [](O o) { (void)(o.stale - o.f); }, {"Sub", "released"}, kStale},
    {"Powf_ReleasedDevice", [](O o) { (void)o.f.Powf(o.stale); }, {"Powf", "released"}, kStale},
    {"Rem_ReleasedDevice", [](O o) { (void)o.f.Rem(o.stale); }, {"Rem", "released"}, kStale},
    {"GreaterEqual_ReleasedDevice", [](O o) { (void)o.stale.GreaterEqual(o.f); },
     {"GreaterEqual", "released"}, kStale},
    {"Add_OtherDevice", [](O o) { (void)(o.f + o.cuda); },
     {"Add", "[2,3] f32 on cpu", "[2,3] f32 on cuda:0", "different devices"}, kCuda},
    {"Div_OtherDeviceLeft", [](O o) { (void)(o.cuda / o.f); },
     {"Div", "on cuda:0", "on cpu", "different devices"}, kCuda},
    {"Powf_OtherDevice", [](O o) { (void)o.f.Powf(o.cuda); },
     {"Powf", "different devices"}, kCuda},
    {"Rem_OtherDevice", [](O o) { (void)o.f.Rem(o.cuda); }, {"Rem", "different devices"}, kCuda},
    {"Equal_OtherDevice", [](O o) { (void)o.f.Equal(o.cuda); },
     {"Equal", "different devices"}, kCuda},

    // --- Binary, tensor with scalar --------------------------------------------------------
    {"AddScalar_FractionOnInt", [](O o) { (void)(o.i + 2.5); },
     {"AddScalar", "2.5", "i32", "whole number"}},
    {"SubScalar_NaNOnInt", [](O o) { (void)(o.i - kNaN); }, {"SubScalar", "nan", "i32"}},
    {"MulScalar_InfOnInt", [](O o) { (void)(o.i * kInf); }, {"MulScalar", "inf", "i32"}},
    {"DivScalar_HugeOnInt", [](O o) { (void)(o.idx / 1e19); },
     {"DivScalar", "1e+19", "i64", "outside the range"}},
    {"AddScalar_WrongDtype", [](O o) { (void)(o.b + 1.0); }, {"AddScalar", "[2,3] bool"}},
    {"MulScalar_WrongDtype", [](O o) { (void)(o.b * 1.0); }, {"MulScalar", "[2,3] bool"}},
    {"PowfScalar_WrongDtype", [](O o) { (void)o.i.Powf(2.0); }, {"Powf", "[2,3] i32", "float"}},
    {"RemScalar_FractionOnInt", [](O o) { (void)o.i.Rem(0.5); }, {"Rem", "0.5", "i32"}},
    {"RemScalar_WrongDtype", [](O o) { (void)o.b.Rem(1.0); }, {"Rem", "[2,3] bool"}},
    {"EqualScalar_TwoOnBool", [](O o) { (void)o.b.Equal(2.0); },
     {"Equal", "scalar 2", "bool", "0 or 1"}},
    {"LowerScalar_NaNOnInt", [](O o) { (void)o.i.Lower(kNaN); }, {"Lower", "nan", "i32"}},
    {"GreaterScalar_WrongDtype", [](O o) { (void)o.b.Greater(0.0); }, {"Greater", "bool"}},
    {"LowerEqualScalar_FractionOnInt", [](O o) { (void)o.idx.LowerEqual(0.5); },
     {"LowerEqual", "0.5", "i64"}},
    {"GreaterEqualScalar_WrongDtype", [](O o) { (void)o.b.GreaterEqual(1.0); },
     {"GreaterEqual", "bool"}},
    {"ScalarSub_FractionOnInt", [](O o) { (void)(0.5 - o.i); }, {"Sub", "0.5", "i32"}},
    {"ScalarDiv_WrongDtype", [](O o) { (void)(1.0 / o.b); }, {"Div", "[2,3] bool"}},
    {"ScalarDiv_FractionOnInt", [](O o) { (void)(2.5 / o.i); }, {"Div", "2.5", "i32"}},
    {"ScalarDiv_OutOfI32Range", [](O o) { (void)(3e9 / o.i); }, {"Div", "i32", "range"}},
    {"ScalarAdd_NaNOnInt", [](O o) { (void)(kNaN + o.i); }, {"AddScalar", "nan", "i32"}},
    {"ScalarMul_WrongDtype", [](O o) { (void)(2.0 * o.b); }, {"MulScalar", "bool"}},
    {"AddScalar_EmptyTensor", [](O o) { (void)(o.empty + 1.0); }, {"AddScalar", "empty"}},
    {"ScalarSub_EmptyTensor", [](O o) { (void)(1.0 - o.empty); }, {"Sub", "empty"}},
    {"ScalarDiv_EmptyTensor", [](O o) { (void)(1.0 / o.empty); }, {"Div", "empty"}},
    {"MulScalar_ReleasedDevice", [](O o) { (void)(o.stale * 2.0); },
     {"MulScalar", "released"}, kStale},
    {"ScalarSub_ReleasedDevice", [](O o) { (void)(2.0 - o.stale); }, {"Sub", "released"}, kStale},
    {"ScalarDiv_ReleasedDevice", [](O o) { (void)(2.0 / o.stale); }, {"Div", "released"}, kStale},
    {"EqualScalar_ReleasedDevice", [](O o) { (void)o.stale.Equal(1.0); },
     {"Equal", "released"}, kStale},

    // --- Clamp -----------------------------------------------------------------------------
    {"Clamp_LoAboveHi", [](O o) { (void)o.f.Clamp(2.0, 1.0); },
     {"Clamp", "[2,3] f32", "[2, 1]", "lo <= hi"}},
    {"Clamp_NaNLo", [](O o) { (void)o.f.Clamp(kNaN, 1.0); }, {"Clamp", "[nan, 1]", "lo <= hi"}},
    {"Clamp_NaNHi", [](O o) { (void)o.f.Clamp(0.0, kNaN); }, {"Clamp", "[0, nan]"}},
    {"Clamp_WrongDtype", [](O o) { (void)o.b.Clamp(0.0, 1.0); }, {"Clamp", "[2,3] bool"}},
    {"Clamp_FractionOnInt", [](O o) { (void)o.i.Clamp(0.5, 2.0); },
     {"Clamp", "0.5", "i32", "whole number"}},
    {"Clamp_InfOnInt", [](O o) { (void)o.i.Clamp(-kInf, 2.0); }, {"Clamp", "-inf", "i32"}},
    {"Clamp_EmptyTensor", [](O o) { (void)o.empty.Clamp(0.0, 1.0); }, {"Clamp", "empty"}},
    {"Clamp_ReleasedDevice", [](O o) { (void)o.stale.Clamp(0.0, 1.0); },
     {"Clamp", "released"}, kStale},

    // --- MaskWhere and MaskFill ------------------------------------------------------------
    {"MaskWhere_WrongDtypeMask", [](O o) { (void)o.f.MaskWhere(o.f, o.f); },
     {"MaskWhere", "mask is [2,3] f32", "bool"}},
    {"MaskWhere_WrongDtypeValue", [](O o) { (void)o.f.MaskWhere(o.b, o.i); },
     {"MaskWhere", "[2,3] f32", "[2,3] i32", "same dtype"}},
    {"MaskWhere_WrongShapeValue", [](O o) { (void)o.f.MaskWhere(o.b, o.g); },
     {"MaskWhere", "[2,3]", "[3,2]", "broadcast"}},
    {"MaskWhere_WrongShapeMask", [](O o) { (void)o.f.MaskWhere(o.mask32, o.f); },
     {"MaskWhere", "[2,3]", "[3,2]", "broadcast"}},
    {"MaskWhere_ShapeOverflow", [](O o) { (void)o.tall.MaskWhere(o.bool_scalar, o.wide); },
     {"MaskWhere", "[1048576,1]", "[1,2097152]", "more than"}},
    {"MaskWhere_EmptyMask", [](O o) { (void)o.f.MaskWhere(o.empty, o.f); },
     {"MaskWhere", "the mask is empty"}},
    {"MaskWhere_EmptyValue", [](O o) { (void)o.f.MaskWhere(o.b, o.empty); },
     {"MaskWhere", "the value is empty"}},
    {"MaskWhere_ReleasedDevice", [](O o) { (void)o.f.MaskWhere(o.b, o.stale); },
     {"MaskWhere", "released"}, kStale},
    {"MaskWhere_OtherDeviceMask", [](O o) { (void)o.f.MaskWhere(o.cuda_mask, o.f); },
     {"MaskWhere", "[2,3] bool on cuda:0", "different devices"}, kCuda},
    {"MaskWhere_OtherDeviceValue", [](O o) { (void)o.f.MaskWhere(o.b, o.cuda); },
     {"MaskWhere", "[2,3] f32 on cuda:0", "different devices"}, kCuda},
    {"MaskFill_WrongDtypeMask", [](O o) { (void)o.f.MaskFill(o.i, 1.0); },
     {"MaskFill", "mask is [2,3] i32", "bool"}},
    {"MaskFill_NaNOnInt", [](O o) { (void)o.i.MaskFill(o.b, kNaN); },
     {"MaskFill", "nan", "i32"}},
    {"MaskFill_OutOfI32Range", [](O o) { (void)o.i.MaskFill(o.b, -3e9); },
     {"MaskFill", "i32", "range"}},
    {"MaskFill_TwoOnBool", [](O o) { (void)o.b.MaskFill(o.b, 2.0); },
     {"MaskFill", "bool", "0 or 1"}},
    {"MaskFill_WrongShape", [](O o) { (void)o.f.MaskFill(o.mask32, 0.0); },
     {"MaskFill", "[2,3]", "[3,2]", "broadcast"}},
    {"MaskFill_ShapeOverflow", [](O o) { (void)o.tall.MaskFill(o.wide_mask, 0.0); },
     {"MaskFill", "[1048576,1]", "[1,2097152]", "more than"}},
    {"MaskFill_EmptyMask", [](O o) { (void)o.f.MaskFill(o.empty, 0.0); },
     {"MaskFill", "the mask is empty"}},
    {"MaskFill_ReleasedDevice", [](O o) { (void)o.stale.MaskFill(o.b, 0.0); },
     {"MaskFill", "released"}, kStale},
    {"MaskFill_OtherDevice", [](O o) { (void)o.f.MaskFill(o.cuda_mask, 0.0); },
     {"MaskFill", "different devices"}, kCuda},

    // --- Cast ------------------------------------------------------------------------------
    {"Cast_WrongDtype", [](O o) { (void)o.f.Cast(kNoDtype); },
     {"Cast", "[2,3] f32", "dtype 6"}},
    {"Cast_WrongDtypeRvalue", [](O o) { (void)Tensor(o.i).Cast(static_cast<DType>(255)); },
     {"Cast", "[2,3] i32", "dtype 255"}},
    {"Cast_EmptyTensor", [](O o) { (void)o.empty.Cast(DType::kF32); }, {"Cast", "empty"}},
    {"Cast_ReleasedDevice", [](O o) { (void)o.stale.Cast(DType::kF32); },
     {"Cast", "released"}, kStale},
  };
}
// clang-format on

INSTANTIATE_TEST_SUITE_P(Api, BadInput, ::testing::ValuesIn(ElementwiseCases()), BadCallName);

}  // namespace
}  // namespace ember::bad_input

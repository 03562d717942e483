// ember::Tensor elementwise ops: arithmetic, math functions, comparisons, bitwise ops, clamp,
// masks, casts.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "engine/api/tensor_ops.h"

namespace ember {

using detail::Emit;
using detail::IntoIr;
using detail::LiveServer;
using detail::NewOutputIr;

namespace {

enum class Accepts { kFloat, kNumeric, kInt, kAny };

void RequireAccepts(const char* op, const Tensor& t, Accepts accepts) {
  switch (accepts) {
    case Accepts::kFloat: checks::RequireFloat(op, t); break;
    case Accepts::kNumeric: checks::RequireNumeric(op, t); break;
    case Accepts::kInt: checks::RequireInt(op, t); break;
    case Accepts::kAny: break;
  }
}

Tensor UnaryImpl(const char* op, OpKind kind, Accepts accepts, Tensor x) {
  auto s = LiveServer(x, op);
  RequireAccepts(op, x, accepts);
  TensorIr in = IntoIr(x);
  return Emit(s, ir::Unary(kind, in, NewOutputIr(x.Shape(), x.Dtype())), {&x});
}

// Tensor-tensor elementwise op with broadcasting; comparisons give bool.
Tensor BinaryImpl(const char* op, OpKind kind, Accepts accepts, bool compare, Tensor lhs,
                  Tensor rhs) {
  auto s = LiveServer(lhs, op);
  checks::RequireDefined(op, rhs, "the second operand");
  checks::RequireSameDevice(op, lhs, rhs);
  checks::RequireSameDtype(op, lhs, rhs);
  RequireAccepts(op, lhs, accepts);
  Dims shape = checks::Broadcast(op, lhs.Shape(), rhs.Shape());
  TensorIr out = NewOutputIr(std::move(shape), compare ? DType::kBool : lhs.Dtype());
  TensorIr a = IntoIr(lhs);
  TensorIr b = IntoIr(rhs);
  return Emit(s, ir::Binary(kind, a, b, out), {&lhs, &rhs});
}

Tensor ScalarImpl(const char* op, OpKind kind, Accepts accepts, bool compare, Tensor lhs,
                  double value) {
  auto s = LiveServer(lhs, op);
  RequireAccepts(op, lhs, accepts);
  const ScalarIr scalar = checks::ScalarFor(op, value, lhs.Dtype());
  TensorIr out = NewOutputIr(lhs.Shape(), compare ? DType::kBool : lhs.Dtype());
  TensorIr a = IntoIr(lhs);
  return Emit(s, ir::Scalar(kind, a, scalar, out), {&lhs});
}

#define EMBER_UNARY(Name, ACCEPTS)                                            \
  Tensor Name##Impl(Tensor x) {                                               \
    return UnaryImpl(#Name, OpKind::k##Name, Accepts::ACCEPTS, std::move(x)); \
  }
EMBER_UNARY(Exp, kFloat)
EMBER_UNARY(Log, kFloat)
EMBER_UNARY(Log1p, kFloat)
EMBER_UNARY(Sqrt, kFloat)
EMBER_UNARY(Recip, kFloat)
EMBER_UNARY(Sin, kFloat)
EMBER_UNARY(Cos, kFloat)
EMBER_UNARY(Tanh, kFloat)
EMBER_UNARY(Erf, kFloat)
EMBER_UNARY(Abs, kNumeric)
EMBER_UNARY(Neg, kNumeric)
EMBER_UNARY(BitwiseNot, kInt)
#undef EMBER_UNARY

#define EMBER_COMPARE(Name, ACCEPTS)                                                              \
  Tensor Name##Impl(Tensor x, Tensor other) {                                                     \
    return BinaryImpl(#Name, OpKind::k##Name, Accepts::ACCEPTS, true, std::move(x),               \
                      std::move(other));                                                          \
  }                                                                                               \
  Tensor Name##ElemImpl(Tensor x, double other) {                                                 \
    return ScalarImpl(#Name, OpKind::k##Name##Elem, Accepts::ACCEPTS, true, std::move(x), other); \
  }
EMBER_COMPARE(Equal, kAny)
EMBER_COMPARE(Lower, kNumeric)
EMBER_COMPARE(Greater, kNumeric)
EMBER_COMPARE(LowerEqual, kNumeric)
EMBER_COMPARE(GreaterEqual, kNumeric)
#undef EMBER_COMPARE

Tensor PowfImpl(Tensor x, Tensor exponent) {
  return BinaryImpl("Powf", OpKind::kPowf, Accepts::kFloat, false, std::move(x),
                    std::move(exponent));
}
Tensor PowfScalarImpl(Tensor x, double exponent) {
  return ScalarImpl("Powf", OpKind::kPowfScalar, Accepts::kFloat, false, std::move(x), exponent);
}
Tensor RemImpl(Tensor x, Tensor other) {
  return BinaryImpl("Rem", OpKind::kRem, Accepts::kNumeric, false, std::move(x), std::move(other));
}
Tensor RemScalarImpl(Tensor x, double other) {
  return ScalarImpl("Rem", OpKind::kRemScalar, Accepts::kNumeric, false, std::move(x), other);
}

// The bitwise ops (Note [Bitwise ops], engine/runtime/cpu/elementwise.cpp): int tensors only;
// the scalar forms take an exact int64_t (ScalarImpl's double would round a mask past 2^53).
#define EMBER_BITWISE(Name)                                                                        \
  Tensor Name##Impl(Tensor x, Tensor other) {                                                      \
    return BinaryImpl(#Name, OpKind::k##Name, Accepts::kInt, false, std::move(x),                  \
                      std::move(other));                                                           \
  }                                                                                                \
  Tensor Name##ScalarImpl(Tensor x, int64_t other) {                                               \
    const char* op = #Name;                                                                        \
    auto s = LiveServer(x, op);                                                                    \
    checks::RequireInt(op, x);                                                                     \
    const ScalarIr scalar = checks::IntScalarFor(op, other, x.Dtype());                            \
    TensorIr a = IntoIr(x);                                                                        \
    return Emit(s,                                                                                 \
                ir::Scalar(OpKind::k##Name##Scalar, a, scalar, NewOutputIr(x.Shape(), x.Dtype())), \
                {&x});                                                                             \
  }
EMBER_BITWISE(BitwiseAnd)
EMBER_BITWISE(BitwiseOr)
EMBER_BITWISE(BitwiseXor)
EMBER_BITWISE(BitwiseLeftShift)
EMBER_BITWISE(BitwiseRightShift)
#undef EMBER_BITWISE

Tensor ClampImpl(Tensor x, double lo, double hi) {
  const char* op = "Clamp";
  auto s = LiveServer(x, op);
  checks::RequireNumeric(op, x);
  if (!(lo <= hi)) {
    checks::Fail(
        op, fmt::format("bounds [{}, {}] for {}; expected lo <= hi", lo, hi, checks::Describe(x)));
  }
  if (x.Dtype() == DType::kI32) {
    // A finite bound past i32 clips all or nothing; held to the range, it cannot wrap where a
    // backend stores it as the tensor's dtype (an i32 clamped at 2^40 read 0). An infinite or
    // fractional bound is still refused below, as for every int scalar.
    auto held = [](double v) {
      return std::isfinite(v) ? std::clamp<double>(v, INT32_MIN, INT32_MAX) : v;
    };
    lo = held(lo);
    hi = held(hi);
  }
  const ScalarIr min = checks::ScalarFor(op, lo, x.Dtype());
  const ScalarIr max = checks::ScalarFor(op, hi, x.Dtype());
  TensorIr in = IntoIr(x);
  return Emit(s, ir::Clamp(in, min, max, NewOutputIr(x.Shape(), x.Dtype())), {&x});
}

Tensor MaskWhereImpl(Tensor x, Tensor mask, Tensor value) {
  const char* op = "MaskWhere";
  auto s = LiveServer(x, op);
  checks::RequireDefined(op, mask, "the mask");
  checks::RequireDefined(op, value, "the value");
  checks::RequireSameDevice(op, x, mask);
  checks::RequireSameDevice(op, x, value);
  checks::RequireBoolMask(op, mask);
  checks::RequireSameDtype(op, x, value);
  Dims shape = checks::Broadcast(op, checks::Broadcast(op, x.Shape(), mask.Shape()), value.Shape());
  TensorIr out = NewOutputIr(std::move(shape), x.Dtype());
  TensorIr t = IntoIr(x);
  TensorIr m = IntoIr(mask);
  TensorIr v = IntoIr(value);
  return Emit(s, ir::MaskWhere(t, m, v, out), {&x, &mask, &value});
}

Tensor MaskFillImpl(Tensor x, Tensor mask, double value) {
  const char* op = "MaskFill";
  auto s = LiveServer(x, op);
  checks::RequireDefined(op, mask, "the mask");
  checks::RequireSameDevice(op, x, mask);
  checks::RequireBoolMask(op, mask);
  const ScalarIr scalar = checks::StoredScalarFor(op, value, x.Dtype());
  Dims shape = checks::Broadcast(op, x.Shape(), mask.Shape());
  TensorIr out = NewOutputIr(std::move(shape), x.Dtype());
  TensorIr t = IntoIr(x);
  TensorIr m = IntoIr(mask);
  return Emit(s, ir::MaskFill(t, m, scalar, out), {&x, &mask});
}

Tensor CastImpl(Tensor x, DType dtype) {
  auto s = LiveServer(x, "Cast");
  if (!checks::IsKnownDtype(dtype)) {
    checks::Fail("Cast",
                 fmt::format("cannot cast {} to dtype {}: not an ember dtype; expected "
                             "f32, f16, bf16, i32, i64 or bool",
                             checks::Describe(x), static_cast<int>(dtype)),
                 ErrorKind::kWrongDtype);
  }
  if (x.Dtype() == dtype) return x;  // nothing to do: the same tensor
  TensorIr in = IntoIr(x);
  return Emit(s, ir::Unary(OpKind::kCast, in, NewOutputIr(x.Shape(), dtype)), {&x});
}

Tensor ArithImpl(const char* op, OpKind kind, Tensor lhs, Tensor rhs) {
  return BinaryImpl(op, kind, Accepts::kNumeric, false, std::move(lhs), std::move(rhs));
}
Tensor ArithScalarImpl(const char* op, OpKind kind, Tensor lhs, double rhs) {
  return ScalarImpl(op, kind, Accepts::kNumeric, false, std::move(lhs), rhs);
}

}  // namespace

EMBER_DEFINE_METHOD(Exp, ExpImpl, ())
EMBER_DEFINE_METHOD(Log, LogImpl, ())
EMBER_DEFINE_METHOD(Log1p, Log1pImpl, ())
EMBER_DEFINE_METHOD(Sqrt, SqrtImpl, ())
EMBER_DEFINE_METHOD(Abs, AbsImpl, ())
EMBER_DEFINE_METHOD(Neg, NegImpl, ())
EMBER_DEFINE_METHOD(Recip, RecipImpl, ())
EMBER_DEFINE_METHOD(Sin, SinImpl, ())
EMBER_DEFINE_METHOD(Cos, CosImpl, ())
EMBER_DEFINE_METHOD(Tanh, TanhImpl, ())
EMBER_DEFINE_METHOD(Erf, ErfImpl, ())
EMBER_DEFINE_METHOD(Powf, PowfImpl, (Tensor exponent), std::move(exponent))
EMBER_DEFINE_METHOD(Powf, PowfScalarImpl, (double exponent), exponent)
EMBER_DEFINE_METHOD(Clamp, ClampImpl, (double lo, double hi), lo, hi)
EMBER_DEFINE_METHOD(Equal, EqualImpl, (Tensor other), std::move(other))
EMBER_DEFINE_METHOD(Equal, EqualElemImpl, (double other), other)
EMBER_DEFINE_METHOD(Lower, LowerImpl, (Tensor other), std::move(other))
EMBER_DEFINE_METHOD(Lower, LowerElemImpl, (double other), other)
EMBER_DEFINE_METHOD(Greater, GreaterImpl, (Tensor other), std::move(other))
EMBER_DEFINE_METHOD(Greater, GreaterElemImpl, (double other), other)
EMBER_DEFINE_METHOD(LowerEqual, LowerEqualImpl, (Tensor other), std::move(other))
EMBER_DEFINE_METHOD(LowerEqual, LowerEqualElemImpl, (double other), other)
EMBER_DEFINE_METHOD(GreaterEqual, GreaterEqualImpl, (Tensor other), std::move(other))
EMBER_DEFINE_METHOD(GreaterEqual, GreaterEqualElemImpl, (double other), other)
EMBER_DEFINE_METHOD(MaskWhere, MaskWhereImpl, (Tensor mask, Tensor value), std::move(mask),
                    std::move(value))
EMBER_DEFINE_METHOD(MaskFill, MaskFillImpl, (Tensor mask, double v), std::move(mask), v)
EMBER_DEFINE_METHOD(Cast, CastImpl, (DType dtype), dtype)
EMBER_DEFINE_METHOD(Rem, RemImpl, (Tensor other), std::move(other))
EMBER_DEFINE_METHOD(Rem, RemScalarImpl, (double other), other)
EMBER_DEFINE_METHOD(BitwiseNot, BitwiseNotImpl, ())
EMBER_DEFINE_METHOD(BitwiseAnd, BitwiseAndImpl, (Tensor other), std::move(other))
EMBER_DEFINE_METHOD(BitwiseAnd, BitwiseAndScalarImpl, (int64_t other), other)
EMBER_DEFINE_METHOD(BitwiseOr, BitwiseOrImpl, (Tensor other), std::move(other))
EMBER_DEFINE_METHOD(BitwiseOr, BitwiseOrScalarImpl, (int64_t other), other)
EMBER_DEFINE_METHOD(BitwiseXor, BitwiseXorImpl, (Tensor other), std::move(other))
EMBER_DEFINE_METHOD(BitwiseXor, BitwiseXorScalarImpl, (int64_t other), other)
EMBER_DEFINE_METHOD(BitwiseLeftShift, BitwiseLeftShiftImpl, (Tensor amount), std::move(amount))
EMBER_DEFINE_METHOD(BitwiseLeftShift, BitwiseLeftShiftScalarImpl, (int64_t amount), amount)
EMBER_DEFINE_METHOD(BitwiseRightShift, BitwiseRightShiftImpl, (Tensor amount), std::move(amount))
EMBER_DEFINE_METHOD(BitwiseRightShift, BitwiseRightShiftScalarImpl, (int64_t amount), amount)

Tensor operator+(Tensor lhs, Tensor rhs) {
  return ArithImpl("Add", OpKind::kAdd, std::move(lhs), std::move(rhs));
}
Tensor operator-(Tensor lhs, Tensor rhs) {
  return ArithImpl("Sub", OpKind::kSub, std::move(lhs), std::move(rhs));
}
Tensor operator*(Tensor lhs, Tensor rhs) {
  return ArithImpl("Mul", OpKind::kMul, std::move(lhs), std::move(rhs));
}
Tensor operator/(Tensor lhs, Tensor rhs) {
  return ArithImpl("Div", OpKind::kDiv, std::move(lhs), std::move(rhs));
}
Tensor operator+(Tensor lhs, double rhs) {
  return ArithScalarImpl("AddScalar", OpKind::kAddScalar, std::move(lhs), rhs);
}
Tensor operator-(Tensor lhs, double rhs) {
  return ArithScalarImpl("SubScalar", OpKind::kSubScalar, std::move(lhs), rhs);
}
Tensor operator*(Tensor lhs, double rhs) {
  return ArithScalarImpl("MulScalar", OpKind::kMulScalar, std::move(lhs), rhs);
}
Tensor operator/(Tensor lhs, double rhs) {
  return ArithScalarImpl("DivScalar", OpKind::kDivScalar, std::move(lhs), rhs);
}
Tensor operator+(double lhs, Tensor rhs) { return std::move(rhs) + lhs; }
Tensor operator*(double lhs, Tensor rhs) { return std::move(rhs) * lhs; }
// s - x = (-x) + s: two elementwise ops, both fusable. Checked as a whole first, so that a
// rejected call queues nothing.
Tensor operator-(double lhs, Tensor rhs) {
  checks::RequireDefined("Sub", rhs);
  checks::RequireNumeric("Sub", rhs);
  checks::ScalarFor("Sub", lhs, rhs.Dtype());
  return std::move(rhs).Neg() + lhs;
}
// s / x: x.Recip() * s for floats (both fusable); ints divide a Full tensor (exact).
Tensor operator/(double lhs, Tensor rhs) {
  checks::RequireDefined("Div", rhs);
  checks::RequireNumeric("Div", rhs);
  // The int path stores `lhs` in a Full tensor of rhs's dtype: it must fit there.
  checks::StoredScalarFor("Div", lhs, rhs.Dtype());
  if (IsFloat(rhs.Dtype())) return std::move(rhs).Recip() * lhs;
  Tensor num = Tensor::Full(rhs.Shape(), lhs, rhs.Dtype(), rhs.device());
  return std::move(num) / std::move(rhs);
}
Tensor operator-(Tensor x) { return std::move(x).Neg(); }

}  // namespace ember

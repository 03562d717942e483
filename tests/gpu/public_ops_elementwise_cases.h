// PublicOps cases (public_ops_test.cpp) for the elementwise ops: unary (over each op's domain and
// over special values), binary with a tensor or a scalar, Rem, integer division, comparisons,
// masks and casts between all six dtypes.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "tests/gpu/gpu_test_util.h"
#include "tests/gpu/public_ops_case.h"

namespace ember::gpu::public_ops {

struct UnaryOp {
  const char* name;
  double lo, hi;  // the input's domain
  std::function<Tensor(const Tensor&)> op;
};

inline const std::vector<UnaryOp>& UnaryOps() {
  static const std::vector<UnaryOp> ops = {
      {"Exp", -10, 10, [](const Tensor& x) { return x.Exp(); }},
      {"Log", 1e-3, 100, [](const Tensor& x) { return x.Log(); }},
      {"Log1p", -0.9, 10, [](const Tensor& x) { return x.Log1p(); }},
      {"Sqrt", 1e-3, 100, [](const Tensor& x) { return x.Sqrt(); }},
      {"Abs", -5, 5, [](const Tensor& x) { return x.Abs(); }},
      {"Neg", -5, 5, [](const Tensor& x) { return x.Neg(); }},
      {"UnaryMinus", -5, 5, [](const Tensor& x) { return -x; }},
      {"Recip", 0.1, 10, [](const Tensor& x) { return x.Recip(); }},
      {"Sin", -10, 10, [](const Tensor& x) { return x.Sin(); }},
      {"Cos", -10, 10, [](const Tensor& x) { return x.Cos(); }},
      {"Tanh", -5, 5, [](const Tensor& x) { return x.Tanh(); }},
      {"Erf", -3, 3, [](const Tensor& x) { return x.Erf(); }},
      {"PowfSquare", -4, 4, [](const Tensor& x) { return x.Powf(2.0); }},
      {"PowfHalf", 0.1, 4, [](const Tensor& x) { return x.Powf(0.5); }},
      {"PowfNegative", 0.1, 4, [](const Tensor& x) { return x.Powf(-1.5); }},
      {"PowfCube", -3, 3, [](const Tensor& x) { return x.Powf(3.0); }},
      {"Clamp", -2, 2, [](const Tensor& x) { return x.Clamp(-0.5, 0.75); }},
  };
  return ops;
}

inline void AddUnary(std::vector<OpCase>& cases) {
  for (const UnaryOp& u : UnaryOps()) {
    for (DType dtype : kFloats) {
      cases.push_back({std::string("Unary_") + u.name + "_" + Name(dtype),
                       [u, dtype](Device dev, HostData& data) {
                         Tensor x = Input(data, dev, kShape, dtype, u.lo, u.hi);
                         // Also on a strided view: the kernel must follow the strides.
                         return Outputs{Read(u.op(x), "contiguous"),
                                        Read(u.op(x.SwapDims(0, 2)), "transposed")};
                       }});
    }
  }
  for (DType dtype : kFloats) {
    cases.push_back({"Unary_PowfTensor_" + Name(dtype), [dtype](Device dev, HostData& data) {
                       Tensor x = Input(data, dev, kShape, dtype, 0.1, 4);
                       Tensor e = Input(data, dev, {66, 1}, dtype, -2, 2);  // broadcast
                       return Outputs{Read(x.Powf(e), "powf")};
                     }});
  }
  for (DType dtype : {DType::kI32, DType::kI64}) {
    cases.push_back({"Unary_Int_" + Name(dtype),
                     [dtype](Device dev, HostData& data) {
                       Tensor x = Input(data, dev, kShape, dtype, -1000, 1000);
                       return Outputs{Read(x.Abs(), "abs"), Read(x.Neg(), "neg"), Read(-x, "minus"),
                                      Read(x.Clamp(-7, 300), "clamp"),
                                      Read(x.SwapDims(0, 1).Abs(), "abs_transposed")};
                     },
                     0});
  }
}

// NaN, infinities, signed zeros, tiny and huge values through the float ops: the non-finite
// results must sit where the CPU puts them.
inline void AddSpecialValues(std::vector<OpCase>& cases) {
  for (DType dtype : kFloats) {
    cases.push_back(
        {"SpecialValues_" + Name(dtype), [dtype](Device dev, HostData& data) {
           const float inf = std::numeric_limits<float>::infinity();
           std::vector<float> v = data.Uniform(4096, -20, 20);
           const float special[] = {std::nanf(""), inf,    -inf,  0.0f,  -0.0f,  1e-30f,  -1e-30f,
                                    3e38f,         -3e38f, 88.0f, 89.0f, -104.f, 65504.f, 1e5f};
           for (size_t i = 0; i < v.size(); i += 7) v[i] = special[(i / 7) % std::size(special)];
           Tensor x = Make(v, {64, 64}, dtype, dev);
           Tensor y = x.Slice({Slice{0, std::nullopt, -1}});  // another order of the same values
           Outputs out;
           out.push_back(Read(x.Exp(), "exp"));
           out.push_back(Read(x.Log(), "log"));
           out.push_back(Read(x.Log1p(), "log1p"));
           out.push_back(Read(x.Sqrt(), "sqrt"));
           out.push_back(Read(x.Recip(), "recip"));
           out.push_back(Read(x.Sin(), "sin"));
           out.push_back(Read(x.Cos(), "cos"));
           out.push_back(Read(x.Tanh(), "tanh"));
           out.push_back(Read(x.Erf(), "erf"));
           out.push_back(Read(x.Abs(), "abs"));
           out.push_back(Read(x.Neg(), "neg"));
           out.push_back(Read(x.Clamp(-1, 1), "clamp"));
           out.push_back(Read(x.Powf(2.0), "square"));
           out.push_back(Read(x.Powf(y), "powf"));
           out.push_back(Read(x / y, "div"));
           out.push_back(Read(x * y, "mul"));
           out.push_back(Read(x + y, "add"));
           out.push_back(Read(x - y, "sub"));
           out.push_back(Read(x / 0.0, "div_by_zero"));
           out.push_back(Read(x.Rem(y), "rem"));
           out.push_back(Read(x.Equal(x), "nan_is_not_equal"));
           out.push_back(Read(x.Lower(y), "lower"));
           out.push_back(Read(x.GreaterEqual(0.0), "ge_zero"));
           out.push_back(Read(x.Cast(DType::kI32), "to_i32"));
           out.push_back(Read(x.Cast(DType::kI64), "to_i64"));
           out.push_back(Read(x.Cast(DType::kBool), "to_bool"));
           out.push_back(Read(x.MaxDim(1), "max"));
           out.push_back(Read(x.MinDim(0), "min"));
           out.push_back(Read(x.ArgMax(1), "argmax"));
           out.push_back(Read(x.ArgMin(0), "argmin"));
           // A sum over +-3e38 cancels catastrophically, and where the small terms vanish then
           // depends on the order of the additions, which a GPU reduction does not share with
           // the CPU's loop: the sum is compared over magnitudes that keep every term.
           out.push_back(Read(x.Clamp(-1e4, 1e4).SumDim(1), "sum"));
           return out;
         }});
  }
}

inline void AddBinary(std::vector<OpCase>& cases) {
  for (DType dtype : kNumeric) {
    const bool fl = IsFloat(dtype);
    cases.push_back({"Binary_" + Name(dtype),
                     [dtype, fl](Device dev, HostData& data) {
                       const double r = fl ? 4 : 1000;
                       Tensor a = Input(data, dev, kShape, dtype, -r, r);
                       Tensor b = Input(data, dev, {66, 1}, dtype, -r, r);
                       Tensor c = Input(data, dev, {1, 257}, dtype, -r, r);
                       Tensor d = Input(data, dev, {7, 1, 257}, dtype, -r, r);
                       // Divisors away from 0 for floats (ints divide by 0 in their own case).
                       Tensor pos = Input(data, dev, {257}, dtype, fl ? 0.5 : 1, fl ? 2 : 50);
                       Outputs out;
                       out.push_back(Read(a + b, "add_col"));
                       out.push_back(Read(a - c, "sub_row"));
                       out.push_back(Read(a * d, "mul_plane"));
                       out.push_back(Read(a / pos, "div_row"));
                       out.push_back(Read(-pos / a.Abs().Clamp(fl ? 0.25 : 1, 1e9), "div_into"));
                       out.push_back(Read(b + c, "outer_add"));  // both sides broadcast
                       out.push_back(Read(a.SwapDims(0, 2) * d.SwapDims(0, 2), "mul_transposed"));
                       return out;
                     },
                     fl ? 1.0 : 0.0});
    cases.push_back({"Scalar_" + Name(dtype),
                     [dtype, fl](Device dev, HostData& data) {
                       const double r = fl ? 4 : 1000;
                       Tensor a = Input(data, dev, kShape, dtype, -r, r);
                       const double s = fl ? 2.5 : 3, t = fl ? -1.75 : -2;
                       Outputs out;
                       out.push_back(Read(a + s, "x_plus_s"));
                       out.push_back(Read(s + a, "s_plus_x"));
                       out.push_back(Read(a - t, "x_minus_s"));
                       out.push_back(Read(t - a, "s_minus_x"));
                       out.push_back(Read(a * t, "x_times_s"));
                       out.push_back(Read(s * a, "s_times_x"));
                       out.push_back(Read(a / s, "x_over_s"));
                       out.push_back(Read(a / t, "x_over_negative_s"));
                       out.push_back(Read(1.0 / (a.Abs() + 1.0), "s_over_x"));
                       out.push_back(Read(-a, "minus_x"));
                       return out;
                     },
                     fl ? 1.0 : 0.0});
  }
}

// Rem with negative operands on both sides: the result takes the divisor's sign. Float operands
// are quarters, so every quotient that is an integer is exact and no element sits on a jump.
inline void AddRem(std::vector<OpCase>& cases) {
  for (DType dtype : kNumeric) {
    cases.push_back({"Rem_" + Name(dtype),
                     [dtype](Device dev, HostData& data) {
                       const bool fl = IsFloat(dtype);
                       Tensor a = Steps(data, dev, kShape, dtype, fl ? -10 : -100, fl ? 10 : 100);
                       // Divisors of both signs, never 0 here.
                       std::vector<float> d = data.Quarters(257, 1, 12);
                       for (size_t i = 0; i < d.size(); i += 2) d[i] = -d[i];
                       if (!fl) {
                         for (float& x : d) x = std::trunc(x) == 0 ? 3 : std::trunc(x);
                       }
                       Tensor b = Make(d, {257}, dtype, dev);
                       return Outputs{Read(a.Rem(b), "rem"), Read(a.Rem(3.0), "rem_3"),
                                      Read(a.Rem(-2.0), "rem_minus_2"),
                                      Read((-a).Rem(b.Abs()), "negated_rem")};
                     },
                     0});
  }
}

// Integer division and remainder by zero give 0 (CpuElementwise's
// IntegerDivisionOrRemainderByZeroGivesZero); integer division truncates toward zero.
inline void AddIntDivision(std::vector<OpCase>& cases) {
  for (DType dtype : {DType::kI32, DType::kI64}) {
    cases.push_back({"IntDivision_" + Name(dtype),
                     [dtype](Device dev, HostData& data) {
                       Tensor a = Input(data, dev, kShape, dtype, -1000, 1000);
                       Tensor b = Input(data, dev, {257}, dtype, -3, 3);  // zeros among them
                       return Outputs{Read(a / b, "div"),
                                      Read(a.Rem(b), "rem"),
                                      Read(a / 0.0, "div_scalar_zero"),
                                      Read(a.Rem(0.0), "rem_scalar_zero"),
                                      Read(a / 7.0, "div_7"),
                                      Read(a / -7.0, "div_minus_7"),
                                      Read(100.0 / b, "scalar_over_x")};
                     },
                     0});
  }
}

inline void AddComparisons(std::vector<OpCase>& cases) {
  for (DType dtype : kNumeric) {
    cases.push_back({"Compare_" + Name(dtype),
                     [dtype](Device dev, HostData& data) {
                       Tensor a = Steps(data, dev, kShape, dtype, -3, 3);
                       Tensor b = Steps(data, dev, {66, 1}, dtype, -3, 3);
                       const double s = IsFloat(dtype) ? 0.5 : 1.0;
                       return Outputs{Read(a.Equal(b), "eq"),
                                      Read(a.Lower(b), "lt"),
                                      Read(a.Greater(b), "gt"),
                                      Read(a.LowerEqual(b), "le"),
                                      Read(a.GreaterEqual(b), "ge"),
                                      Read(a.Equal(s), "eq_s"),
                                      Read(a.Lower(s), "lt_s"),
                                      Read(a.Greater(s), "gt_s"),
                                      Read(a.LowerEqual(s), "le_s"),
                                      Read(a.GreaterEqual(s), "ge_s"),
                                      Read(a.SwapDims(1, 2).Lower(0.0), "lt_transposed")};
                     },
                     0});
  }
  cases.push_back({"Compare_bool",
                   [](Device dev, HostData& data) {
                     Tensor a = Input(data, dev, kShape, DType::kBool, 0, 1);
                     Tensor b = Input(data, dev, {1, 257}, DType::kBool, 0, 1);
                     return Outputs{Read(a.Equal(b), "eq"), Read(a.Equal(1.0), "eq_true"),
                                    Read(a.Equal(0.0), "eq_false")};
                   },
                   0});
}

inline void AddMasks(std::vector<OpCase>& cases) {
  for (DType dtype : kAll) {
    cases.push_back({"Mask_" + Name(dtype),
                     [dtype](Device dev, HostData& data) {
                       Tensor x = Input(data, dev, kShape, dtype, -100, 100);
                       Tensor value = Input(data, dev, {1, 257}, dtype, -100, 100);
                       Tensor mask = Input(data, dev, kShape, DType::kBool, 0, 1);
                       Tensor col_mask = Input(data, dev, {66, 1}, DType::kBool, 0, 1);
                       const double fill = dtype == DType::kBool ? 1.0 : IsFloat(dtype) ? -7.5 : -7;
                       return Outputs{Read(x.MaskWhere(mask, value), "where"),
                                      Read(x.MaskWhere(col_mask, value), "where_broadcast_mask"),
                                      Read(x.MaskFill(mask, fill), "fill"),
                                      Read(x.MaskFill(col_mask, fill), "fill_broadcast_mask")};
                     },
                     0});
  }
}

// Casts between all six dtypes, from values that exercise every rule: fractions (truncation),
// values beyond i32 and i64 (saturation), NaN (0), infinities, f16 overflow and underflow,
// i64 beyond i32 (wrapping) and beyond 2^24 (rounding to f32).
inline void AddCasts(std::vector<OpCase>& cases) {
  for (DType from : kAll) {
    cases.push_back({"Cast_from_" + Name(from),
                     [from](Device dev, HostData& data) {
                       const float inf = std::numeric_limits<float>::infinity();
                       Tensor x;
                       if (IsFloat(from)) {
                         std::vector<float> v = data.Uniform(kN, -5, 5);
                         const float special[] = {std::nanf(""), inf,       -inf,  -0.0f,
                                                  0.5f,          -0.5f,     2.5f,  -2.5f,
                                                  3e9f,          -3e9f,     1e19f, -1e19f,
                                                  65504.f,       70000.f,   1e-8f, 2147483520.f,
                                                  -2147483648.f, 16777217.f};
                         for (size_t i = 0; i < v.size(); i += 5) {
                           v[i] = special[(i / 5) % std::size(special)];
                         }
                         for (size_t i = 3; i < v.size(); i += 11) v[i] *= 1e4f;
                         x = Make(v, kShape, from, dev);
                       } else if (from == DType::kBool) {
                         x = Input(data, dev, kShape, from, 0, 1);
                       } else {
                         std::vector<int64_t> v = data.Ints(kN, -1000, 1000);
                         for (size_t i = 0; i < v.size(); i += 3) {
                           v[i] = data.Ints(1, -6'000'000'000, 6'000'000'000)[0];
                         }
                         if (from == DType::kI32) {
                           for (int64_t& e : v) e = static_cast<int32_t>(e);
                         }
                         x = MakeInt(v, kShape, from, dev);
                       }
                       Outputs out;
                       for (DType to : kAll) {
                         out.push_back(Read(x.Cast(to), "to_" + Name(to)));
                         out.push_back(Read(x.Cast(to).Cast(from), "round_trip_" + Name(to)));
                       }
                       out.push_back(Read(x.SwapDims(0, 2).Cast(DType::kF32), "transposed"));
                       return out;
                     },
                     0});
  }
}

}  // namespace ember::gpu::public_ops

// Every public op of ember::Tensor (engine/api/include/ember/tensor.h) on Device::Cuda(0)
// against Device::Cpu(), the oracle, with fusion off on both (each op is its own kernel): the
// same host inputs (HostData, drawn with std::mt19937 from the seed printed at the start),
// compared under Note [GPU tolerances] (gpu_test_util.h). Cases that only move or convert
// values (creation, casts, views, gathers, comparisons on host data, min/max/arg reductions,
// integer math, uniform random numbers) must agree exactly.
//
// The semantics pinned here are the CPU backend's (tests/api/values_test.cpp,
// tests/runtime/cpu/cpu_*_test.cpp, docs/API.md): float -> int truncates, saturates and maps NaN to
// 0; i64 -> i32 wraps; Rem takes the divisor's sign; integer division and remainder by zero
// give 0; NaN propagates through MaxDim/MinDim; an out-of-range index (negative ones too)
// gathers 0; Random ops give the same values for the same seed on every device.
//
// Until the CUDA backend exists every case skips, saying why (Device::Cuda(0)'s message).
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>

#include "tests/gpu/gpu_test_util.h"

namespace ember::gpu {
namespace {

using Outputs = std::vector<ProgramOutput>;

struct OpCase {
  std::string name;
  // Builds the inputs on `device` from `data` (drawn alike for both devices), runs the ops,
  // and reads every result back.
  std::function<Outputs(Device device, HostData& data)> run;
  // Multiplies the tolerances of Note [GPU tolerances]; 0: the bits must be equal.
  double tolerance_scale = 1.0;
};

// gtest prints a parameter in test listings (and CTest's test names): the case's name.
void PrintTo(const OpCase& c, std::ostream* os) { *os << c.name; }

// A stable salt from the case's name, so each case draws its own inputs.
uint64_t Salt(const std::string& name) {
  uint64_t h = 1469598103934665603ull;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

constexpr DType kFloats[] = {DType::kF32, DType::kF16, DType::kBF16};
constexpr DType kNumeric[] = {DType::kF32, DType::kF16, DType::kBF16, DType::kI32, DType::kI64};
constexpr DType kAll[] = {DType::kF32, DType::kF16, DType::kBF16,
                          DType::kI32, DType::kI64, DType::kBool};

// The rank-3 shape most cases use: odd sizes, so no kernel gets away with whole blocks, and
// more elements than one thread block holds.
const std::vector<int64_t> kShape = {7, 66, 257};
const size_t kN = static_cast<size_t>(Numel(kShape));

std::string Name(DType dtype) { return std::string(DTypeName(dtype)); }

// Values of `dtype` in [lo, hi] on `device`: uniform reals for float dtypes, integers for the
// others (bool: random).
Tensor Input(HostData& data, Device device, const std::vector<int64_t>& shape, DType dtype,
             double lo, double hi) {
  const size_t n = static_cast<size_t>(Numel(shape));
  if (IsFloat(dtype)) {
    return Make(data.Uniform(n, static_cast<float>(lo), static_cast<float>(hi)), shape, dtype,
                device);
  }
  if (dtype == DType::kBool) {
    const std::vector<bool> b = data.Bools(n);
    return Tensor::FromVector<bool>(std::vector<bool>(b), shape, device);
  }
  return MakeInt(data.Ints(n, static_cast<int64_t>(std::ceil(lo)), static_cast<int64_t>(hi)), shape,
                 dtype, device);
}

// Multiples of 1/4 (floats) or integers (ints) in [lo, hi]: ties and equalities happen.
Tensor Steps(HostData& data, Device device, const std::vector<int64_t>& shape, DType dtype, int lo,
             int hi) {
  const size_t n = static_cast<size_t>(Numel(shape));
  if (IsFloat(dtype)) return Make(data.Quarters(n, lo, hi), shape, dtype, device);
  return MakeInt(data.Ints(n, lo, hi), shape, dtype, device);
}

// --- The cases ---------------------------------------------------------------------------------

void AddCreation(std::vector<OpCase>& cases) {
  for (DType dtype : kAll) {
    cases.push_back({"Creation_" + Name(dtype),
                     [dtype](Device dev, HostData& data) {
                       Outputs out;
                       out.push_back(Read(Make(data.Uniform(kN, -3e4f, 3e4f), kShape, dtype, dev),
                                          "from_floats"));
                       out.push_back(Read(Tensor::Zeros(kShape, dtype, dev), "zeros"));
                       out.push_back(Read(Tensor::Ones({5, 3}, dtype, dev), "ones"));
                       const double v = IsFloat(dtype) ? -3.75 : dtype == DType::kBool ? 1 : -3;
                       out.push_back(Read(Tensor::Full(kShape, v, dtype, dev), "full"));
                       out.push_back(Read(Tensor::Full({}, IsFloat(dtype) ? 2.5 : 1, dtype, dev),
                                          "full_rank0"));
                       return out;
                     },
                     0});
  }
  cases.push_back(
      {"Creation_typed",
       [](Device dev, HostData& data) {
         Outputs out;
         out.push_back(
             Read(Tensor::FromVector<float>(data.Uniform(kN, -1, 1), kShape, dev), "float"));
         const std::vector<int64_t> i64 = data.Ints(kN, -5'000'000'000, 5'000'000'000);
         out.push_back(Read(Tensor::FromVector<int64_t>(i64, kShape, dev), "int64"));
         const std::vector<int64_t> i32 = data.Ints(kN, std::numeric_limits<int32_t>::min(),
                                                    std::numeric_limits<int32_t>::max());
         out.push_back(Read(
             Tensor::FromVector<int32_t>(std::vector<int32_t>(i32.begin(), i32.end()), kShape, dev),
             "int32"));
         const std::vector<bool> b = data.Bools(kN);
         out.push_back(Read(Tensor::FromVector<bool>(std::vector<bool>(b), kShape, dev), "bool"));
         return out;
       },
       0});
}

void AddRandom(std::vector<OpCase>& cases) {
  for (DType dtype : kFloats) {
    // Uniform: the same bits on every device for one seed (docs/API.md, ember::Seed).
    cases.push_back(
        {"RandomUniform_" + Name(dtype),
         [dtype](Device dev, HostData&) {
           Seed(dev, InputSeed());
           Tensor a = Tensor::RandomUniform(kShape, dtype, dev, -2.0, 3.0);
           Tensor b = Tensor::RandomUniform({1000}, dtype, dev);  // the next draws
           Seed(dev, InputSeed() + 1);
           Tensor c = Tensor::RandomUniform({33, 65}, dtype, dev, 5.0, 5.5);
           return Outputs{Read(a, "uniform"), Read(b, "uniform_next"), Read(c, "reseeded")};
         },
         0});
    // Normal: Box-Muller in double on both; the GPU's log/sqrt/cos may differ in the last bit.
    cases.push_back({"RandomNormal_" + Name(dtype), [dtype](Device dev, HostData&) {
                       Seed(dev, InputSeed());
                       Tensor a = Tensor::RandomNormal(kShape, dtype, dev, 0.5, 2.0);
                       Tensor b = Tensor::RandomNormal({999}, dtype, dev);  // odd: a lone pair half
                       return Outputs{Read(a, "normal"), Read(b, "normal_next")};
                     }});
  }
}

struct UnaryOp {
  const char* name;
  double lo, hi;  // the input's domain
  std::function<Tensor(const Tensor&)> op;
};

const std::vector<UnaryOp>& UnaryOps() {
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

void AddUnary(std::vector<OpCase>& cases) {
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
void AddSpecialValues(std::vector<OpCase>& cases) {
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

void AddBinary(std::vector<OpCase>& cases) {
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
void AddRem(std::vector<OpCase>& cases) {
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
void AddIntDivision(std::vector<OpCase>& cases) {
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

void AddComparisons(std::vector<OpCase>& cases) {
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

void AddMasks(std::vector<OpCase>& cases) {
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
void AddCasts(std::vector<OpCase>& cases) {
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

void AddViews(std::vector<OpCase>& cases) {
  for (DType dtype : {DType::kF32, DType::kBF16, DType::kI64, DType::kBool}) {
    cases.push_back(
        {"Views_" + Name(dtype),
         [dtype](Device dev, HostData& data) {
           Tensor x = Input(data, dev, kShape, dtype, -100, 100);
           Tensor col = Input(data, dev, {66, 1}, dtype, -100, 100);
           Outputs out;
           out.push_back(Read(x.Reshape({-1, 257}), "reshape"));
           out.push_back(Read(x.Reshape({static_cast<int64_t>(kN)}), "flatten"));
           out.push_back(Read(x.SwapDims(0, 2), "swap_0_2"));
           out.push_back(Read(x.SwapDims(-1, -2), "swap_last"));
           for (std::vector<int64_t> axes : std::vector<std::vector<int64_t>>{
                    {0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}) {
             out.push_back(Read(x.Permute(axes), "permute_" + testing::ShapeText(axes)));
           }
           out.push_back(Read(x.Slice({Slice{1, 5, 2}, Slice{-10}, Slice{0, std::nullopt, -3}}),
                              "slice_mixed"));
           out.push_back(Read(x.Slice({Slice{2}}), "slice_first_dim"));
           out.push_back(Read(x.Slice({Slice{-100, 100}, Slice{3, 4}}), "slice_clamped"));
           out.push_back(
               Read(x.Slice({Slice{0, 3, -2}, Slice{0, std::nullopt, -1}}), "slice_backwards"));
           out.push_back(Read(col.Expand({7, 66, 257}), "expand_new_dims"));
           out.push_back(Read(col.Expand({-1, 9}), "expand_keep"));
           // Views of views, then a reshape that must copy.
           out.push_back(Read(x.SwapDims(0, 1).Slice({Slice{1, std::nullopt, 3}}).Reshape({-1}),
                              "view_chain"));
           return out;
         },
         0});
  }
  cases.push_back({"Cat",
                   [](Device dev, HostData& data) {
                     Outputs out;
                     for (DType dtype : {DType::kF32, DType::kF16, DType::kI32, DType::kBool}) {
                       Tensor a = Input(data, dev, {3, 5, 7}, dtype, -9, 9);
                       Tensor b = Input(data, dev, {2, 5, 7}, dtype, -9, 9);
                       Tensor c = Input(data, dev, {3, 4, 7}, dtype, -9, 9);
                       Tensor d = Input(data, dev, {3, 5, 1}, dtype, -9, 9);
                       out.push_back(Read(Cat({a, b, a}, 0), "cat0_" + Name(dtype)));
                       out.push_back(Read(Cat({c, a}, 1), "cat1_" + Name(dtype)));
                       out.push_back(Read(Cat({a, d, a.Slice({Slice{0, std::nullopt, -1}})}, -1),
                                          "cat_last_" + Name(dtype)));
                     }
                     return out;
                   },
                   0});
}

// Gather and Select along every dim; indices include repeats, negative ones and ones past the
// end, which give 0 (docs/API.md, "Indexing").
void AddIndexing(std::vector<OpCase>& cases) {
  for (DType dtype : {DType::kF32, DType::kF16, DType::kI64, DType::kBool}) {
    for (DType index_dtype : {DType::kI32, DType::kI64}) {
      cases.push_back(
          {"Indexing_" + Name(dtype) + "_" + Name(index_dtype),
           [dtype, index_dtype](Device dev, HostData& data) {
             Tensor x = Input(data, dev, kShape, dtype, -100, 100);
             Outputs out;
             for (int64_t dim = 0; dim < 3; ++dim) {
               const int64_t size = kShape[static_cast<size_t>(dim)];
               std::vector<int64_t> shape = kShape;
               shape[static_cast<size_t>(dim)] = 5;
               const std::vector<int64_t> idx =
                   data.Ints(static_cast<size_t>(Numel(shape)), -3, size + 2);
               Tensor indices = MakeInt(idx, shape, index_dtype, dev);
               out.push_back(Read(x.Gather(dim, indices), "gather_" + std::to_string(dim)));
               const std::vector<int64_t> sel = {size - 1, 0, -1, size, 1, 1, size + 5};
               Tensor list = MakeInt(sel, {7}, index_dtype, dev);
               out.push_back(Read(x.Select(dim, list), "select_" + std::to_string(dim)));
               out.push_back(Read(x.Select(dim - 3, list), "select_negative_dim"));
             }
             return out;
           },
           0});
    }
  }
}

// Every reduction along every axis (positive and negative spellings) of the rank-3 shape.
void AddReductions(std::vector<OpCase>& cases) {
  for (DType dtype : kNumeric) {
    const bool fl = IsFloat(dtype);
    cases.push_back({"Reduce_" + Name(dtype),
                     [dtype, fl](Device dev, HostData& data) {
                       Tensor x = Input(data, dev, kShape, dtype, fl ? -2 : -500, fl ? 2 : 500);
                       Outputs out;
                       for (int64_t dim : {0, 1, 2, -1, -2, -3}) {
                         const std::string d = std::to_string(dim);
                         out.push_back(Read(x.SumDim(dim), "sum_" + d));
                         out.push_back(Read(x.MeanDim(dim), "mean_" + d));
                       }
                       out.push_back(Read((x + (fl ? 3.0 : 600.0)).Sum(), "sum_all"));
                       out.push_back(Read((x + (fl ? 3.0 : 600.0)).Mean(), "mean_all"));
                       out.push_back(Read(x.SwapDims(0, 2).SumDim(1), "sum_transposed"));
                       return out;
                     },
                     fl ? 1.0 : 0.0});
    cases.push_back({"ReduceProd_" + Name(dtype),
                     [dtype, fl](Device dev, HostData& data) {
                       // Near 1 (floats) or small ints on short axes, so products stay in range.
                       Tensor x = fl ? Input(data, dev, kShape, dtype, 0.95, 1.05)
                                     : Input(data, dev, {7, 6, 5}, dtype, -3, 3);
                       Outputs out;
                       for (int64_t dim : {0, 1, 2, -1}) {
                         out.push_back(Read(x.ProdDim(dim), "prod_" + std::to_string(dim)));
                       }
                       return out;
                     },
                     fl ? 1.0 : 0.0});
    // Selections are exact; quarters and small ints give ties (the first index wins).
    cases.push_back({"ReduceSelect_" + Name(dtype),
                     [dtype](Device dev, HostData& data) {
                       Tensor x = Steps(data, dev, kShape, dtype, -4, 4);
                       Tensor y = Input(data, dev, kShape, dtype, -100, 100);
                       Outputs out;
                       for (int64_t dim : {0, 1, 2, -1, -2, -3}) {
                         const std::string d = std::to_string(dim);
                         out.push_back(Read(x.MaxDim(dim), "max_" + d));
                         out.push_back(Read(x.MinDim(dim), "min_" + d));
                         out.push_back(Read(x.ArgMax(dim), "argmax_ties_" + d));
                         out.push_back(Read(x.ArgMin(dim), "argmin_ties_" + d));
                         out.push_back(Read(y.ArgMax(dim), "argmax_" + d));
                         out.push_back(Read(y.ArgMin(dim), "argmin_" + d));
                       }
                       return out;
                     },
                     0});
  }
  // NaN propagates through MaxDim and MinDim (CpuReduce's NanPropagatesThroughMaxMinAndArgs).
  for (DType dtype : kFloats) {
    cases.push_back({"ReduceNan_" + Name(dtype), [dtype](Device dev, HostData& data) {
                       std::vector<float> v = data.Uniform(kN, -2, 2);
                       for (size_t i = 17; i < v.size(); i += 1301) v[i] = std::nanf("");
                       Tensor x = Make(v, kShape, dtype, dev);
                       Outputs out;
                       for (int64_t dim : {0, 1, 2}) {
                         const std::string d = std::to_string(dim);
                         out.push_back(Read(x.MaxDim(dim), "max_" + d));
                         out.push_back(Read(x.MinDim(dim), "min_" + d));
                         out.push_back(Read(x.ArgMax(dim), "argmax_" + d));
                         out.push_back(Read(x.ArgMin(dim), "argmin_" + d));
                         out.push_back(Read(x.SumDim(dim), "sum_" + d));
                       }
                       out.push_back(Read(x.Sum(), "sum_all"));
                       return out;
                     }});
  }
  // Int Mean truncates; long rows, so a GPU reduction has several rounds.
  for (DType dtype : {DType::kI32, DType::kI64}) {
    cases.push_back({"ReduceLongRows_" + Name(dtype),
                     [dtype](Device dev, HostData& data) {
                       Tensor x = Input(data, dev, {3, 50000}, dtype, -100, 100);
                       return Outputs{Read(x.SumDim(1), "sum"), Read(x.MeanDim(1), "mean"),
                                      Read(x.Mean(), "mean_all"), Read(x.MaxDim(1), "max"),
                                      Read(x.ArgMin(1), "argmin")};
                     },
                     0});
  }
  cases.push_back({"ReduceLongRows_f32", [](Device dev, HostData& data) {
                     Tensor x = Input(data, dev, {3, 50000}, DType::kF32, -1, 3);
                     return Outputs{Read(x.SumDim(1), "sum"), Read(x.MeanDim(1), "mean"),
                                    Read(x.SumDim(0), "sum_columns"), Read(x.Sum(), "sum_all")};
                   }});
}

void AddMatmul(std::vector<OpCase>& cases) {
  for (DType dtype : kNumeric) {
    const bool fl = IsFloat(dtype);
    cases.push_back({"Matmul_" + Name(dtype),
                     [dtype, fl](Device dev, HostData& data) {
                       const double r = fl ? 1 : 10;
                       Outputs out;
                       Tensor a = Input(data, dev, {67, 129}, dtype, -r, r);
                       Tensor b = Input(data, dev, {129, 33}, dtype, -r, r);
                       out.push_back(Read(a.Matmul(b), "odd_sizes"));
                       Tensor c = Input(data, dev, {256, 512}, dtype, -r, r);
                       Tensor d = Input(data, dev, {512, 128}, dtype, -r, r);
                       out.push_back(Read(c.Matmul(d), "square_blocks"));
                       // Batch dims broadcast: [2,1,33,65] x [3,65,17] -> [2,3,33,17].
                       Tensor e = Input(data, dev, {2, 1, 33, 65}, dtype, -r, r);
                       Tensor f = Input(data, dev, {3, 65, 17}, dtype, -r, r);
                       out.push_back(Read(e.Matmul(f), "batched_broadcast"));
                       Tensor g = Input(data, dev, {33, 65}, dtype, -r, r);
                       out.push_back(Read(g.Matmul(f), "rank2_times_batch"));
                       // Transposed operands (strided views).
                       out.push_back(Read(b.SwapDims(0, 1).Matmul(a.SwapDims(0, 1)), "transposed"));
                       Tensor v = Input(data, dev, {129, 1}, dtype, -r, r);
                       out.push_back(Read(a.Matmul(v), "matrix_vector"));
                       return out;
                     },
                     fl ? 1.0 : 0.0});
  }
}

std::vector<OpCase> AllCases() {
  std::vector<OpCase> cases;
  AddCreation(cases);
  AddRandom(cases);
  AddUnary(cases);
  AddSpecialValues(cases);
  AddBinary(cases);
  AddRem(cases);
  AddIntDivision(cases);
  AddComparisons(cases);
  AddMasks(cases);
  AddCasts(cases);
  AddViews(cases);
  AddIndexing(cases);
  AddReductions(cases);
  AddMatmul(cases);
  return cases;
}

// --- The test ----------------------------------------------------------------------------------

class PublicOps : public ::testing::TestWithParam<OpCase> {
 protected:
  static void SetUpTestSuite() { UseFusion(false); }
  static void TearDownTestSuite() { UseFusion(true); }
};

// Runs the case on `device`; an ember::Error (an op the backend cannot run) becomes the message.
Outputs RunOn(const OpCase& c, Device device, std::string* error) {
  HostData data(Salt(c.name));
  try {
    return c.run(device, data);
  } catch (const Error& e) {
    *error = e.what();
    return {};
  }
}

TEST_P(PublicOps, CudaMatchesCpuWithFusionOff) {
  EMBER_CUDA_OR_SKIP(cuda);
  const OpCase& c = GetParam();
  std::string cpu_error, gpu_error;
  const Outputs want = RunOn(c, Device::Cpu(), &cpu_error);
  ASSERT_EQ(cpu_error, "") << "the CPU run threw (a test bug)";
  const Outputs got = RunOn(c, cuda, &gpu_error);
  ASSERT_EQ(gpu_error, "") << c.name << " threw on " << cuda.ToString();
  EXPECT_EQ(CompareAll(want, got, {.tolerance_scale = c.tolerance_scale}), "")
      << c.name << " (inputs from seed " << InputSeed() << ")";
  EXPECT_EQ(GetStats(cuda).fused_executions, 0u) << "fusion is off";
}

INSTANTIATE_TEST_SUITE_P(All, PublicOps, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<OpCase>& case_info) {
                           return case_info.param.name;
                         });

// The suite itself must cover what it claims (every op family, every dtype), GPU or not.
TEST(PublicOpsCoverage, EveryFamilyAndDtypeHasCases) {
  const std::vector<OpCase> cases = AllCases();
  for (const char* prefix :
       {"Creation_", "RandomUniform_", "RandomNormal_", "Unary_",       "SpecialValues_",
        "Binary_",   "Scalar_",        "Rem_",          "IntDivision_", "Compare_",
        "Mask_",     "Cast_from_",     "Views_",        "Cat",          "Indexing_",
        "Reduce_",   "ReduceProd_",    "ReduceSelect_", "ReduceNan_",   "Matmul_"}) {
    EXPECT_TRUE(std::any_of(cases.begin(), cases.end(), [&](const OpCase& c) {
      return c.name.rfind(prefix, 0) == 0;
    })) << prefix;
  }
  for (DType dtype : kAll) {
    EXPECT_TRUE(std::any_of(cases.begin(), cases.end(), [&](const OpCase& c) {
      return c.name == "Cast_from_" + Name(dtype);
    })) << Name(dtype);
  }
  // And every case runs on the CPU without throwing (the GPU comparison depends on it).
  UseFusion(false);
  for (const OpCase& c : cases) {
    std::string error;
    const Outputs out = RunOn(c, Device::Cpu(), &error);
    EXPECT_EQ(error, "") << c.name;
    EXPECT_FALSE(out.empty()) << c.name;
  }
  UseFusion(true);
}

}  // namespace
}  // namespace ember::gpu

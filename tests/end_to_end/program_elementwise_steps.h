// ElementwiseSteps: the steps of a random program (program_generator.h) that keep their operand's
// shape or broadcast it: unary, binary (with a partner that broadcasts), scalar, clamp, compare
// and mask, cast. Each picks its operands from the pool and fixes them up before its op.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include <ember/ember.h>

#include "tests/end_to_end/program_emitters.h"

namespace ember::testing {

class ElementwiseSteps : public ProgramEmitters {
 protected:
  using ProgramEmitters::ProgramEmitters;

  void UnaryStep() {
    const auto x = Pick(IsNumericValue);
    if (!x) return;
    if (!IsFloatValue(Get(*x))) {
      EmitUnary(Chance(0.5) ? Un::kAbs : Un::kNeg, *x);
      return;
    }
    const Un op = static_cast<Un>(Weighted({3, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1, 1}));
    int id = *x;
    switch (op) {
      case Un::kExp: id = TameAbove(id, 10); break;
      case Un::kLog: id = MakePositive(id, 1e-3); break;
      case Un::kLog1p:
        if (Get(id).range.lo <= -0.5) id = MakePositive(id, 0);
        break;
      case Un::kSqrt:
        if (Get(id).range.lo < 0) id = EmitUnary(Un::kAbs, id);
        break;
      case Un::kRecip: id = MakeAwayFromZero(id, 0.05); break;
      case Un::kSquare: id = Tame(id, 100); break;
      default: break;
    }
    EmitUnary(op, id);
  }

  // Numpy broadcasting of two shapes; nullopt when they do not broadcast.
  static std::optional<std::vector<int64_t>> Broadcast(const std::vector<int64_t>& a,
                                                       const std::vector<int64_t>& b) {
    std::vector<int64_t> out(std::max(a.size(), b.size()));
    for (size_t i = 1; i <= out.size(); ++i) {
      const int64_t x = i <= a.size() ? a[a.size() - i] : 1;
      const int64_t y = i <= b.size() ? b[b.size() - i] : 1;
      if (x != y && x != 1 && y != 1) return std::nullopt;
      out[out.size() - i] = std::max(x, y);
    }
    return out;
  }
  static int64_t Numel(const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }

  // A live value of `x`'s dtype that broadcasts with it, other than `x`. Mostly one side
  // broadcasts into the other ([m,n] with [1,n], [m,1], [n]); sometimes both grow ([m,1] with
  // [1,n]: the result is larger than either operand).
  std::optional<int> Partner(int x_id) {
    const Value& x = Get(x_id);
    const DType dtype = x.dtype();
    const std::vector<int64_t> shape = x.shape();
    const bool outer = Chance(0.15);
    return Pick([&](const Value& v) {
      if (v.id == x_id || v.dtype() != dtype) return false;
      if (BroadcastsInto(v.shape(), shape) || BroadcastsInto(shape, v.shape())) return true;
      const auto both = Broadcast(shape, v.shape());
      return outer && both && Numel(*both) <= 100000;
    });
  }

  void BinaryStep() {
    const auto a0 = Pick(IsNumericValue);
    if (!a0) return;
    int a = *a0;
    std::optional<int> partner = Partner(a);
    if (!partner && !Chance(0.4)) return ScalarStep();
    const bool same = !partner;  // x op x: both operands share one value
    int b = same ? a : *partner;
    const bool is_float = IsFloatValue(Get(a));
    char op = OneOf({'+', '-', '*', '/'});
    if (!is_float && op == '/') op = '-';  // int division by 0 is defined (0), but dull
    // Fix-ups first (each may emit an op); `same` keeps both operands on one value.
    auto fix = [&](const std::function<int(int)>& f) {
      a = f(a);
      b = same ? a : f(b);
    };
    if (op == '*') {
      fix([&](int id) { return Tame(id, 100); });
    } else if (op == '/') {
      a = Tame(a, 1e3);
      b = same ? a : b;
      b = MakeAwayFromZero(b, 0.25);
      if (same) a = b;
    } else {
      fix([&](int id) { return Tame(id, 1e4); });
    }
    if (!IsLive(a) || !IsLive(b)) return;
    if (Chance(0.3)) std::swap(a, b);  // the smaller (broadcast) operand on the left too
    if (op == '/' && !Get(b).range.AwayFromZero(0.25)) std::swap(a, b);
    EmitBinary(op, a, b);
  }

  void ScalarStep() {
    const auto x0 = Pick(IsNumericValue);
    if (!x0) return;
    int x = *x0;
    if (!IsFloatValue(Get(x))) {
      x = Tame(x, 1e3);
      const char op = OneOf({'+', '-', '*'});
      EmitScalar(op, x, OneOf({1.0, 2.0, 3.0, -2.0}), Chance(0.3));
      return;
    }
    switch (Uniform(0, 5)) {
      case 0: EmitScalar('+', Tame(x, 1e4), OneOf({0.5, -1.0, 3.0, 1e-3}), Chance(0.3)); break;
      case 1: EmitScalar('-', Tame(x, 1e4), OneOf({0.5, -1.0, 3.0, 0.25}), Chance(0.3)); break;
      case 2: EmitScalar('*', Tame(x, 1e3), OneOf({0.5, 2.0, -1.5, 0.125, 10.0})); break;
      case 3: EmitScalar('/', Tame(x, 1e3), OneOf({2.0, 0.5, -3.0, 7.0})); break;
      case 4: EmitScalar('/', MakeAwayFromZero(x, 0.25), OneOf({1.0, -2.0, 0.5}), true); break;
      case 5: {
        // Rem: the result takes the divisor's sign (burn's remainder). Its operand stays small:
        // Rem keeps a computed float's absolute rounding error and drops its magnitude, so an
        // f32 operand near 1e3 (ulp 6e-5) gave results in [0, 2) that differ across backends
        // by far more than f32's tolerance, everywhere and not only at the jumps.
        const double s = OneOf({0.7, 1.5, -2.0});
        Arg a = Use(Tame(x, 8));
        MarkJump();  // Rem jumps by |s| at multiples of s
        Tensor t = std::move(a.t).Rem(s);
        Emit(std::move(t), "Rem(" + a.text + ", " + Num(s) + ")",
             {std::min(0.0, s), std::max(0.0, s)});
        break;
      }
    }
  }

  void ClampStep() {
    const auto x = Pick(IsNumericValue);
    if (!x) return;
    if (!IsFloatValue(Get(*x))) {
      EmitClamp(*x, -3, OneOf({0.0, 5.0}));
      return;
    }
    const double lo = OneOf({-2.0, -1.0, -0.5, 0.0, 0.25});
    EmitClamp(*x, lo, lo + OneOf({0.5, 1.0, 3.0}));
  }

  void MaskStep() {
    const auto a0 = Pick(IsNumericValue);
    if (!a0) return;
    const int a = *a0;
    const Cmp op = static_cast<Cmp>(Uniform(0, 4));
    const bool is_float = IsFloatValue(Get(a));
    const Range r = Get(a).range;
    std::optional<int> b = Chance(0.5) ? Partner(a) : std::nullopt;
    double s =
        is_float ? OneOf({0.0, 0.5, -0.25, (r.lo + r.hi) / 2}) : std::round((r.lo + r.hi) / 2);
    // Which tensor the mask selects on: `a` itself (relu-like) or another of its shape.
    const bool mask_after = Chance(0.75);
    const bool onto_a = mask_after && Chance(0.6);
    const int cond = EmitCompare(op, a, b, s, onto_a ? Live::kKeep : Live::kRandom);
    if (!mask_after) return;
    const std::vector<int64_t> cond_shape = Get(cond).shape();
    std::optional<int> x;
    if (onto_a && IsLive(a) && BroadcastsInto(cond_shape, Get(a).shape())) {
      x = a;
    } else {
      x = Pick([&](const Value& v) {
        return v.dtype() != DType::kBool && BroadcastsInto(cond_shape, v.shape());
      });
    }
    if (!x) return;
    const Value& xv = Get(*x);
    const DType dtype = xv.dtype();
    const std::vector<int64_t> x_shape = xv.shape();
    std::optional<int> value;
    if (Chance(0.5)) {
      value = Pick([&](const Value& v) {
        return v.dtype() == dtype && v.id != *x && BroadcastsInto(v.shape(), x_shape);
      });
    }
    if (value) {
      EmitMaskWhere(*x, cond, *value);
    } else {
      const double fill = IsFloat(dtype) ? OneOf({0.0, 1.0, -1.0, -30.0, 0.5}) : OneOf({0.0, 1.0});
      EmitMaskFill(*x, cond, fill);
    }
  }

  // An int value (a float one is cast to i32 or i64 first) through one to three of burn's
  // bitwise ops, with a partner of its dtype or a scalar mask; shifts by 1 to 4, by an amount
  // outside [0, 64) (0 or the sign fill), or by a partner masked to 0..3; sometimes cast back.
  void BitwiseStep() {
    const auto x0 = Pick(IsNumericValue);
    if (!x0) return;
    int id = *x0;
    if (IsFloatValue(Get(id)))
      id = EmitCast(Tame(id, 1e6), Chance(0.7) ? DType::kI32 : DType::kI64);
    const int ops = Uniform(1, 3);
    for (int k = 0; k < ops; ++k) {
      id = Tame(id, 1e6);
      const auto op = static_cast<Bit>(Uniform(0, 5));
      const bool shift = op == Bit::kLeftShift || op == Bit::kRightShift;
      std::optional<int> other = op != Bit::kNot && Chance(0.4) ? Partner(id) : std::nullopt;
      if (other && shift) other = EmitBitwise(Bit::kAnd, Tame(*other, 1e6), std::nullopt, 3);
      const int64_t s = shift ? OneOf<int64_t>({1, 2, 3, 4, -1, 64, 100})
                              : OneOf<int64_t>({0xff, 0x5a5a, -8, 7, int64_t{1} << 20});
      id = EmitBitwise(op, id, other, s);
    }
    if (Chance(0.5)) EmitCast(Tame(id, 3e4), dtype_);
  }

  void CastStep() {
    const auto x0 = Pick([](const Value&) { return true; });
    if (!x0) return;
    const Value& x = Get(*x0);
    if (x.dtype() != dtype_) {
      EmitCast(*x0, dtype_);
      return;
    }
    std::vector<DType> targets{DType::kBF16, DType::kI32};
    if (x.range.Mag() < 6e4) targets.push_back(DType::kF16);
    if (dtype_ != DType::kF32) targets.push_back(DType::kF32);
    if (Chance(0.15)) targets.push_back(DType::kI64);
    if (Chance(0.1)) targets.push_back(DType::kBool);
    std::erase(targets, dtype_);
    const DType to = targets[static_cast<size_t>(Uniform(0, static_cast<int>(targets.size()) - 1))];
    int id = EmitCast(IsInt(to) ? Tame(*x0, 1e6) : *x0, to);
    if (!Chance(0.6)) return;
    // A round trip, with an op in the other dtype in between sometimes.
    if (IsInt(to) && Chance(0.5)) {
      id = Chance(0.5) ? EmitUnary(Un::kAbs, id) : EmitScalar('*', Tame(id, 1e3), 2.0);
    } else if (IsFloat(to) && Chance(0.5)) {
      id = EmitUnary(OneOf({Un::kTanh, Un::kSin, Un::kNeg}), id);
    }
    EmitCast(id, dtype_);
  }
};

}  // namespace ember::testing

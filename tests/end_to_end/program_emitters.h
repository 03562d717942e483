// ProgramEmitters: the ops of a random program (program_generator.h), one emitter each: it
// applies the op through the public Tensor API, bounds the result by interval arithmetic unless
// the caller knows better, and lists it. The fix-ups (Tame, MakePositive, ...) emit the ops that
// bring a value into the range the next op needs.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ember/ember.h>

#include "tests/end_to_end/program_pool.h"
#include "tests/end_to_end/program_result.h"

namespace ember::testing {

class ProgramEmitters : public ProgramPool {
 protected:
  using ProgramPool::ProgramPool;

  enum class Un { kExp, kLog, kLog1p, kSqrt, kAbs, kNeg, kRecip, kSin, kCos, kTanh, kErf, kSquare };
  enum class Red { kSum, kMean, kProd, kMax, kMin, kArgMax, kArgMin };
  enum class Cmp { kEqual, kLower, kGreater, kLowerEqual, kGreaterEqual };
  enum class Bit { kAnd, kOr, kXor, kLeftShift, kRightShift, kNot };

  // --- Emitters: one op each, bounds by interval arithmetic unless `known` -----------------
  int EmitUnary(Un op, int x_id, Live live = Live::kRandom) {
    Arg x = Use(x_id, live);
    const Range r = x.range;
    Tensor t;
    std::string name;
    Range out;
    switch (op) {
      case Un::kExp:
        t = std::move(x.t).Exp();
        name = "Exp";
        out = {std::exp(r.lo), std::exp(r.hi)};
        break;
      case Un::kLog:
        t = std::move(x.t).Log();
        name = "Log";
        out = {std::log(r.lo), std::log(r.hi)};
        break;
      case Un::kLog1p:
        t = std::move(x.t).Log1p();
        name = "Log1p";
        out = {std::log1p(r.lo), std::log1p(r.hi)};
        break;
      case Un::kSqrt:
        t = std::move(x.t).Sqrt();
        name = "Sqrt";
        out = {std::sqrt(r.lo), std::sqrt(r.hi)};
        break;
      case Un::kAbs:
        MarkKeepsExact();
        t = std::move(x.t).Abs();
        name = "Abs";
        out = {r.lo <= 0 && r.hi >= 0 ? 0.0 : std::min(std::abs(r.lo), std::abs(r.hi)), r.Mag()};
        break;
      case Un::kNeg:
        MarkKeepsExact();
        t = std::move(x.t).Neg();
        name = "Neg";
        out = {-r.hi, -r.lo};
        break;
      case Un::kRecip:
        t = std::move(x.t).Recip();
        name = "Recip";
        out = {1.0 / r.hi, 1.0 / r.lo};
        break;
      case Un::kSin:
        t = std::move(x.t).Sin();
        name = "Sin";
        out = {-1, 1};
        break;
      case Un::kCos:
        t = std::move(x.t).Cos();
        name = "Cos";
        out = {-1, 1};
        break;
      case Un::kTanh:
        t = std::move(x.t).Tanh();
        name = "Tanh";
        out = {std::tanh(r.lo), std::tanh(r.hi)};
        break;
      case Un::kErf:
        t = std::move(x.t).Erf();
        name = "Erf";
        out = {std::erf(r.lo), std::erf(r.hi)};
        break;
      case Un::kSquare:
        t = std::move(x.t).Powf(2.0);
        name = "Powf2";
        out = {0, r.Mag() * r.Mag()};
        break;
    }
    return Emit(std::move(t), name + "(" + x.text + ")", out);
  }

  static Range Combine(char op, Range a, Range b) {
    switch (op) {
      case '+': return {a.lo + b.lo, a.hi + b.hi};
      case '-': return {a.lo - b.hi, a.hi - b.lo};
      case '/': b = {1.0 / b.hi, 1.0 / b.lo}; [[fallthrough]];
      case '*': {
        const double c[] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
        return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
      }
    }
    return {};
  }

  int EmitBinary(char op, int a_id, int b_id, std::optional<Range> known = {},
                 Live a_live = Live::kRandom, Live b_live = Live::kRandom) {
    // The same value on both sides: two shared references (a move would leave nothing to copy).
    if (a_id == b_id) a_live = b_live = Live::kKeep;
    Arg a = Use(a_id, a_live);
    Arg b = Use(b_id, b_live);
    Tensor t;
    switch (op) {
      case '+': t = std::move(a.t) + std::move(b.t); break;
      case '-': t = std::move(a.t) - std::move(b.t); break;
      case '*': t = std::move(a.t) * std::move(b.t); break;
      case '/': t = std::move(a.t) / std::move(b.t); break;
    }
    Range out = known ? *known : Combine(op, a.range, b.range);
    if (!known && a_id == b_id && op == '*') out = {0, a.range.Mag() * a.range.Mag()};
    return Emit(std::move(t), a.text + " " + op + " " + b.text, out);
  }

  // x op s, or s op x when `scalar_left`.
  int EmitScalar(char op, int x_id, double s, bool scalar_left = false, Live live = Live::kRandom) {
    Arg x = Use(x_id, live);
    const Range sr{s, s};
    Tensor t;
    Range out;
    if (scalar_left) {
      switch (op) {
        case '+': t = s + std::move(x.t); break;
        case '-': t = s - std::move(x.t); break;
        case '*': t = s * std::move(x.t); break;
        case '/': t = s / std::move(x.t); break;
      }
      out = Combine(op, sr, x.range);
    } else {
      switch (op) {
        case '+': t = std::move(x.t) + s; break;
        case '-': t = std::move(x.t) - s; break;
        case '*': t = std::move(x.t) * s; break;
        case '/': t = std::move(x.t) / s; break;
      }
      out = Combine(op, x.range, sr);
    }
    const std::string expr =
        scalar_left ? Num(s) + " " + op + " " + x.text : x.text + " " + op + " " + Num(s);
    return Emit(std::move(t), expr, out);
  }

  // One of burn's integer bitwise ops (Note [Bitwise ops], engine/runtime/cpu/elementwise.cpp)
  // on an int value and `other` (its dtype; it broadcasts) or the scalar `s`. The bounds hold
  // for a left shift by at most 4 or by an amount outside [0, 64) (which gives 0).
  int EmitBitwise(Bit op, int x_id, std::optional<int> other_id, int64_t s) {
    Arg x = Use(x_id);
    std::optional<Arg> other;
    if (other_id && op != Bit::kNot) other = Use(*other_id);
    const Range r = x.range;
    const Range o = other ? other->range : Range{static_cast<double>(s), static_cast<double>(s)};
    // And, Or and Xor of numbers in [-2^k, 2^k) stay there.
    const double b = std::exp2(std::ceil(std::log2(std::max(r.Mag(), o.Mag()) + 1)));
    Range out{-b, b - 1};
    Tensor t;
    std::string name;
    switch (op) {
      case Bit::kAnd:
        name = "BitwiseAnd";
        t = other ? std::move(x.t).BitwiseAnd(std::move(other->t)) : std::move(x.t).BitwiseAnd(s);
        // A non-negative operand keeps the result within [0, its bound].
        if (r.lo >= 0 || o.lo >= 0) {
          out = {0, std::min(r.lo >= 0 ? r.hi : o.hi, o.lo >= 0 ? o.hi : r.hi)};
        }
        break;
      case Bit::kOr:
        name = "BitwiseOr";
        t = other ? std::move(x.t).BitwiseOr(std::move(other->t)) : std::move(x.t).BitwiseOr(s);
        break;
      case Bit::kXor:
        name = "BitwiseXor";
        t = other ? std::move(x.t).BitwiseXor(std::move(other->t)) : std::move(x.t).BitwiseXor(s);
        break;
      case Bit::kLeftShift: {
        name = "BitwiseLeftShift";
        t = other ? std::move(x.t).BitwiseLeftShift(std::move(other->t))
                  : std::move(x.t).BitwiseLeftShift(s);
        // Amounts in [0, 64) multiply by up to 2^hi; the others give 0.
        const bool some_in = o.hi >= 0 && o.lo < 64;
        const double f = std::exp2(std::min(o.hi, 63.0));
        out = some_in ? Range{std::min({0.0, r.lo, r.lo * f}), std::max({0.0, r.hi, r.hi * f})}
                      : Range{0, 0};
        break;
      }
      case Bit::kRightShift:
        name = "BitwiseRightShift";
        t = other ? std::move(x.t).BitwiseRightShift(std::move(other->t))
                  : std::move(x.t).BitwiseRightShift(s);
        out = {std::min(0.0, r.lo), std::max(0.0, r.hi)};  // toward 0, or -1 for negatives
        break;
      case Bit::kNot:
        name = "BitwiseNot";
        t = std::move(x.t).BitwiseNot();
        out = {-r.hi - 1, -r.lo - 1};
        break;
    }
    const std::string operand = other             ? ", " + other->text
                                : op == Bit::kNot ? ""
                                                  : ", " + std::to_string(s);
    return Emit(std::move(t), name + "(" + x.text + operand + ")", out);
  }

  int EmitReduce(Red op, int x_id, int64_t dim, Live live = Live::kRandom) {
    ++result_.features.reductions;
    Arg x = Use(x_id, live);
    const auto& shape = x.t.Shape();
    const int64_t axis = dim < 0 ? dim + static_cast<int64_t>(shape.size()) : dim;
    const double len = static_cast<double>(shape[static_cast<size_t>(axis)]);
    const Range r = x.range;
    Tensor t;
    std::string name;
    Range out = r;
    switch (op) {
      case Red::kSum:
        t = std::move(x.t).SumDim(dim);
        name = "SumDim";
        out = {std::min(r.lo, r.lo * len), std::max(r.hi, r.hi * len)};
        break;
      case Red::kMean:
        t = std::move(x.t).MeanDim(dim);
        name = "MeanDim";
        break;
      case Red::kProd:
        t = std::move(x.t).ProdDim(dim);
        name = "ProdDim";
        out = {-std::max(1.0, r.Mag()), std::max(1.0, r.Mag())};  // callers keep |x| <= 1
        break;
      case Red::kMax:
        MarkKeepsExact();
        t = std::move(x.t).MaxDim(dim);
        name = "MaxDim";
        break;
      case Red::kMin:
        MarkKeepsExact();
        t = std::move(x.t).MinDim(dim);
        name = "MinDim";
        break;
      case Red::kArgMax:
        MarkJump();
        t = std::move(x.t).ArgMax(dim);
        name = "ArgMax";
        out = {0, len - 1};
        break;
      case Red::kArgMin:
        MarkJump();
        t = std::move(x.t).ArgMin(dim);
        name = "ArgMin";
        out = {0, len - 1};
        break;
    }
    return Emit(std::move(t), name + "(" + x.text + ", " + std::to_string(dim) + ")", out);
  }

  int EmitCast(int x_id, DType dtype, Live live = Live::kRandom) {
    ++result_.features.casts;
    Arg x = Use(x_id, live);
    Range out = x.range;
    if (IsInt(dtype)) out = {std::trunc(out.lo), std::trunc(out.hi)};
    if (dtype == DType::kBool) out = {0, 1};
    if (IsFloat(x.t.Dtype()) && !IsFloat(dtype)) MarkJump();
    MarkKeepsExact();
    Tensor t = std::move(x.t).Cast(dtype);
    return Emit(std::move(t), "Cast(" + x.text + ", " + std::string(DTypeName(dtype)) + ")", out);
  }

  int EmitClamp(int x_id, double lo, double hi, Live live = Live::kRandom) {
    Arg x = Use(x_id, live);
    const Range out{std::clamp(x.range.lo, lo, hi), std::clamp(x.range.hi, lo, hi)};
    MarkKeepsExact();
    Tensor t = std::move(x.t).Clamp(lo, hi);
    return Emit(std::move(t), "Clamp(" + x.text + ", " + Num(lo) + ", " + Num(hi) + ")", out);
  }

  int EmitCompare(Cmp op, int a_id, std::optional<int> b_id, double s,
                  Live a_live = Live::kRandom) {
    if (b_id && *b_id == a_id) a_live = Live::kKeep;
    Arg a = Use(a_id, a_live);
    std::optional<Arg> b;
    if (b_id) b = Use(*b_id, *b_id == a_id ? Live::kKeep : Live::kRandom);
    Tensor t;
    std::string name;
    MarkJump();
    switch (op) {
      case Cmp::kEqual:
        name = "Equal";
        t = b ? std::move(a.t).Equal(std::move(b->t)) : std::move(a.t).Equal(s);
        break;
      case Cmp::kLower:
        name = "Lower";
        t = b ? std::move(a.t).Lower(std::move(b->t)) : std::move(a.t).Lower(s);
        break;
      case Cmp::kGreater:
        name = "Greater";
        t = b ? std::move(a.t).Greater(std::move(b->t)) : std::move(a.t).Greater(s);
        break;
      case Cmp::kLowerEqual:
        name = "LowerEqual";
        t = b ? std::move(a.t).LowerEqual(std::move(b->t)) : std::move(a.t).LowerEqual(s);
        break;
      case Cmp::kGreaterEqual:
        name = "GreaterEqual";
        t = b ? std::move(a.t).GreaterEqual(std::move(b->t)) : std::move(a.t).GreaterEqual(s);
        break;
    }
    return Emit(std::move(t), name + "(" + a.text + ", " + (b ? b->text : Num(s)) + ")", {0, 1});
  }

  int EmitMaskWhere(int x_id, int mask_id, int value_id) {
    ++result_.features.masks;
    const Live x_live = x_id == value_id ? Live::kKeep : Live::kRandom;
    Arg x = Use(x_id, x_live);
    Arg mask = Use(mask_id);
    Arg value = Use(value_id, x_live);
    const Range out{std::min(x.range.lo, value.range.lo), std::max(x.range.hi, value.range.hi)};
    MarkKeepsExact();
    Tensor t = std::move(x.t).MaskWhere(std::move(mask.t), std::move(value.t));
    return Emit(std::move(t), "MaskWhere(" + x.text + ", " + mask.text + ", " + value.text + ")",
                out);
  }

  int EmitMaskFill(int x_id, int mask_id, double v, Live x_live = Live::kRandom) {
    ++result_.features.masks;
    Arg x = Use(x_id, x_live);
    Arg mask = Use(mask_id);
    const Range out{std::min(x.range.lo, v), std::max(x.range.hi, v)};
    MarkKeepsExact();
    Tensor t = std::move(x.t).MaskFill(std::move(mask.t), v);
    return Emit(std::move(t), "MaskFill(" + x.text + ", " + mask.text + ", " + Num(v) + ")", out);
  }

  int EmitMatmul(int a_id, int b_id) {
    ++result_.features.matmuls;
    const Live live = a_id == b_id ? Live::kKeep : Live::kRandom;
    Arg a = Use(a_id, live);
    Arg b = Use(b_id, live);
    const double k = static_cast<double>(a.t.Shape().back());
    const double bound = k * a.range.Mag() * b.range.Mag();
    Tensor t = std::move(a.t).Matmul(std::move(b.t));
    return Emit(std::move(t), "Matmul(" + a.text + ", " + b.text + ")", {-bound, bound});
  }

  int EmitSwapDims(int x_id, int64_t d1, int64_t d2, Live live = Live::kRandom) {
    ++result_.features.views;
    Arg x = Use(x_id, live);
    MarkKeepsExact();
    Tensor t = std::move(x.t).SwapDims(d1, d2);
    return Emit(std::move(t),
                "SwapDims(" + x.text + ", " + std::to_string(d1) + ", " + std::to_string(d2) + ")",
                x.range);
  }

  int EmitReshape(int x_id, std::vector<int64_t> shape, Live live = Live::kRandom) {
    ++result_.features.views;
    Arg x = Use(x_id, live);
    const std::string text = "Reshape(" + x.text + ", " + ShapeText(shape) + ")";
    MarkKeepsExact();
    Tensor t = std::move(x.t).Reshape(std::move(shape));
    return Emit(std::move(t), text, x.range);
  }

  // --- Fix-ups that keep values finite -----------------------------------------------------
  // Brings the value within [-limit, limit] when its bounds say it might leave it.
  int Tame(int id, double limit) {
    if (Get(id).range.Mag() <= limit) return id;
    if (!IsFloatValue(Get(id))) {  // int scalars must be whole numbers
      const double whole = std::max(1.0, std::floor(limit));
      return EmitClamp(id, -whole, whole);
    }
    if (limit >= 1 && Chance(0.4)) return EmitUnary(Un::kTanh, id);
    return EmitClamp(id, -limit, limit);
  }
  // Keeps the value at or below `limit` (exp's argument).
  int TameAbove(int id, double limit) {
    if (Get(id).range.hi <= limit) return id;
    if (Chance(0.5)) return EmitClamp(id, std::max(Get(id).range.lo, -20.0), limit);
    return EmitScalar('*', EmitUnary(Un::kTanh, id), std::min(limit, 3.0));
  }
  // A value >= eps: |x| + eps unless it already is.
  int MakePositive(int id, double eps) {
    if (Get(id).range.lo >= eps) return id;
    return EmitScalar('+', EmitUnary(Un::kAbs, Tame(id, 1e3)), eps + 0.25);
  }
  int MakeAwayFromZero(int id, double eps) {
    if (Get(id).range.AwayFromZero(eps)) return id;
    return MakePositive(id, eps);
  }
};

}  // namespace ember::testing

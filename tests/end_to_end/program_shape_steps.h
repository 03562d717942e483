// ShapeSteps: the steps of a random program (program_generator.h) that change shapes: views
// (reshape, transpose, slice, expand, permute), reductions (with softmax and layer norm, which
// broadcast theirs back onto the rows) and matmuls with a bias and an activation.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ember/ember.h>

#include "tests/end_to_end/program_elementwise_steps.h"
#include "tests/end_to_end/program_result.h"

namespace ember::testing {

class ShapeSteps : public ElementwiseSteps {
 protected:
  using ElementwiseSteps::ElementwiseSteps;

  void ViewStep() {
    const auto x0 = Pick([](const Value& v) { return v.numel() > 0; });
    if (!x0) return;
    const Value& x = Get(*x0);
    const std::vector<int64_t> shape = x.shape();
    const int64_t numel = x.numel();
    // Back to the program's base shape, when the elements allow it and it differs.
    const std::vector<int64_t> base{m_, n_};
    if (numel == m_ * n_ && shape != base && Chance(0.5)) {
      EmitReshape(*x0, base);
      return;
    }
    const int rank = static_cast<int>(shape.size());
    switch (Weighted({4, 2, 1, 1, 3, 3, 2, 2})) {
      case 0:  // transpose (a strided view)
        if (rank >= 2) {
          if (Chance(0.5))
            EmitSwapDims(*x0, 0, 1);
          else
            EmitSwapDims(*x0, -1, -2);
          return;
        }
        EmitReshape(*x0, {1, numel});
        return;
      case 1: EmitReshape(*x0, {numel}); return;
      case 2: {
        std::vector<int64_t> s = shape;
        s.insert(s.begin(), 1);
        EmitReshape(*x0, s);
        return;
      }
      case 3:
        if (rank >= 1)
          EmitReshape(*x0, {-1, shape.back()});
        else
          EmitReshape(*x0, {1});
        return;
      case 4: {  // rows split into a batch: [b, rows / b, last]
        if (rank != 2) return;
        for (int64_t b : {3, 2, 5}) {
          if (shape[0] % b == 0 && shape[0] > b) {
            EmitReshape(*x0, {b, shape[0] / b, shape[1]});
            return;
          }
        }
        return;
      }
      case 5: {  // a slice per dim: offsets, steps of 2, reversed (views with offsets, strides)
        std::vector<Slice> ranges;
        std::string text;
        for (int64_t size : shape) {
          Slice r;
          switch (Weighted({3, 2, 2, 2, 1})) {
            case 0: break;
            case 1: r.start = Uniform(0, static_cast<int>(size - 1) / 2); break;
            case 2: r = {static_cast<int64_t>(Uniform(0, 1)) % size, std::nullopt, 2}; break;
            case 3: r.step = -1; break;
            case 4: r = {0, std::max<int64_t>(1, size - 1), -2}; break;
          }
          ranges.push_back(r);
          text += (text.empty() ? "" : ", ") + std::to_string(r.start) + ":" +
                  (r.end ? std::to_string(*r.end) : std::string()) + ":" + std::to_string(r.step);
        }
        ++result_.features.views;
        Arg a = Use(*x0);
        MarkKeepsExact();
        Tensor t = std::move(a.t).Slice(std::move(ranges));
        Emit(std::move(t), "Slice(" + a.text + ", " + text + ")", a.range);
        return;
      }
      case 6: {  // expand a dim of size 1, or a new leading dim
        std::vector<int64_t> to = shape;
        std::vector<size_t> ones;
        for (size_t i = 0; i < to.size(); ++i) {
          if (to[i] == 1) ones.push_back(i);
        }
        if (!ones.empty() && Chance(0.8)) {
          to[ones[static_cast<size_t>(Uniform(0, static_cast<int>(ones.size()) - 1))]] =
              OneOf<int64_t>({m_, n_, 3});
        } else {
          to.insert(to.begin(), 2);
        }
        if (Numel(to) > 100000) return;
        ++result_.features.views;
        Arg a = Use(*x0);
        const std::string text = "Expand(" + a.text + ", " + ShapeText(to) + ")";
        MarkKeepsExact();
        Tensor t = std::move(a.t).Expand(std::move(to));
        Emit(std::move(t), text, a.range);
        return;
      }
      case 7: {  // permute (rank 2: a transpose spelled differently)
        if (rank != 2 && rank != 3) return;
        const auto axes =
            rank == 2 ? std::vector<int64_t>{1, 0}
                      : OneOf<std::vector<int64_t>>({{2, 0, 1}, {1, 2, 0}, {0, 2, 1}, {1, 0, 2}});
        ++result_.features.views;
        Arg a = Use(*x0);
        const std::string text = "Permute(" + a.text + ", " + ShapeText(axes) + ")";
        MarkKeepsExact();
        Tensor t = std::move(a.t).Permute(axes);
        Emit(std::move(t), text, a.range);
        return;
      }
    }
  }

  void ReduceStep() {
    const auto x0 =
        Pick([](const Value& v) { return v.dtype() != DType::kBool && !v.shape().empty(); });
    if (!x0) return;
    int x = *x0;
    const bool is_float = IsFloatValue(Get(x));
    const int rank = static_cast<int>(Get(x).shape().size());
    int axis = rank - 1;
    if (rank > 1 && Chance(0.3)) axis = Uniform(0, rank - 2);
    const int64_t dim = Chance(0.5) ? axis - rank : axis;
    const double len = static_cast<double>(Get(x).shape()[static_cast<size_t>(axis)]);
    Red op = static_cast<Red>(Weighted({25, 20, 3, 20, 10, 12, 5}));
    if (op == Red::kProd) {
      x = Tame(x, 1.0);
    } else if (op == Red::kSum) {
      x = Tame(x, std::max(1.0, 1e4 / len));
    }
    // Softmax- and norm-shaped: the reduction goes back onto the rows it came from.
    const bool arg = op == Red::kArgMax || op == Red::kArgMin;
    const bool back = !arg && is_float && Chance(0.65);
    if (Chance(0.05) && is_float) {  // the whole-tensor forms, shape [1]
      Arg a = Use(x, back ? Live::kKeep : Live::kRandom);
      ++result_.features.reductions;
      const bool sum = Chance(0.5);
      const double n = static_cast<double>(a.t.NumElements());
      Tensor t = sum ? std::move(a.t).Sum() : std::move(a.t).Mean();
      const Range out =
          sum ? Range{std::min(a.range.lo, a.range.lo * n), std::max(a.range.hi, a.range.hi * n)}
              : a.range;
      const int r = Emit(std::move(t), std::string(sum ? "Sum(" : "Mean(") + a.text + ")", out);
      if (back && IsLive(x)) {
        ++result_.features.reduce_broadcasts;
        EmitBinary('-', Tame(x, 1e4), Tame(r, 1e4));
      }
      return;
    }
    const int r = EmitReduce(op, x, dim, back ? Live::kKeep : Live::kRandom);
    if (arg) {
      if (Chance(0.4)) EmitCast(r, dtype_);
      return;
    }
    if (!back || !IsLive(x)) return;
    ++result_.features.reduce_broadcasts;
    char op2 = OneOf({'-', '-', '+', '*', '/'});
    int rr = r;
    if (op2 == '/' && !Get(r).range.AwayFromZero(0.25)) op2 = '-';
    if (op2 == '*') {
      x = Tame(x, 100);
      rr = Tame(r, 100);
    }
    if (!IsLive(x) || !IsLive(rr)) return;
    if (Chance(0.2) && op2 != '/') {
      EmitBinary(op2, rr, x);
    } else {
      EmitBinary(op2, x, rr);
    }
  }

  // softmax(x * scale) over the last axis: max, sub, exp, sum, div.
  void Softmax() {
    const auto x0 = Pick([](const Value& v) { return IsFloat(v.dtype()) && !v.shape().empty(); });
    if (!x0) return;
    const int x = Tame(*x0, 30);
    const double scale = OneOf({1.0, 0.125, 0.5, 2.0});
    const int s = EmitScalar('*', x, scale);
    const Range sr = Get(s).range;
    const double len = static_cast<double>(Get(s).shape().back());
    const int64_t last = Chance(0.5) ? -1 : static_cast<int64_t>(Get(s).shape().size()) - 1;
    const int mx = EmitReduce(Red::kMax, s, last, Live::kKeep);
    const int sh = EmitBinary('-', s, mx, Range{sr.lo - sr.hi, 0});
    const int e = EmitUnary(Un::kExp, sh);
    const Range er = Get(e).range;
    const int z = EmitReduce(Red::kSum, e, last, Live::kKeep);
    Get(z).range = {1, std::max(1.0, len)};  // the row's max contributes exp(0) = 1
    if (!IsLive(e)) return;
    EmitBinary('/', e, z, Range{er.lo / len, 1});
    ++result_.features.reduce_broadcasts;
  }

  // (x - mean) / sqrt(var + eps), then * gamma + beta when the program has such vectors.
  void LayerNorm() {
    const auto x0 = Pick([](const Value& v) { return IsFloat(v.dtype()) && !v.shape().empty(); });
    if (!x0) return;
    const int x = Tame(*x0, 100);
    const std::vector<int64_t> shape = Get(x).shape();
    const double len = static_cast<double>(shape.back());
    const int64_t last = Chance(0.5) ? -1 : static_cast<int64_t>(shape.size()) - 1;
    const int mu = EmitReduce(Red::kMean, x, last, Live::kKeep);
    const int d = EmitBinary('-', x, mu);
    const int sq = Chance(0.5) ? EmitBinary('*', d, d) : EmitUnary(Un::kSquare, d, Live::kKeep);
    const int var = EmitReduce(Red::kMean, sq, last);
    const int den = EmitUnary(Un::kSqrt, EmitScalar('+', var, 1e-5));
    if (!IsLive(d)) return;
    // |x - mean| / std <= sqrt(len) whatever the values.
    int y = EmitBinary('/', d, den, Range{-std::sqrt(len), std::sqrt(len)});
    ++result_.features.reduce_broadcasts;
    const DType dtype = Get(y).dtype();
    auto vec = [&](const Value& v) {
      return v.dtype() == dtype && v.id != y && v.shape().size() <= 2 &&
             v.shape().back() == shape.back() && v.numel() == shape.back();
    };
    if (!Chance(0.6)) return;
    if (auto gamma = Pick(vec)) y = EmitBinary('*', y, Tame(*gamma, 10));
    if (auto beta = Pick(vec)) EmitBinary('+', y, Tame(*beta, 100));
  }

  // x @ w (+ bias) (activation): the MLP layer, w found in the pool or transposed from it.
  void MatmulStep() {
    const auto a0 = Pick([](const Value& v) {
      return IsFloat(v.dtype()) && v.shape().size() >= 2 && v.shape().size() <= 3 &&
             v.numel() <= 70000;
    });
    if (!a0) return;
    const std::vector<int64_t> a_shape = Get(*a0).shape();
    const int64_t k = a_shape.back();
    const int64_t rows = a_shape[a_shape.size() - 2];
    const DType dtype = Get(*a0).dtype();
    // Output elements and multiply-adds stay small enough for a fast test.
    auto fits = [&](int64_t n) { return rows * n <= 300000 && rows * n * k <= 40000000; };
    // rhs batch dims (rank 3) must broadcast with lhs's.
    auto batch_ok = [&](const std::vector<int64_t>& b) {
      if (b.size() == 2 || a_shape.size() == 2) return true;
      return b[0] == a_shape[0] || b[0] == 1 || a_shape[0] == 1;
    };
    int b = -1;
    if (auto direct = Pick([&](const Value& v) {
          const auto& vs = v.shape();
          return v.dtype() == dtype && vs.size() >= 2 && vs.size() <= 3 && vs[vs.size() - 2] == k &&
                 fits(vs.back()) && v.id != *a0 && batch_ok(vs);
        })) {
      b = *direct;
    } else if (auto other = Pick([&](const Value& v) {
                 return v.dtype() == dtype && v.shape().size() == 2 && v.shape()[1] == k &&
                        fits(v.shape()[0]);
               })) {
      b = EmitSwapDims(*other, 0, 1, *other == *a0 ? Live::kKeep : Live::kRandom);
    } else {
      return;
    }
    int a = *a0;
    const double kd = static_cast<double>(k);
    if (kd * Get(a).range.Mag() * Get(b).range.Mag() > 1e4) {
      const double limit = std::max(1.0, std::sqrt(1e4 / kd));
      a = Tame(a, limit);
      b = b == *a0 ? a : Tame(b, limit);
    }
    if (!IsLive(a) || !IsLive(b)) return;
    int y = EmitMatmul(a, b);
    if (!Chance(0.75)) return;
    const std::vector<int64_t> y_shape = Get(y).shape();
    auto bias = Pick([&](const Value& v) {
      return v.dtype() == dtype && v.id != y && v.numel() == y_shape.back() &&
             BroadcastsInto(v.shape(), y_shape);
    });
    if (bias) {
      y = EmitBinary('+', y, Tame(*bias, 100));
    } else if (Chance(0.5)) {
      y = EmitScalar('+', y, 0.125);
    }
    switch (Uniform(0, 4)) {
      case 0: {  // relu through a mask
        const int mask = EmitCompare(Cmp::kLower, y, std::nullopt, 0.0, Live::kKeep);
        EmitMaskFill(y, mask, 0.0);
        break;
      }
      case 1: EmitClamp(y, 0.0, 1e4); break;  // relu through clamp
      case 2: EmitUnary(Un::kTanh, y); break;
      case 3: {  // gelu: x * 0.5 * (1 + erf(x / sqrt(2)))
        y = Tame(y, 1e3);
        const int u = EmitScalar('*', y, 0.7071067811865476, false, Live::kKeep);
        const int e = EmitScalar('+', EmitUnary(Un::kErf, u), 1.0);
        const int h = EmitScalar('*', y, 0.5);
        EmitBinary('*', h, e);
        break;
      }
      case 4: {  // sigmoid: 1 / (1 + exp(-x))
        y = Tame(y, 10);
        const int e = EmitUnary(Un::kExp, EmitUnary(Un::kNeg, y));
        EmitUnary(Un::kRecip, EmitScalar('+', e, 1.0));
        break;
      }
    }
  }
};

}  // namespace ember::testing

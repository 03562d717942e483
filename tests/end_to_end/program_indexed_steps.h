// IndexedSteps: the steps of a random program (program_generator.h) that index: Gather, Select
// and Cat, the ops the fusers take as "indexed inputs" (Note [Indexed inputs],
// engine/trace/fuse_trace.h). Each takes its tensor(s) from the pool - often the newest value, so
// the op sits in the middle of an elementwise chain - and is often followed by an elementwise op
// on its result, sometimes one that reads the indexed source again normally.
//
// Index tensors come from host data (Tensor::FromVector), i32 or i64, so they are exact and the
// same on every backend; they are not pool values. Some hold indices out of range, negative ones
// included, which read 0 (docs/API.md): the result's range is then the source's joined with 0.
// Their values are drawn from a generator of their own, seeded by one draw of the program's, so
// how many there are never shifts the program's later draws.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <ember/ember.h>

#include "tests/end_to_end/program_result.h"
#include "tests/end_to_end/program_shape_steps.h"

namespace ember::testing {

class IndexedSteps : public ShapeSteps {
 protected:
  using ShapeSteps::ShapeSteps;

  void IndexedStep() {
    switch (Weighted({2, 2, 2})) {
      case 0: GatherStep(); break;
      case 1: SelectStep(); break;
      case 2: CatStep(); break;
    }
  }

 private:
  // The most elements an indexed op's result may have (the test stays fast).
  static constexpr int64_t kMaxIndexedElements = 200000;

  struct Indices {
    Tensor t;
    std::string text;
    bool out_of_range = false;
  };

  // Indices into a dim of `size` entries, in `shape`: in range, or (sometimes) with some out of
  // range on either side. The pattern, dtype and whether any is out of range come from the
  // program's draws; the values from a generator seeded by one of them.
  Indices MakeIndices(const std::vector<int64_t>& shape, int64_t size) {
    const bool i32 = Chance(0.5);
    const bool out_of_range = Chance(0.3);
    const int pattern = Weighted({5, 2, 2});  // uniform, arange (mod size), reversed
    std::mt19937_64 g(rng_());
    const int64_t count = Numel(shape);
    std::vector<int64_t> values(static_cast<size_t>(count));
    std::uniform_int_distribution<int64_t> in_range(0, size - 1);
    for (int64_t i = 0; i < count; ++i) {
      int64_t& v = values[static_cast<size_t>(i)];
      switch (pattern) {
        case 0: v = in_range(g); break;
        case 1: v = i % size; break;
        case 2: v = size - 1 - i % size; break;
      }
    }
    if (out_of_range) {
      const int64_t outside[] = {-1, -size, size, size + 3, 100000, -100000, -2};
      std::uniform_int_distribution<size_t> which(0, std::size(outside) - 1);
      std::bernoulli_distribution replace(0.2);
      for (int64_t& v : values) {
        if (replace(g)) v = outside[which(g)];
      }
      // At least one, wherever the draws put it.
      std::uniform_int_distribution<size_t> at(0, values.size() - 1);
      values[at(g)] = outside[which(g)];
    }
    std::string text = std::string(i32 ? "i32" : "i64") + ShapeText(shape) + "{";
    for (size_t i = 0; i < values.size() && i < 6; ++i) {
      if (i > 0) text += ',';
      text += std::to_string(values[i]);
    }
    text += values.size() > 6 ? ",...}" : "}";
    Tensor t;
    if (i32) {
      t = Tensor::FromVector(std::vector<int32_t>(values.begin(), values.end()), shape, device_);
    } else {
      t = Tensor::FromVector(std::move(values), shape, device_);
    }
    return Indices{std::move(t), std::move(text), out_of_range};
  }

  static Range JoinZero(Range r) { return {std::min(r.lo, 0.0), std::max(r.hi, 0.0)}; }

  // The dim an indexed op works along: 0 or the last, spelled from the end sometimes.
  std::pair<size_t, int64_t> ChooseAxis(size_t rank) {
    const size_t axis = Chance(0.5) ? 0 : rank - 1;
    const int64_t dim = Chance(0.3) ? static_cast<int64_t>(axis) - static_cast<int64_t>(rank)
                                    : static_cast<int64_t>(axis);
    return {axis, dim};
  }

  void GatherStep() {
    const auto x0 = Pick([](const Value& v) { return !v.shape().empty(); });
    if (!x0) return;
    const std::vector<int64_t> shape = Get(*x0).shape();
    const auto [axis, dim] = ChooseAxis(shape.size());
    // The indices' shape: the source's mostly (the result joins the source's chains), another
    // length along the dim (1 is ArgMax's shape), or a smaller other dim.
    std::vector<int64_t> ishape = shape;
    switch (Weighted({6, 2, 2})) {
      case 0: break;
      case 1: ishape[axis] = Chance(0.4) ? 1 : Uniform(1, 70); break;
      case 2: {
        if (shape.size() < 2) {
          ishape[axis] = Uniform(1, 70);
          break;
        }
        const size_t other = axis == 0 ? shape.size() - 1 : 0;
        ishape[other] = Uniform(1, static_cast<int>(std::min<int64_t>(shape[other], 70)));
        break;
      }
    }
    if (Numel(ishape) > kMaxIndexedElements) return;
    Indices idx = MakeIndices(ishape, shape[axis]);
    ++result_.features.gathers;
    Arg x = Use(*x0, Chance(0.4) ? Live::kKeep : Live::kRandom);
    MarkKeepsExact();
    Tensor t = std::move(x.t).Gather(dim, std::move(idx.t));
    const int r =
        Emit(std::move(t), "Gather(" + x.text + ", " + std::to_string(dim) + ", " + idx.text + ")",
             idx.out_of_range ? JoinZero(x.range) : x.range);
    FollowUp(r, *x0);
  }

  void SelectStep() {
    const auto x0 = Pick([](const Value& v) { return !v.shape().empty(); });
    if (!x0) return;
    std::vector<int64_t> shape = Get(*x0).shape();
    const auto [axis, dim] = ChooseAxis(shape.size());
    const int64_t size = shape[axis];
    // As many as the dim has (a permutation-like select keeps the shape), another count, or 1.
    switch (Weighted({4, 4, 2})) {
      case 0: break;
      case 1: shape[axis] = Uniform(1, 70); break;
      case 2: shape[axis] = 1; break;
    }
    if (Numel(shape) > kMaxIndexedElements) return;
    Indices idx = MakeIndices({shape[axis]}, size);
    ++result_.features.selects;
    Arg x = Use(*x0, Chance(0.4) ? Live::kKeep : Live::kRandom);
    MarkKeepsExact();
    Tensor t = std::move(x.t).Select(dim, std::move(idx.t));
    const int r =
        Emit(std::move(t), "Select(" + x.text + ", " + std::to_string(dim) + ", " + idx.text + ")",
             idx.out_of_range ? JoinZero(x.range) : x.range);
    FollowUp(r, *x0);
  }

  // Cat of two (sometimes three) pool values whose shapes match but along the dim: another
  // value, the same one again, or one computed from it just before. Never its negation: a
  // matmul of [x, -x] with [y, y] cancels to exactly 0 on one backend and to rounding noise on
  // another, which no relative tolerance accepts.
  void CatStep() {
    const auto a0 = Pick([](const Value& v) { return !v.shape().empty(); });
    if (!a0) return;
    const int a = *a0;
    const std::vector<int64_t> shape = Get(a).shape();
    const DType dtype = Get(a).dtype();
    const auto [axis, dim] = ChooseAxis(shape.size());
    auto fits = [&](const Value& v) {
      if (v.id == a || v.dtype() != dtype || v.shape().size() != shape.size()) return false;
      for (size_t i = 0; i < shape.size(); ++i) {
        if (i != axis && v.shape()[i] != shape[i]) return false;
      }
      return true;
    };
    std::vector<int> ids{a};
    const int parts = Chance(0.2) ? 3 : 2;
    for (int k = 1; k < parts; ++k) {
      std::optional<int> b = Chance(0.2) ? std::nullopt : Pick(fits);
      if (!b && Chance(0.5) && IsFloat(dtype) && IsLive(a)) {
        b = Chance(0.5) ? EmitScalar('*', a, OneOf({0.5, 2.0, 0.25}), false, Live::kKeep)
                        : EmitUnary(Un::kTanh, a, Live::kKeep);
      }
      ids.push_back(b ? *b : a);
    }
    int64_t numel = 0;
    for (int id : ids) numel += Get(id).numel();
    if (numel > kMaxIndexedElements) return;
    ++result_.features.cats;
    std::vector<Tensor> tensors;
    std::string text;
    Range range;
    for (size_t k = 0; k < ids.size(); ++k) {
      // A value that appears twice is shared by both (a move would leave nothing to copy).
      const bool repeated = std::count(ids.begin(), ids.end(), ids[k]) > 1;
      Arg arg = Use(ids[k], repeated ? Live::kKeep : Live::kRandom);
      range = k == 0 ? arg.range
                     : Range{std::min(range.lo, arg.range.lo), std::max(range.hi, arg.range.hi)};
      if (k > 0) text += ", ";
      text += arg.text;
      tensors.push_back(std::move(arg.t));
    }
    MarkKeepsExact();
    Tensor t = Cat(std::move(tensors), dim);
    const int r = Emit(std::move(t), "Cat([" + text + "], " + std::to_string(dim) + ")", range);
    FollowUp(r, a);
  }

  // Often an elementwise op on an indexed op's result `r`: alone, with a partner that broadcasts,
  // or with the indexed `source` itself when it is still live and the shapes allow (the source is
  // then read both by index and normally).
  void FollowUp(int r, int source) {
    if (!Chance(0.6) || !IsLive(r)) return;
    const Value& v = Get(r);
    if (v.dtype() == DType::kBool) return;
    if (!IsFloat(v.dtype())) {
      EmitUnary(Chance(0.5) ? Un::kAbs : Un::kNeg, r);
      return;
    }
    const DType dtype = v.dtype();
    const std::vector<int64_t> shape = v.shape();
    switch (Weighted({3, 2, 3, 2})) {
      case 0: EmitUnary(OneOf({Un::kTanh, Un::kSin, Un::kAbs, Un::kNeg}), r); return;
      case 1: EmitUnary(Un::kExp, TameAbove(r, 10)); return;
      case 2:
        if (source != r && IsLive(source) && Get(source).dtype() == dtype &&
            BroadcastsInto(Get(source).shape(), shape)) {
          const int x = Tame(r, 1e4);
          const int y = Tame(source, 1e4);
          if (IsLive(x) && IsLive(y)) EmitBinary(Chance(0.5) ? '+' : '-', x, y);
          return;
        }
        [[fallthrough]];
      case 3: {
        if (auto partner = Partner(r)) {
          const int x = Tame(r, 100);
          const int y = Tame(*partner, 100);
          if (IsLive(x) && IsLive(y)) EmitBinary(Chance(0.5) ? '*' : '+', x, y);
          return;
        }
        EmitScalar('*', Tame(r, 1e3), OneOf({0.5, 2.0, -1.5}));
        return;
      }
    }
  }
};

}  // namespace ember::testing

// ProgramPool: the state of a random program while it is generated and run (program_generator.h):
// the seeded draws, the pool of live values with their bounds and Note [Fuzzy outputs] flags, how
// an op receives its operands (shared or moved) and how its result joins the pool and the
// listing. The layers above it (program_emitters.h, the steps, RandomProgram) draw only through
// it, in the order the program's text gives.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <ember/ember.h>

#include "tests/end_to_end/program_result.h"

namespace ember::testing {

class ProgramPool {
 protected:
  ProgramPool(uint64_t seed, bool shifted, Device device)
      : rng_(seed), shifted_(shifted), device_(device) {}

  struct Range {
    double lo = 0, hi = 0;
    double Mag() const { return std::max(std::abs(lo), std::abs(hi)); }
    bool AwayFromZero(double eps) const { return lo >= eps || hi <= -eps; }
  };

  struct Value {
    int id = 0;
    Tensor t;
    Range range;
    bool exact = false;  // an input: the same bits on every backend
    bool fuzzy = false;  // Note [Fuzzy outputs]
    DType coarsest_float = DType::kF32;
    std::string name() const { return std::string("v").append(std::to_string(id)); }
    const std::vector<int64_t>& shape() const { return t.Shape(); }
    DType dtype() const { return t.Dtype(); }
    int64_t numel() const { return t.NumElements(); }
  };

  // How an op receives a pool value: kMove hands it the only reference (its last use), kKeep a
  // copy (the value stays for later ops and reads), kRandom either.
  enum class Live { kRandom, kKeep, kMove };

  struct Arg {
    Tensor t;
    std::string text;
    Range range;
  };

  // --- Randomness -----------------------------------------------------------------------
  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  double Real(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }
  bool Chance(double p) { return Real(0, 1) < p; }
  template <typename T>
  T OneOf(std::initializer_list<T> items) {
    return *(items.begin() + Uniform(0, static_cast<int>(items.size()) - 1));
  }
  // An index into `weights`, drawn by weight.
  int Weighted(const std::vector<int>& weights) {
    return std::discrete_distribution<int>(weights.begin(), weights.end())(rng_);
  }

  // --- The pool of live values ----------------------------------------------------------
  Value& Get(int id) {
    for (Value& v : pool_) {
      if (v.id == id) return v;
    }
    throw std::logic_error("generator: v" + std::to_string(id) + " is not live");
  }
  bool IsLive(int id) const {
    return std::any_of(pool_.begin(), pool_.end(), [&](const Value& v) { return v.id == id; });
  }

  // A live value satisfying `pred`: the newest such more often than not, so ops form chains.
  std::optional<int> Pick(const std::function<bool(const Value&)>& pred) {
    std::vector<int> ids;
    for (const Value& v : pool_) {
      if (pred(v)) ids.push_back(v.id);
    }
    if (ids.empty()) return std::nullopt;
    if (Chance(0.55)) return ids.back();
    return ids[Uniform(0, static_cast<int>(ids.size()) - 1)];
  }

  Arg Use(int id, Live live = Live::kRandom) {
    Value& v = Get(id);
    pending_.fuzzy |= v.fuzzy;
    pending_.computed_float |= !v.exact && IsFloat(v.dtype());
    pending_.coarsest_float = Coarser(pending_.coarsest_float, v.coarsest_float);
    const bool move = live == Live::kMove || (live == Live::kRandom && Chance(0.45));
    if (!move) return Arg{v.t, v.name(), v.range};
    ++result_.features.moved_operands;
    Arg arg{std::move(v.t), v.name() + "*", v.range};
    std::erase_if(pool_, [&](const Value& p) { return p.id == id; });
    return arg;
  }

  // Note [Fuzzy outputs]: the next Emit applies a discontinuous op to the operands used so far.
  void MarkJump() { pending_.jump = true; }
  // The next Emit only moves, selects or converts its operands' values (a view, a cast, Abs,
  // Clamp, a mask, MaxDim): exact operands give an exact result.
  void MarkKeepsExact() { pending_.keeps_exact = true; }
  static DType Coarser(DType a, DType b) {
    auto rank = [](DType d) { return d == DType::kBF16 ? 2 : d == DType::kF16 ? 1 : 0; };
    return rank(a) >= rank(b) ? a : b;
  }

  int Emit(Tensor t, const std::string& expr, Range range) {
    const int id = next_id_++;
    pool_.push_back(Value{id, std::move(t), range});
    Value& v = pool_.back();
    v.fuzzy = pending_.fuzzy || (pending_.jump && pending_.computed_float);
    v.exact = pending_.keeps_exact && !pending_.computed_float && !v.fuzzy;
    v.coarsest_float = IsFloat(v.dtype()) && !v.exact ? Coarser(pending_.coarsest_float, v.dtype())
                                                      : pending_.coarsest_float;
    pending_ = {};
    std::string line = v.name() + " = " + expr;
    line.resize(std::max<size_t>(line.size() + 1, 40), ' ');
    line += ShapeText(v.shape()) + " " + std::string(DTypeName(v.dtype()));
    if (v.dtype() != DType::kBool) line += " in [" + Num(range.lo) + ", " + Num(range.hi) + "]";
    Note(line);
    ++result_.features.ops;
    return id;
  }

  void Note(const std::string& line) { result_.listing += "  " + line + "\n"; }

  static bool BroadcastsInto(const std::vector<int64_t>& small, const std::vector<int64_t>& big) {
    if (small.size() > big.size()) return false;
    for (size_t i = 1; i <= small.size(); ++i) {
      const int64_t s = small[small.size() - i], b = big[big.size() - i];
      if (s != b && s != 1) return false;
    }
    return true;
  }
  static bool IsFloatValue(const Value& v) { return IsFloat(v.dtype()); }
  static bool IsNumericValue(const Value& v) { return v.dtype() != DType::kBool; }

  std::mt19937_64 rng_;
  bool shifted_ = false;
  Device device_ = Device::Cpu();
  // What the operands used since the last Emit carry into its result (Note [Fuzzy outputs]).
  struct Pending {
    bool fuzzy = false;           // an operand is fuzzy
    bool computed_float = false;  // an operand is a float that is not an input
    bool jump = false;            // the op is discontinuous
    bool keeps_exact = false;     // the op moves, selects or converts values (no arithmetic)
    DType coarsest_float = DType::kF32;
  } pending_;
  int64_t m_ = 1, n_ = 1, p_ = 1;
  DType dtype_ = DType::kF32;
  std::vector<Value> pool_;
  int next_id_ = 0;
  ProgramResult result_;
};

}  // namespace ember::testing

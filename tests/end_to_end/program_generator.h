// RandomProgram: seeded random programs over the public Tensor API, for the differential fusion
// test (differential_test.cpp). Header-only: the suite builds every tests/end_to_end/*_test.cpp,
// and a helper .cpp there would need that suffix.
//
// A program is generated *while* it runs. Every decision comes from the seed and from shapes,
// never from values, so running one seed twice (fusion off, fusion on) queues the same ops with
// the same liveness, and the two results must agree. The program also writes a listing as it
// goes, one line per op, so a failing seed can be read and reproduced by hand:
//
//   v7 = Exp(v3*)                      [64,32] f32 in [0.368, 2.72]
//
// `v3*` marks a moved operand (the op receives the only reference: its last use, ReadWrite);
// a plain `v3` is shared (the program keeps it for later: ReadOnly). `drop v4` is a tensor
// whose last reference went away (a Drop op); `read v4` a ToVector.
//
// Values carry conservative bounds [lo, hi]. Steps use them to keep every value finite: exp
// only sees values <= 10, log/sqrt positive ones, divisions divisors away from 0, products and
// sums stay below ~1e4 (which also keeps f16 finite). A step whose operand is out of range
// first emits a fix-up op (Clamp, Tanh, Abs + c), which is itself part of the program.
//
// The device is the CPU unless the constructor names another (the GPU differential test,
// tests/gpu/differential_gpu_test.cpp); it changes where the inputs live and nothing else.
//
// Note [Fuzzy outputs]
// Two correct backends may differ in the last bits of a computed float (their exp, FMA use and
// summation order differ). Continuous ops carry such a difference on at its size, but a
// discontinuous op turns it into a jump: a float -> int or -> bool cast (truncation flips by 1),
// a comparison (a flipped bool, then a flipped mask), ArgMax/ArgMin (another index among near
// ties), Rem (a jump by the divisor at its multiples). Applied to a computed float (one that
// arithmetic made; inputs and what views, casts, Abs, Neg, Clamp, masks and MaxDim/MinDim make
// of them stay exact), such an op makes its result *fuzzy*, and so is everything computed from
// a fuzzy value. Each output records whether it is fuzzy and the least precise float dtype a
// computed value on its way was stored in (coarsest_float), so a cross-backend comparison can
// choose its tolerance; the CPU fused-vs-unfused test compares bits and ignores both.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <ember/ember.h>

namespace ember::testing {

// One tensor read back. Float dtypes are read as float (f16 and bf16 widen exactly), int and
// bool dtypes as int64.
struct ProgramOutput {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  // Note [Fuzzy outputs]: downstream of a discontinuous op on computed floats.
  bool fuzzy = false;
  // The least precise float dtype (f32 < f16 < bf16) a computed value on the way was stored in.
  DType coarsest_float = DType::kF32;
};

// What a program contained, for the test's coverage assertions.
struct ProgramFeatures {
  int ops = 0;
  int reductions = 0;
  int matmuls = 0;
  int reduce_broadcasts = 0;  // a reduction's result broadcast back onto its rows
  int casts = 0;
  int views = 0;
  int masks = 0;
  int moved_operands = 0;
  int drops = 0;
  DType dtype = DType::kF32;  // the working dtype of the inputs
};

struct ProgramResult {
  std::vector<ProgramOutput> outputs;
  std::string listing;
  ProgramFeatures features;
  std::string error;  // what an op threw, if one did (the listing stops there)
};

inline std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ',';
    s += std::to_string(shape[i]);
  }
  s += ']';
  return s;
}

inline std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g", v);
  return buf;
}

class RandomProgram {
 public:
  // `shifted`: the same draws with every dim other than 1 grown by 3, so dims that were equal
  // stay equal and the relative shapes mostly match the unshifted program's (Note [Relative
  // form]): run after it on one engine, its segments hit the plans stored for the other dims.
  explicit RandomProgram(uint64_t seed, bool shifted = false, Device device = Device::Cpu())
      : rng_(seed), shifted_(shifted), device_(device) {}

  // Generates and runs the program on the calling thread's stream.
  ProgramResult Run() {
    try {
      ChooseDims();
      CreateInputs();
      const int steps = Uniform(4, 14);
      for (int s = 0; s < steps; ++s) Step(s, steps);
      ReadFinalOutputs();
    } catch (const std::exception& e) {
      result_.error = e.what();
    }
    pool_.clear();  // the Drops of whatever is left run when the stream drains
    return std::move(result_);
  }

 private:
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

  enum class Un { kExp, kLog, kLog1p, kSqrt, kAbs, kNeg, kRecip, kSin, kCos, kTanh, kErf, kSquare };
  enum class Red { kSum, kMean, kProd, kMax, kMin, kArgMax, kArgMin };
  enum class Cmp { kEqual, kLower, kGreater, kLowerEqual, kGreaterEqual };

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

  // --- Program shape --------------------------------------------------------------------
  void ChooseDims() {
    if (Chance(0.15)) {
      const auto big = OneOf<std::pair<int, int>>(
          {{257, 33}, {33, 257}, {129, 130}, {1000, 17}, {64, 1000}, {300, 70}});
      m_ = big.first;
      n_ = big.second;
    } else {
      m_ = Chance(0.1) ? 1 : Uniform(2, 70);
      n_ = Chance(0.1) ? 1 : Uniform(2, 70);
    }
    p_ = Uniform(1, 70);
    if (shifted_) {
      for (int64_t* d : {&m_, &n_, &p_}) *d = *d == 1 ? 1 : *d + 3;
    }
    const int d = Weighted({80, 10, 10});
    dtype_ = d == 0 ? DType::kF32 : d == 1 ? DType::kF16 : DType::kBF16;
    result_.features.dtype = dtype_;
    result_.listing += "  # m=" + std::to_string(m_) + " n=" + std::to_string(n_) +
                       " p=" + std::to_string(p_) + " dtype=" + std::string(DTypeName(dtype_)) +
                       "\n";
  }

  void CreateInputs() {
    const int count = Uniform(2, 4);
    bool have_weights = false;
    for (int i = 0; i < count; ++i) {
      std::vector<int64_t> shape{m_, n_};
      double scale = 1.0;
      if (i > 0) {
        switch (Weighted({35, 12, 10, 13, 20, 10})) {
          case 0: break;
          case 1: shape = {1, n_}; break;
          case 2: shape = {m_, 1}; break;
          case 3: shape = {n_}; break;
          case 4:
            shape = {n_, p_};
            scale = 1.0 / std::sqrt(static_cast<double>(n_));
            have_weights = true;
            break;
          case 5: shape = have_weights ? std::vector<int64_t>{p_} : std::vector<int64_t>{n_}; break;
        }
      }
      int64_t numel = 1;
      for (int64_t d : shape) numel *= d;
      std::vector<float> data(static_cast<size_t>(numel));
      Range range;
      std::string kind;
      switch (Weighted({50, 20, 20, 10})) {
        case 0:
          for (float& x : data) x = static_cast<float>(Real(-1, 1) * scale);
          range = {-scale, scale};
          kind = "uniform";
          break;
        case 1:
          for (float& x : data) x = static_cast<float>(Real(0.1, 2));
          range = {0.1, 2};
          kind = "positive";
          break;
        case 2:
          // Steps of 1/4 (exact in every float dtype): ties for max/argmax and Equal, zeros.
          for (float& x : data) x = static_cast<float>(Uniform(-8, 8)) / 4.0f;
          if (Chance(0.5)) data[0] = -0.0f;
          range = {-2, 2};
          kind = "quarters";
          break;
        case 3:
          for (float& x : data) x = static_cast<float>(Real(-4, 4));
          range = {-4, 4};
          kind = "wide";
          break;
      }
      Tensor t = Tensor::FromVector(data, shape, dtype_, device_);
      pending_ = {};
      Emit(std::move(t), "input " + kind, range);
      pool_.back().exact = true;
      pool_.back().coarsest_float = DType::kF32;
    }
  }

  // --- One step of the program ----------------------------------------------------------
  void Step(int s, int steps) {
    enum {
      kUnary,
      kBinary,
      kScalar,
      kMask,
      kClamp,
      kCast,
      kView,
      kReduce,
      kSoftmax,
      kLayerNorm,
      kMatmul,
      kDrop,
      kRead
    };
    const int kind = Weighted({18, 16, 10, 7, 4, 6, 6, 12, 5, 4, 9, 4, 2});
    switch (kind) {
      case kUnary: UnaryStep(); break;
      case kBinary: BinaryStep(); break;
      case kScalar: ScalarStep(); break;
      case kMask: MaskStep(); break;
      case kClamp: ClampStep(); break;
      case kCast: CastStep(); break;
      case kView: ViewStep(); break;
      case kReduce: ReduceStep(); break;
      case kSoftmax: Softmax(); break;
      case kLayerNorm: LayerNorm(); break;
      case kMatmul: MatmulStep(); break;
      case kDrop: DropStep(); break;
      case kRead:
        if (s + 1 < steps && result_.outputs.size() < 2) MidRead();
        break;
    }
  }

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

  // --- Steps --------------------------------------------------------------------------------
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
        // Rem: the result takes the divisor's sign (burn's remainder).
        const double s = OneOf({0.7, 1.5, -2.0});
        Arg a = Use(Tame(x, 1e3));
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

  void DropStep() {
    if (pool_.size() < 3) return;
    const size_t i = static_cast<size_t>(Uniform(0, static_cast<int>(pool_.size()) - 2));
    Note("drop " + pool_[i].name());
    ++result_.features.drops;
    pool_.erase(pool_.begin() + static_cast<std::ptrdiff_t>(i));
  }

  void MidRead() {
    const auto x = Pick([](const Value&) { return true; });
    if (x) Read(*x, false);
  }

  void ReadFinalOutputs() {
    if (pool_.empty()) return;
    const int newest = pool_.back().id;
    const int more = std::min<int>(Uniform(0, 2), 3 - static_cast<int>(result_.outputs.size()) - 1);
    std::vector<int> ids{newest};
    for (int i = 0; i < more; ++i) {
      const int id = pool_[static_cast<size_t>(Uniform(0, static_cast<int>(pool_.size()) - 1))].id;
      if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    }
    for (int id : ids) Read(id, Chance(0.5));
  }

  // ToVector, consuming the tensor (its read is its last use) or keeping it.
  void Read(int id, bool consume) {
    Value& v = Get(id);
    ProgramOutput out{v.name(), v.dtype(), v.shape(), {}, {}};
    out.fuzzy = v.fuzzy;
    out.coarsest_float = v.coarsest_float;
    Note(std::string(consume ? "read " + v.name() + "* (consumed)" : "read " + v.name()));
    Tensor t = consume ? std::move(v.t) : v.t;
    if (consume) std::erase_if(pool_, [&](const Value& p) { return p.id == id; });
    if (IsFloat(out.dtype)) {
      out.floats = std::move(t).ToVector<float>();
    } else if (out.dtype == DType::kBool) {
      for (bool b : std::move(t).ToVector<bool>()) out.ints.push_back(b ? 1 : 0);
    } else {
      out.ints = std::move(t).ToVector<int64_t>();
    }
    result_.outputs.push_back(std::move(out));
  }

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

// Generates and runs the program of `seed` on the calling thread's stream of `device`.
inline ProgramResult RunRandomProgram(uint64_t seed, bool shifted = false,
                                      Device device = Device::Cpu()) {
  return RandomProgram(seed, shifted, device).Run();
}

}  // namespace ember::testing

// RandomProgram: seeded random programs over the public Tensor API, for the differential fusion
// test (differential_test.cpp). Header-only: the suite builds every tests/end_to_end/*_test.cpp,
// and a helper .cpp there would need that suffix. It is built in layers, one header each:
// program_pool.h (draws, live values, listing), program_emitters.h (one op each),
// program_elementwise_steps.h, program_shape_steps.h and program_indexed_steps.h (the steps),
// and RandomProgram here (the program's dims, inputs, steps and reads); program_result.h is
// what a run gives back.
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
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include <ember/ember.h>

#include "tests/end_to_end/program_indexed_steps.h"
#include "tests/end_to_end/program_result.h"

namespace ember::testing {

class RandomProgram : public IndexedSteps {
 public:
  // `shifted`: the same draws with every dim other than 1 grown by 3, so dims that were equal
  // stay equal and the relative shapes mostly match the unshifted program's (Note [Relative
  // form]): run after it on one engine, its segments hit the plans stored for the other dims.
  explicit RandomProgram(uint64_t seed, bool shifted = false, Device device = Device::Cpu())
      : IndexedSteps(seed, shifted, device) {}

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
      kRead,
      kIndexed,
      kBitwise
    };
    const int kind = Weighted({18, 16, 10, 7, 4, 6, 6, 12, 5, 4, 9, 4, 2, 7, 4});
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
      case kIndexed: IndexedStep(); break;
      case kBitwise: BitwiseStep(); break;
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
};

// Generates and runs the program of `seed` on the calling thread's stream of `device`.
inline ProgramResult RunRandomProgram(uint64_t seed, bool shifted = false,
                                      Device device = Device::Cpu()) {
  return RandomProgram(seed, shifted, device).Run();
}

}  // namespace ember::testing

// Helpers for the GPU suite (tests/gpu/): the CUDA device or a visible skip, fusion on and off
// for both devices, host inputs from a printed seed, and the tolerances GPU results are held to
// against the CPU backend (the oracle: STYLE.md, habit 9).
//
// Every test here goes through the public API only (<ember/ember.h>) plus the configuration
// switch the CPU differential test uses (engine/core/config.h). Until the CUDA backend exists,
// Device::Cuda(0) throws ember::Error and every GPU test skips with that message.
//
// Note [GPU tolerances]
// The CPU backend computes float math in f32 and rounds to the stored dtype (Note [CPU compute
// domains], engine/runtime/cpu/convert.h). A CUDA kernel doing the same math differs in the
// last bits: its exp/sin/erf are not glibc's, it may contract a*b+c into an FMA, and its
// reductions and matmuls add in another order. So:
//   f32: ‖gpu − cpu‖₂ / ‖cpu‖₂ ≤ 1e-5 over the finite elements of a tensor (about 100 f32 ulps
//        of the tensor's scale: a few ulps per op, a reordered sum of 10⁴ terms stays below
//        1e-6; a wrong index or a missed element gives 1e-2 or more).
//   f16: 1e-2, bf16: 2e-2, the same norm-wise ratio. Both devices round an f32 value to 16
//        bits; when their f32 values differ in the last bit the rounding can land one 16-bit
//        ulp apart (2⁻¹¹ ≈ 4.9e-4 relative for f16, 2⁻⁸ ≈ 3.9e-3 for bf16), and a chain of ops
//        carries such flips on. Twenty f16 ulps / five bf16 ulps norm-wise leaves room for
//        chains while a wrong element (an error of the value's own size) still fails.
//   Non-finite elements must match exactly: NaN where the CPU has NaN, the same infinities.
//   i32, i64, bool: exactly equal.
// Values that come straight from the host (inputs, casts of inputs, views, gathers) are exact
// on any correct backend, and the tests that check them say so (Exact()).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iomanip>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>

#include "engine/core/config.h"
#include "tests/end_to_end/program_generator.h"

namespace ember::gpu {

using testing::ProgramOutput;

// Device::Cuda(0), or the message of the ember::Error it threw.
inline std::optional<std::string> CudaUnavailable(Device* device) {
  try {
    *device = Device::Cuda(0);
    return std::nullopt;
  } catch (const Error& e) {
    return std::string(e.what());
  }
}

// EMBER_GPU_SUITE_ON_CPU=1 makes the CPU the device under test, compared with itself: a check
// of the suite's own code (inputs, programs, comparisons) on a machine without a GPU, not of
// any backend. ember-lab's GPU tests still skip then (the binary is asked for --device cuda).
inline bool SuiteOnCpu() {
  const char* env = std::getenv("EMBER_GPU_SUITE_ON_CPU");
  return env != nullptr && std::string(env) == "1";
}

// The device under test: Device::Cuda(0) (or the CPU under EMBER_GPU_SUITE_ON_CPU=1), or why
// CUDA cannot be used.
inline std::optional<std::string> DeviceUnderTest(Device* device) {
  if (SuiteOnCpu()) {
    *device = Device::Cpu();
    return std::nullopt;
  }
  return CudaUnavailable(device);
}

// Declares `var` as the device under test, or skips the test with the reason CUDA cannot be
// used.
#define EMBER_CUDA_OR_SKIP(var)                                          \
  ::ember::Device var = ::ember::Device::Cpu();                          \
  if (const auto ember_cuda_why = ::ember::gpu::DeviceUnderTest(&var)) { \
    GTEST_SKIP() << "no usable CUDA device: " << *ember_cuda_why;        \
  }                                                                      \
  static_assert(true, "")

// Sets fusion on or off for every device and releases the CPU and (when usable) the CUDA engine,
// so the next op on each starts an engine that reads the new configuration. The plan database
// is off: stored plans from other runs must not join a comparison.
inline void UseFusion(bool enabled, size_t max_blocks = Config{}.max_blocks) {
  Config config;
  config.fusion_enabled = enabled;
  config.max_blocks = max_blocks;
  config.plan_db = "off";
  config.shm = false;
  SetGlobalConfigForTesting(config);
  ReleaseDevice(Device::Cpu());
  Device cuda = Device::Cpu();
  if (!CudaUnavailable(&cuda)) ReleaseDevice(cuda);
}

// The seed of the host inputs: EMBER_GPU_SEED, else drawn once per process. Printed once, so a
// failing run can be repeated with the same inputs.
inline uint64_t InputSeed() {
  static const uint64_t seed = [] {
    uint64_t s = 0;
    if (const char* env = std::getenv("EMBER_GPU_SEED")) {
      s = std::stoull(env);
    } else {
      std::random_device rd;
      s = (uint64_t{rd()} << 32) ^ rd();
    }
    std::printf("[gpu] host inputs from seed %llu (EMBER_GPU_SEED=%llu repeats them)\n",
                static_cast<unsigned long long>(s), static_cast<unsigned long long>(s));
    std::fflush(stdout);
    return s;
  }();
  return seed;
}

// Host data for one test: std::mt19937 from InputSeed() and a salt, so every test draws its own
// values and a rerun with the same seed draws the same ones. Uniform reals are never exactly 0.
class HostData {
 public:
  explicit HostData(uint64_t salt)
      : rng_(static_cast<std::mt19937::result_type>(InputSeed() ^ (salt * 0x9E3779B97F4A7C15ull))) {
  }

  std::vector<float> Uniform(size_t n, float lo, float hi) {
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(n);
    for (float& x : v) x = dist(rng_);
    return v;
  }
  // Multiples of 1/4 in [lo, hi]: exact in every float dtype, so ties and equalities occur.
  std::vector<float> Quarters(size_t n, int lo, int hi) {
    std::uniform_int_distribution<int> dist(lo * 4, hi * 4);
    std::vector<float> v(n);
    for (float& x : v) x = static_cast<float>(dist(rng_)) / 4.0f;
    return v;
  }
  std::vector<int64_t> Ints(size_t n, int64_t lo, int64_t hi) {
    std::uniform_int_distribution<int64_t> dist(lo, hi);
    std::vector<int64_t> v(n);
    for (int64_t& x : v) x = dist(rng_);
    return v;
  }
  std::vector<bool> Bools(size_t n) {
    std::bernoulli_distribution dist(0.5);
    std::vector<bool> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = dist(rng_);
    return v;
  }

 private:
  std::mt19937 rng_;
};

inline int64_t Numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// A tensor of `dtype` on `device` from host values (floats convert as FromVector does).
inline Tensor Make(const std::vector<float>& values, std::vector<int64_t> shape, DType dtype,
                   Device device) {
  return Tensor::FromVector(values, std::move(shape), dtype, device);
}
inline Tensor MakeInt(const std::vector<int64_t>& values, std::vector<int64_t> shape, DType dtype,
                      Device device) {
  if (dtype == DType::kI64) return Tensor::FromVector<int64_t>(values, std::move(shape), device);
  std::vector<int32_t> v(values.begin(), values.end());
  Tensor t = Tensor::FromVector<int32_t>(std::move(v), std::move(shape), device);
  return dtype == DType::kI32 ? t : t.Cast(dtype);
}

// Reads a tensor back: float dtypes as float (f16 and bf16 widen exactly), the others as int64.
inline ProgramOutput Read(const Tensor& t, const std::string& name) {
  ProgramOutput out{name, t.Dtype(), t.Shape(), {}, {}};
  if (IsFloat(t.Dtype())) {
    out.floats = t.ToVector<float>();
  } else if (t.Dtype() == DType::kBool) {
    for (bool b : t.ToVector<bool>()) out.ints.push_back(b ? 1 : 0);
  } else {
    out.ints = t.ToVector<int64_t>();
  }
  return out;
}

// The norm-wise tolerance of Note [GPU tolerances] for a float dtype.
inline double FloatTolerance(DType dtype) {
  switch (dtype) {
    case DType::kF32: return 1e-5;
    case DType::kF16: return 1e-2;
    case DType::kBF16: return 2e-2;
    case DType::kI32:
    case DType::kI64:
    case DType::kBool: return 0;
  }
  return 0;
}

struct CompareOptions {
  // Multiplies FloatTolerance; 0 demands equal bits (any NaN equals any NaN).
  double tolerance_scale = 1.0;
  // Elements of the output (floats outside their share of the tolerance, unequal ints) that may
  // differ: for outputs downstream of a discontinuous op on computed values (Note [Fuzzy
  // outputs] in differential_gpu_test.cpp). 0 for every other output.
  double allowed_mismatch_fraction = 0.0;
};

// Empty when `got` (GPU) matches `want` (CPU) under Note [GPU tolerances]; else what differs.
inline std::string Compare(const ProgramOutput& want, const ProgramOutput& got,
                           CompareOptions options = {}) {
  std::ostringstream out;
  out << std::setprecision(9);
  if (want.dtype != got.dtype || want.shape != got.shape) {
    out << "  " << want.name << ": " << testing::ShapeText(want.shape) << " "
        << DTypeName(want.dtype) << " on the CPU, " << testing::ShapeText(got.shape) << " "
        << DTypeName(got.dtype) << " on the GPU\n";
    return out.str();
  }
  if (want.floats.size() != got.floats.size() || want.ints.size() != got.ints.size()) {
    return "  " + want.name + ": element counts differ\n";
  }
  const size_t count = want.floats.size() + want.ints.size();
  // A fuzzy output may differ in a share of its elements, and in one at least.
  const size_t allowed =
      options.allowed_mismatch_fraction > 0
          ? std::max<size_t>(1, static_cast<size_t>(options.allowed_mismatch_fraction *
                                                    static_cast<double>(count)))
          : 0;
  const double tol = FloatTolerance(want.dtype) * options.tolerance_scale;
  size_t mismatches = 0;
  auto note = [&](size_t i, double w, double g) {
    if (mismatches++ < 5) {
      out << "  " << want.name << "[" << i << "]: cpu " << w << ", gpu " << g << "\n";
    }
  };
  if (!want.floats.empty()) {
    double diff2 = 0, norm2 = 0;
    for (size_t i = 0; i < want.floats.size(); ++i) {
      const float w = want.floats[i], g = got.floats[i];
      if (!std::isfinite(w) || !std::isfinite(g)) {
        const bool same = (std::isnan(w) && std::isnan(g)) || w == g;
        if (!same) note(i, w, g);
        continue;
      }
      if (tol == 0 && std::bit_cast<uint32_t>(w) != std::bit_cast<uint32_t>(g)) note(i, w, g);
      diff2 += (double{g} - w) * (double{g} - w);
      norm2 += double{w} * w;
    }
    const double norm = std::sqrt(norm2), diff = std::sqrt(diff2);
    const double rel = diff / std::max(norm, 1e-30);
    if (tol > 0 && rel > tol && allowed == 0) {
      out << "  " << want.name << ": relative error " << rel << " > " << tol << " (‖gpu−cpu‖ "
          << diff << ", ‖cpu‖ " << norm << ")\n";
      // The worst elements, for the reader.
      std::vector<size_t> order(want.floats.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      auto err = [&](size_t i) { return std::abs(double{got.floats[i]} - want.floats[i]); };
      std::partial_sort(order.begin(), order.begin() + std::min<size_t>(5, order.size()),
                        order.end(), [&](size_t a, size_t b) { return err(a) > err(b); });
      for (size_t k = 0; k < std::min<size_t>(5, order.size()); ++k) {
        out << "    [" << order[k] << "] cpu " << want.floats[order[k]] << ", gpu "
            << got.floats[order[k]] << "\n";
      }
      return out.str();
    }
    if (tol > 0 && allowed > 0) {
      // Per element: within the tolerance of the element's size or of the tensor's rms.
      const double rms = norm / std::sqrt(static_cast<double>(want.floats.size()));
      for (size_t i = 0; i < want.floats.size(); ++i) {
        const float w = want.floats[i], g = got.floats[i];
        if (!std::isfinite(w) || !std::isfinite(g)) continue;
        if (std::abs(double{g} - w) > tol * (std::abs(double{w}) + rms)) note(i, w, g);
      }
    }
  }
  for (size_t i = 0; i < want.ints.size(); ++i) {
    if (want.ints[i] != got.ints[i]) {
      note(i, static_cast<double>(want.ints[i]), static_cast<double>(got.ints[i]));
    }
  }
  if (mismatches <= allowed) return "";
  out << "  " << want.name << ": " << mismatches << " of " << count << " elements differ"
      << (allowed > 0 ? " (allowed: " + std::to_string(allowed) + ")" : std::string()) << "\n";
  return out.str();
}

inline std::string CompareAll(const std::vector<ProgramOutput>& want,
                              const std::vector<ProgramOutput>& got, CompareOptions options = {}) {
  if (want.size() != got.size()) {
    return "  " + std::to_string(want.size()) + " outputs on the CPU, " +
           std::to_string(got.size()) + " on the GPU\n";
  }
  std::string diff;
  for (size_t i = 0; i < want.size(); ++i) diff += Compare(want[i], got[i], options);
  return diff;
}

}  // namespace ember::gpu

// The workloads of ember-bench-gpu (ember_bench_gpu.cpp's header lists them), written as a user
// writes them, each with its input sets, the bytes and flops it must move and a host check of a
// sample of its outputs.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "bench/gpu/gpu_bench_util.h"

namespace bench_gpu {

inline constexpr int64_t kRow = 4096;
inline constexpr int64_t kMatM = 8192, kMatK = 4096, kMatN = 4096;

// --- The workloads, written as a user writes them ---------------------------------------------

inline Tensor Seed(const Tensor& a, const Tensor& b, const Tensor& c) {
  Tensor ab = a * b;
  Tensor c2 = c * 2.0;
  return (std::move(ab) + std::move(c2)).Exp();
}

inline Tensor Chain8(const Tensor& input) {
  Tensor x = input * 0.5;
  x = std::move(x) + 1.0;
  x = std::move(x).Exp();
  x = std::move(x) - 0.25;
  x = std::move(x).Tanh();
  x = std::move(x) * 3.0;
  x = std::move(x).Sin();
  return std::move(x).Abs();
}

inline Tensor Softmax(const Tensor& x) {
  Tensor m = x.MaxDim(-1);
  Tensor e = (x - std::move(m)).Exp();
  Tensor s = e.SumDim(-1);
  return std::move(e) / std::move(s);
}

inline Tensor LayerNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta) {
  Tensor mu = x.MeanDim(-1);
  Tensor d = x - std::move(mu);
  Tensor sq = d * d;
  Tensor var = std::move(sq).MeanDim(-1);
  Tensor den = (std::move(var) + 1e-5).Sqrt();
  Tensor y = std::move(d) / std::move(den);
  y = std::move(y) * gamma;
  return std::move(y) + beta;
}

inline Tensor Gelu(Tensor y) {
  Tensor u = y * 0.7071067811865476;
  Tensor e = std::move(u).Erf() + 1.0;
  Tensor h = std::move(y) * 0.5;
  return std::move(h) * std::move(e);
}

// One input set: the tensors a call reads.
using InputSet = std::vector<Tensor>;

struct Workload {
  std::string name;
  int64_t n = 0;     // f32 elements per input (the size axis of the table)
  double bytes = 0;  // fewest bytes moved per call
  double flops = 0;  // matmul only
  std::function<InputSet(Device)> make_inputs;
  std::function<std::vector<Tensor>(const InputSet&)> call;
  // A host check of one call's outputs against double math, or nullopt where it would take
  // too long; returns the largest relative error.
  std::function<std::optional<double>(const InputSet&, const std::vector<Tensor>&)> check;
  bool epilogue_variants = false;  // also run with each matmul epilogue variant forced
};

inline Tensor Uniform(std::vector<int64_t> shape, Device device, double lo, double hi) {
  return Tensor::RandomUniform(std::move(shape), DType::kF32, device, lo, hi);
}

// max |got - want| / max(max |want|, 1e-6) over sampled elements of `rows` x `cols` outputs.
inline double RelError(const std::vector<float>& got, const std::vector<double>& want,
                       const std::vector<size_t>& at) {
  double err = 0, scale = 1e-6;
  for (size_t k = 0; k < at.size(); ++k) {
    err = std::max(err, std::abs(double{got[at[k]]} - want[k]));
    scale = std::max(scale, std::abs(want[k]));
  }
  return err / scale;
}

inline std::vector<size_t> Samples(size_t n, size_t count) {
  std::vector<size_t> at;
  for (size_t k = 0; k < count; ++k) at.push_back((k * 2654435761u) % n);
  return at;
}

inline std::vector<Workload> Elementwise(int64_t n) {
  std::vector<Workload> w;
  const double b = 4.0 * static_cast<double>(n);
  const bool small = n <= (int64_t{1} << 22);
  w.push_back(
      {"seed", n, 4 * b, 0,
       [n](Device d) {
         return InputSet{Uniform({n}, d, -1, 1), Uniform({n}, d, -1, 1), Uniform({n}, d, -1, 1)};
       },
       [](const InputSet& in) { return std::vector<Tensor>{Seed(in[0], in[1], in[2])}; },
       [small](const InputSet& in, const std::vector<Tensor>& out) -> std::optional<double> {
         if (!small) return std::nullopt;
         const auto a = in[0].ToVector<float>(), bb = in[1].ToVector<float>(),
                    c = in[2].ToVector<float>(), y = out[0].ToVector<float>();
         const auto at = Samples(y.size(), 4096);
         std::vector<double> want;
         for (size_t i : at) want.push_back(std::exp(double{a[i]} * bb[i] + c[i] * 2.0));
         return RelError(y, want, at);
       }});
  auto chain_ref = [](double x) {
    return std::abs(std::sin(std::tanh(std::exp(x * 0.5 + 1) - 0.25) * 3));
  };
  w.push_back({"chain8", n, 2 * b, 0, [n](Device d) { return InputSet{Uniform({n}, d, -1, 1)}; },
               [](const InputSet& in) { return std::vector<Tensor>{Chain8(in[0])}; },
               [small, chain_ref](const InputSet& in,
                                  const std::vector<Tensor>& out) -> std::optional<double> {
                 if (!small) return std::nullopt;
                 const auto x = in[0].ToVector<float>(), y = out[0].ToVector<float>();
                 const auto at = Samples(y.size(), 4096);
                 std::vector<double> want;
                 for (size_t i : at) want.push_back(chain_ref(x[i]));
                 return RelError(y, want, at);
               }});
  w.push_back({"chains5x8", n, 10 * b, 0,
               [n](Device d) {
                 InputSet s;
                 for (int k = 0; k < 5; ++k) s.push_back(Uniform({n}, d, -1, 1));
                 return s;
               },
               [](const InputSet& in) {
                 std::vector<Tensor> out;
                 for (const Tensor& x : in) out.push_back(Chain8(x));
                 return out;
               },
               [small, chain_ref](const InputSet& in,
                                  const std::vector<Tensor>& out) -> std::optional<double> {
                 if (!small) return std::nullopt;
                 double err = 0;
                 for (size_t k = 0; k < in.size(); ++k) {
                   const auto x = in[k].ToVector<float>(), y = out[k].ToVector<float>();
                   const auto at = Samples(y.size(), 1024);
                   std::vector<double> want;
                   for (size_t i : at) want.push_back(chain_ref(x[i]));
                   err = std::max(err, RelError(y, want, at));
                 }
                 return err;
               }});
  const int64_t rows = std::max<int64_t>(1, n / kRow);
  // softmax(x), and softmax(x * 0.125) as attention computes it: the scale before the max is
  // what lets the burn-faithful search fuse the whole softmax into one kernel (a reduce needs
  // an elementwise op to fuse on read: docs/FUSERS.md).
  for (const auto& [name, scale] :
       {std::pair{"softmax", 1.0}, std::pair{"softmax_scaled", 0.125}}) {
    w.push_back({name, rows * kRow, 2 * 4.0 * static_cast<double>(rows * kRow), 0,
                 [rows](Device d) {
                   return InputSet{Uniform({rows, kRow}, d, -4, 4)};
                 },
                 [scale](const InputSet& in) {
                   return std::vector<Tensor>{scale == 1.0 ? Softmax(in[0])
                                                           : Softmax(in[0] * scale)};
                 },
                 [small, scale](const InputSet& in,
                                const std::vector<Tensor>& out) -> std::optional<double> {
                   if (!small) return std::nullopt;
                   auto x = in[0].ToVector<float>();
                   for (float& v : x) v = static_cast<float>(v * scale);
                   const auto y = out[0].ToVector<float>();
                   std::vector<size_t> at;
                   std::vector<double> want;
                   for (int64_t r : {int64_t{0}, static_cast<int64_t>(x.size() / kRow) - 1}) {
                     const size_t base = static_cast<size_t>(r * kRow);
                     double m = -1e300, s = 0;
                     for (int64_t j = 0; j < kRow; ++j) m = std::max(m, double{x[base + j]});
                     for (int64_t j = 0; j < kRow; ++j) s += std::exp(x[base + j] - m);
                     for (int64_t j = 0; j < kRow; j += 7) {
                       at.push_back(base + j);
                       want.push_back(std::exp(x[base + j] - m) / s);
                     }
                   }
                   return RelError(y, want, at);
                 }});
  }
  w.push_back(
      {"layernorm", rows * kRow, 2 * 4.0 * static_cast<double>(rows * kRow) + 2 * 4 * kRow, 0,
       [rows](Device d) {
         return InputSet{Uniform({rows, kRow}, d, -3, 3), Uniform({kRow}, d, 0.5, 1.5),
                         Uniform({kRow}, d, -1, 1)};
       },
       [](const InputSet& in) { return std::vector<Tensor>{LayerNorm(in[0], in[1], in[2])}; },
       [small](const InputSet& in, const std::vector<Tensor>& out) -> std::optional<double> {
         if (!small) return std::nullopt;
         const auto x = in[0].ToVector<float>(), g = in[1].ToVector<float>(),
                    be = in[2].ToVector<float>(), y = out[0].ToVector<float>();
         std::vector<size_t> at;
         std::vector<double> want;
         for (int64_t r : {int64_t{0}, static_cast<int64_t>(x.size() / kRow) - 1}) {
           const size_t base = static_cast<size_t>(r * kRow);
           double mu = 0, var = 0;
           for (int64_t j = 0; j < kRow; ++j) mu += x[base + j];
           mu /= kRow;
           for (int64_t j = 0; j < kRow; ++j) var += (x[base + j] - mu) * (x[base + j] - mu);
           var /= kRow;
           for (int64_t j = 0; j < kRow; j += 7) {
             at.push_back(base + j);
             want.push_back((x[base + j] - mu) / std::sqrt(var + 1e-5) * g[j] + be[j]);
           }
         }
         return RelError(y, want, at);
       }});
  return w;
}

inline std::vector<Workload> Matmuls() {
  const double bytes =
      4.0 * static_cast<double>(kMatM * kMatK + kMatK * kMatN + kMatN + kMatM * kMatN);
  const double flops = 2.0 * kMatM * kMatN * kMatK;
  auto inputs = [](Device d) {
    const double s = 1.0 / std::sqrt(static_cast<double>(kMatK));
    return InputSet{Uniform({kMatM, kMatK}, d, -1, 1), Uniform({kMatK, kMatN}, d, -s, s),
                    Uniform({kMatN}, d, -0.1, 0.1)};
  };
  auto no_check = [](const InputSet&, const std::vector<Tensor>&) -> std::optional<double> {
    return std::nullopt;
  };
  return {
      {"matmul", kMatM * kMatN, bytes - 4.0 * kMatN, flops, inputs,
       [](const InputSet& in) { return std::vector<Tensor>{in[0].Matmul(in[1])}; }, no_check},
      {"matmul_bias", kMatM * kMatN, bytes, flops, inputs,
       [](const InputSet& in) { return std::vector<Tensor>{in[0].Matmul(in[1]) + in[2]}; },
       no_check, true},
      {"matmul_bias_relu", kMatM * kMatN, bytes, flops, inputs,
       [](const InputSet& in) {
         Tensor y = in[0].Matmul(in[1]) + in[2];
         return std::vector<Tensor>{
             std::move(y).Clamp(0.0, std::numeric_limits<double>::infinity())};
       },
       no_check, true},
      {"matmul_bias_gelu", kMatM * kMatN, bytes, flops, inputs,
       [](const InputSet& in) {
         Tensor y = in[0].Matmul(in[1]);
         y = std::move(y) + in[2];
         return std::vector<Tensor>{Gelu(std::move(y))};
       },
       no_check},
  };
}

}  // namespace bench_gpu

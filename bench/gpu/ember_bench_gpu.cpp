// ember-bench-gpu: ember's fused and unfused CUDA kernels on the workloads of the GPU issue, timed
// as a user calls them, with the same workloads in PyTorch (bench/gpu/torch_peer.py) merged into
// one table by bench/gpu/report.py (docs/BENCHMARKS.md, "The GPU suite").
//
//   ember-bench-gpu OUT.json
//   EMBER_BENCH_GPU_SIZES=24,26,28,20,22  exponents of the elementwise / row sizes (f32 elements),
//                                         in the order they run (the targets' sizes first)
//   EMBER_BENCH_GPU_REPEATS=15            timed calls per case (the median is reported)
//   EMBER_BENCH_GPU_BUDGET_S=240          wall-time budget; cases past it are skipped, and say so
//   EMBER_BENCH_GPU_MATMUL=0              leaves the matmul cases out
//   EMBER_BENCH_GPU_DEVICE=cpu            runs on the CPU backend (a check of this program only)
//   EMBER_BENCH_GPU_ONLY=softmax,chain8   only these workloads (for a profiler run)
//   EMBER_BENCH_GPU_UNFUSED=0             leaves the unfused pass out
//   EMBER_BENCH_GPU_HOST=0                leaves the host-time-per-launch measurement out
//
// Workloads (n f32 elements per input):
//   seed        (a*b + c*2).exp()                       3 inputs, 1 output
//   chain8      |sin(tanh(exp(x*0.5 + 1) - 0.25) * 3)|  8 ops (tools/lab/seed_programs.h's
//               UnrelatedChain): MulScalar, AddScalar, Exp, SubScalar, Tanh, MulScalar, Sin, Abs
//   chains5x8   five independent chain8s of n elements each, queued before one sync (40 ops)
//   softmax     exp(x - max(x)) / sum(exp(x - max(x))) over rows of 4096
//   layernorm   (x - mean) / sqrt(var + 1e-5) * gamma + beta over rows of 4096
//   matmul      [8192,4096] x [4096,4096] f32, alone, + bias, + bias + relu (Clamp(y, 0, inf)),
//               and + bias + gelu (0.5*y*(1 + erf(y/√2)))
// each with fusion on (`fused`) and off (`unfused`, every op its own kernel), switched through the
// engine's configuration as EMBER_FUSION would (the device's engine is released in between).
// matmul + bias and matmul + bias + relu also run with each variant of
// engine/runtime/cuda/backend/matmul_epilogue.h forced (`fused-cublaslt`: cuBLASLt's own
// epilogue; `fused-kernel`: cuBLASLt then the generated epilogue kernel); the `fused` row is the
// engine's own measured choice, and says which it was (`epilogue_choice`).
//
// Two timings per case, after warm-up calls (which explore, compile and fill the plan cache):
//   per_call      one call as a user makes it: queue the ops, then ember::Sync(device), timed
//                 on the host clock around both, so host overhead is included; the median over
//                 EMBER_BENCH_GPU_REPEATS calls;
//   back_to_back  N calls queued, one Sync at the end, total / N; the median of 3 rounds. A
//                 steady state: every queued call reads its own input set (so no two calls read
//                 the same tensor, and a kernel the search builds over several calls still moves
//                 every byte counted), and the exact N-call sequence (the same sets, the same
//                 order, the previous round's outputs dropped and synced before the round) runs
//                 twice untimed first, so the timed rounds replay stored plans and compiled
//                 kernels; `back_to_back_engine` shows they explore nothing.
// Per call, inputs rotate over several sets so that, at small sizes, L2 (60 MB on an H200) does
// not hold them from one call to the next. Outputs stay alive until the Sync (the engine must
// compute them) and are dropped after it.
//
// Host time per fused launch on the cache-hit path (`host_launch` in the JSON; target < 5 µs):
// the seed expression on 256 elements, so its kernel is about as short as a kernel gets. 200
// calls, each with an ember::Sync, after three untimed ones (every plan a cache hit, one fused
// launch per call: `synced_engine` shows both); from the median call the round trip of a bare
// launch + cuStreamSynchronize of an empty kernel is taken away and that launch's own host time
// added back, which leaves ember's host work for one fused launch (queueing the ops, the plan
// lookup, handles, PlanTrace, KernelArguments) and its cuLaunchKernel. Breakdown: PlanTrace +
// KernelArguments of the seed's trace and cuLaunchKernel of an empty kernel, each timed alone in
// a loop; the rest is the engine's. Also: 2000 calls on their own inputs queued and synced once
// (after two untimed rounds), per call; the search may put several calls in one kernel there.
//
// Bandwidth counts the fewest bytes each workload must move: each input read once and each
// output written once (matmul: A, B, bias and the output, and its rate in TFLOP/s as well).
//
// Why a plain timing main and not Google Benchmark (as bench/*.cpp): the figures must be taken
// exactly as above (host clock around enqueue + sync, a rotation of inputs, a fixed number of
// calls inside a time budget shared with the tests on a leased machine) and merged with
// PyTorch's into one table; Google Benchmark's adaptive iteration counts and its own JSON layout
// would have to be overridden at every one of those points.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <ember/ember.h>

#include "codegen/kernel_source.h"
#include "codegen/plan_trace.h"
#include "engine/core/config.h"
#include "engine/fuse/elementwise_fuser.h"
#include "engine/fuse/trace_optimization.h"
#include "engine/ir/builders.h"

#ifdef EMBER_WITH_CUDA
#include "engine/runtime/cuda/backend/matmul_epilogue.h"
#include "engine/runtime/cuda/cuda_device.h"
#include "engine/runtime/cuda/cuda_stream.h"
#include "engine/runtime/cuda/driver_api.h"
#include "engine/runtime/cuda/kernel_cache.h"
#endif

namespace {

using ember::Device;
using ember::DType;
using ember::Tensor;
using Clock = std::chrono::steady_clock;

constexpr int64_t kRow = 4096;
constexpr int64_t kMatM = 8192, kMatK = 4096, kMatN = 4096;
constexpr double kL2Bytes = 60e6;

double EnvDouble(const char* name, double fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::stod(v) : fallback;
}

std::vector<int> SizeExponents() {
  const char* v = std::getenv("EMBER_BENCH_GPU_SIZES");
  std::string text = v != nullptr && *v != '\0' ? v : "24,26,28,20,22";
  std::vector<int> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(std::stoi(text.substr(start, end - start)));
    start = end + 1;
  }
  return out;
}

void UseFusion(Device device, bool on) {
  ember::Config config = ember::GlobalConfig();
  config.fusion_enabled = on;
  ember::SetGlobalConfigForTesting(config);
  ember::ReleaseDevice(device);
}

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// --- The workloads, written as a user writes them ---------------------------------------------

Tensor Seed(const Tensor& a, const Tensor& b, const Tensor& c) {
  Tensor ab = a * b;
  Tensor c2 = c * 2.0;
  return (std::move(ab) + std::move(c2)).Exp();
}

Tensor Chain8(const Tensor& input) {
  Tensor x = input * 0.5;
  x = std::move(x) + 1.0;
  x = std::move(x).Exp();
  x = std::move(x) - 0.25;
  x = std::move(x).Tanh();
  x = std::move(x) * 3.0;
  x = std::move(x).Sin();
  return std::move(x).Abs();
}

Tensor Softmax(const Tensor& x) {
  Tensor m = x.MaxDim(-1);
  Tensor e = (x - std::move(m)).Exp();
  Tensor s = e.SumDim(-1);
  return std::move(e) / std::move(s);
}

Tensor LayerNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta) {
  Tensor mu = x.MeanDim(-1);
  Tensor d = x - std::move(mu);
  Tensor sq = d * d;
  Tensor var = std::move(sq).MeanDim(-1);
  Tensor den = (std::move(var) + 1e-5).Sqrt();
  Tensor y = std::move(d) / std::move(den);
  y = std::move(y) * gamma;
  return std::move(y) + beta;
}

Tensor Gelu(Tensor y) {
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

Tensor Uniform(std::vector<int64_t> shape, Device device, double lo, double hi) {
  return Tensor::RandomUniform(std::move(shape), DType::kF32, device, lo, hi);
}

// max |got - want| / max(max |want|, 1e-6) over sampled elements of `rows` x `cols` outputs.
double RelError(const std::vector<float>& got, const std::vector<double>& want,
                const std::vector<size_t>& at) {
  double err = 0, scale = 1e-6;
  for (size_t k = 0; k < at.size(); ++k) {
    err = std::max(err, std::abs(double{got[at[k]]} - want[k]));
    scale = std::max(scale, std::abs(want[k]));
  }
  return err / scale;
}

std::vector<size_t> Samples(size_t n, size_t count) {
  std::vector<size_t> at;
  for (size_t k = 0; k < count; ++k) at.push_back((k * 2654435761u) % n);
  return at;
}

std::vector<Workload> Elementwise(int64_t n) {
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

std::vector<Workload> Matmuls() {
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

// --- Timing ----------------------------------------------------------------------------------

struct Timer {
  Clock::time_point start = Clock::now();
  double budget_s;
  bool Spent() const { return Ms(Clock::now() - start) / 1000.0 > budget_s; }
};

// Counters of the matmul epilogue chooser (process-wide), or zeros without CUDA.
struct EpilogueCounts {
  uint64_t measured = 0, chose_cublaslt = 0, refused = 0, runs_cublaslt = 0, runs_kernel = 0;
};
EpilogueCounts EpilogueCountsNow() {
#ifdef EMBER_WITH_CUDA
  const ember::cuda::EpilogueCounters c = ember::cuda::MatmulEpilogueCounters();
  return {c.measured, c.chose_cublaslt, c.refused, c.runs_cublaslt, c.runs_kernel};
#else
  return {};
#endif
}

nlohmann::json EngineDelta(const ember::Stats& before, const ember::Stats& after, int calls) {
  return {{"explorations", after.explorations - before.explorations},
          {"cache_hits", after.cache_hits - before.cache_hits},
          {"launches", after.launches - before.launches},
          {"launch_record_hits", after.launch_record_hits - before.launch_record_hits},
          {"launch_record_misses", after.launch_record_misses - before.launch_record_misses},
          {"calls", calls}};
}

// `variant`: fused, unfused, fused-cublaslt or fused-kernel (the caller set the engine up).
nlohmann::json RunCase(Device device, const Workload& w, const std::string& variant, int repeats) {
  nlohmann::json r = {{"workload", w.name}, {"n", w.n}, {"variant", variant}, {"bytes", w.bytes}};
  if (w.flops > 0) r["flops"] = w.flops;
  const EpilogueCounts epilogue_before = EpilogueCountsNow();
  // Back to back: N calls, each on its own input set; inputs and outputs of one round stay
  // under ~24 GB.
  const double call_bytes = std::max(1.0, w.bytes);
  const int calls = static_cast<int>(std::clamp(24e9 / call_bytes, 3.0, 50.0));
  // Per call: enough input sets that their total exceeds a few L2s, at least two.
  const int sets = static_cast<int>(std::clamp(std::ceil(4 * kL2Bytes / call_bytes), 2.0, 16.0));
  std::vector<InputSet> inputs;
  for (int s = 0; s < std::max(sets, calls); ++s) inputs.push_back(w.make_inputs(device));
  ember::Sync(device);

  // Warm-up: explores, compiles, and fills the plan cache; one checked call.
  for (int i = 0; i < 3; ++i) {
    std::vector<Tensor> out = w.call(inputs[static_cast<size_t>(i % sets)]);
    ember::Sync(device);
    if (i == 2) {
      if (const auto err = w.check(inputs[static_cast<size_t>(i % sets)], out)) {
        r["max_rel_error"] = *err;
      }
    }
  }

  const ember::Stats before = ember::GetStats(device);
  std::vector<double> per_call;
  for (int i = 0; i < repeats; ++i) {
    const InputSet& in = inputs[static_cast<size_t>(i % sets)];
    const Clock::time_point t0 = Clock::now();
    std::vector<Tensor> out = w.call(in);
    ember::Sync(device);
    per_call.push_back(Ms(Clock::now() - t0));
  }
  // What the engine did over the timed calls: a steady state explores nothing.
  r["per_call_engine"] = EngineDelta(before, ember::GetStats(device), repeats);
  r["per_call_ms"] = Median(per_call);
  r["per_call_min_ms"] = *std::min_element(per_call.begin(), per_call.end());

  // Back to back: two untimed rounds of the exact sequence, then three timed ones. Each round
  // starts on a drained engine: the previous round's outputs are dropped and synced first, so
  // every round queues the same ops in the same order.
  std::vector<double> b2b;
  ember::Stats b2b_before;
  for (int round = 0; round < 5; ++round) {
    if (round == 2) b2b_before = ember::GetStats(device);
    std::vector<std::vector<Tensor>> outs;
    outs.reserve(static_cast<size_t>(calls));
    const Clock::time_point t0 = Clock::now();
    for (int i = 0; i < calls; ++i) outs.push_back(w.call(inputs[static_cast<size_t>(i)]));
    ember::Sync(device);
    if (round >= 2) b2b.push_back(Ms(Clock::now() - t0) / calls);
    outs.clear();
    ember::Sync(device);
  }
  r["back_to_back_engine"] = EngineDelta(b2b_before, ember::GetStats(device), 3 * calls);
  r["back_to_back_ms"] = Median(b2b);
  r["back_to_back_calls"] = calls;
  r["input_sets"] = std::max(sets, calls);
  for (const char* mode : {"per_call", "back_to_back"}) {
    const double ms = r[std::string(mode) + "_ms"].get<double>();
    r[std::string(mode) + "_gbps"] = w.bytes / (ms * 1e6);
    if (w.flops > 0) r[std::string(mode) + "_tflops"] = w.flops / (ms * 1e9);
  }
  if (w.epilogue_variants) {
    const EpilogueCounts a = EpilogueCountsNow();
    const EpilogueCounts& b = epilogue_before;
    r["epilogue"] = {{"measured", a.measured - b.measured},
                     {"chose_cublaslt", a.chose_cublaslt - b.chose_cublaslt},
                     {"refused", a.refused - b.refused},
                     {"runs_cublaslt", a.runs_cublaslt - b.runs_cublaslt},
                     {"runs_kernel", a.runs_kernel - b.runs_kernel}};
    // The variant the timed calls ran: they are all one shape class.
    if (variant == "fused") {
      r["epilogue_choice"] = a.refused > b.refused                 ? "kernel (refused)"
                             : a.chose_cublaslt > b.chose_cublaslt ? "cublaslt"
                             : a.measured > b.measured             ? "kernel"
                                                                   : "unknown";
    }
  }
  return r;
}

// --- Host time per fused launch --------------------------------------------------------------

// The seed's fused trace as the elementwise fuser builds it, and a launch of it on n elements at
// fake addresses (codegen never dereferences them).
struct SeedTrace {
  ember::FuseTrace trace;
  ember::codegen::TraceLaunch launch;
};
SeedTrace MakeSeedTrace(int64_t n) {
  using ember::OpKind;
  using ember::TensorIr;
  using ember::TensorStatus;
  auto t = [](ember::TensorId id, TensorStatus status) {
    return TensorIr{.id = id, .shape = {1}, .status = status, .dtype = DType::kF32};
  };
  const TensorStatus ro = TensorStatus::kReadOnly, rw = TensorStatus::kReadWrite,
                     out = TensorStatus::kNotInit;
  ember::ElementWiseFuser fuser(0xffffffffu);
  for (const ember::OperationIr& op :
       {ember::ir::Binary(OpKind::kMul, t(0, ro), t(1, ro), t(3, out)),
        ember::ir::Scalar(OpKind::kMulScalar, t(2, ro), ember::ScalarIr::UInt(0), t(4, out)),
        ember::ir::Binary(OpKind::kAdd, t(3, rw), t(4, rw), t(5, out)),
        ember::ir::Unary(OpKind::kExp, t(5, rw), t(6, out))}) {
    fuser.Fuse(op);
  }
  SeedTrace s;
  s.trace = std::dynamic_pointer_cast<ember::TraceOptimization>(fuser.Finish())->trace();
  uint64_t address = 1 << 20;
  auto bound = [&](DType dtype) {
    ember::codegen::BoundTensor b{.dtype = dtype, .shape = {n}, .strides = {1}, .address = address};
    address += 1 << 20;
    return b;
  };
  s.launch.trace = &s.trace;
  for (const TensorIr& in : s.trace.resources.inputs) s.launch.inputs.push_back(bound(in.dtype));
  for (const TensorIr& o : s.trace.resources.outputs) s.launch.outputs.push_back(bound(o.dtype));
  for (size_t k = 0; k < s.trace.resources.scalars.size(); ++k) {
    s.launch.scalars.push_back(ember::ScalarIr::Float(2.0));
  }
  for (size_t b = 0; b < s.trace.blocks.size(); ++b) s.launch.block_shapes.push_back({n});
  return s;
}

// µs per PlanTrace + KernelArguments of the seed's trace on n elements.
double PlanTraceUs(int64_t n) {
  SeedTrace s = MakeSeedTrace(n);
  s.launch.trace = &s.trace;
  const ember::codegen::TracePlan first = ember::codegen::PlanTrace(s.launch);
  std::vector<std::vector<ember::codegen::Slot>> slots;
  for (const auto& spec : first.kernels) {
    slots.push_back(ember::codegen::GenerateKernel(s.trace, spec).slots);
  }
  constexpr int kIterations = 20000;
  uint64_t sink = 0;
  const Clock::time_point t0 = Clock::now();
  for (int i = 0; i < kIterations; ++i) {
    const ember::codegen::TracePlan plan = ember::codegen::PlanTrace(s.launch);
    for (size_t k = 0; k < plan.kernels.size() && k < slots.size(); ++k) {
      sink += ember::codegen::KernelArguments(s.launch, plan, slots[k]).size();
    }
  }
  const double us = Ms(Clock::now() - t0) * 1000.0 / kIterations;
  // The arguments are used, so the loop is not optimized away.
  if (sink == 0) std::fprintf(stderr, "ember-bench-gpu: the seed's trace planned no kernel\n");
  return us;
}

// An empty kernel's host time per cuLaunchKernel (batches of 256, synced between, the sync not
// counted) and its launch + cuStreamSynchronize round trip (the median of 200), or nullopt
// without CUDA.
struct BareLaunch {
  double launch_us = 0;
  double launch_sync_us = 0;
};
std::optional<BareLaunch> MeasureBareLaunch() {
#ifdef EMBER_WITH_CUDA
  using namespace ember::cuda;
  std::shared_ptr<CudaDevice> device = CudaDevice::Open(0);
  ScopedContext scope(*device);
  CudaStream stream(device);
  KernelCache cache(device);
  CUfunction f =
      cache.Get({"ember_empty", "extern \"C\" __global__ void ember_empty(unsigned long long) {}"});
  unsigned long long arg = 0;
  void* params[] = {&arg};
  auto launch = [&] {
    EMBER_CU(cuLaunchKernel, f, 1, 1, 1, 32, 1, 1, 0, stream.get(), params, nullptr);
  };
  double total_ms = 0;
  constexpr int kBatches = 20, kPerBatch = 256;
  for (int b = 0; b < kBatches; ++b) {
    const Clock::time_point t0 = Clock::now();
    for (int i = 0; i < kPerBatch; ++i) launch();
    total_ms += Ms(Clock::now() - t0);
    stream.Synchronize();
  }
  std::vector<double> round_trip;
  for (int i = 0; i < 200; ++i) {
    const Clock::time_point t0 = Clock::now();
    launch();
    stream.Synchronize();
    round_trip.push_back(Ms(Clock::now() - t0) * 1000.0);
  }
  return BareLaunch{.launch_us = total_ms * 1000.0 / (kBatches * kPerBatch),
                    .launch_sync_us = Median(round_trip)};
#else
  return std::nullopt;
#endif
}

nlohmann::json HostLaunch(Device device) {
  constexpr int64_t kTiny = 256;
  constexpr int kCalls = 2000, kSynced = 200;
  std::vector<InputSet> inputs;
  for (int i = 0; i < kCalls; ++i) {
    inputs.push_back({Uniform({kTiny}, device, -1, 1), Uniform({kTiny}, device, -1, 1),
                      Uniform({kTiny}, device, -1, 1)});
  }
  ember::Sync(device);
  nlohmann::json r = {{"workload", "seed"}, {"n", kTiny}, {"target_us", 5.0}};
  // Synced after each call, one fused launch each: three untimed calls, then kSynced timed.
  for (int i = 0; i < 3; ++i) {
    Tensor y = Seed(inputs[0][0], inputs[0][1], inputs[0][2]);
    ember::Sync(device);
  }
  ember::Stats before = ember::GetStats(device);
  std::vector<double> per_call;
  for (int i = 0; i < kSynced; ++i) {
    const InputSet& in = inputs[static_cast<size_t>(i)];
    const Clock::time_point t0 = Clock::now();
    Tensor y = Seed(in[0], in[1], in[2]);
    ember::Sync(device);
    per_call.push_back(Ms(Clock::now() - t0) * 1000.0);
  }
  r["synced_engine"] = EngineDelta(before, ember::GetStats(device), kSynced);
  r["synced_us_per_call"] = Median(per_call);
  // Queued, one sync: two untimed rounds of the exact sequence, then one timed. The search may
  // put several independent calls in one kernel, so this is per call, not per launch.
  double wall_ms = 0;
  for (int round = 0; round < 3; ++round) {
    if (round == 2) before = ember::GetStats(device);
    std::vector<Tensor> outs;
    outs.reserve(kCalls);
    const Clock::time_point t0 = Clock::now();
    for (const InputSet& in : inputs) outs.push_back(Seed(in[0], in[1], in[2]));
    ember::Sync(device);
    wall_ms = Ms(Clock::now() - t0);
    outs.clear();
    ember::Sync(device);
  }
  r["queued_engine"] = EngineDelta(before, ember::GetStats(device), kCalls);
  r["queued_us_per_call"] = wall_ms * 1000.0 / kCalls;
  // Per fused launch: the synced call less what a bare launch + sync round trip costs, plus
  // the bare launch's own host time (so what remains is ember's host work and one launch).
  nlohmann::json breakdown = {{"plan_trace_and_arguments_us", PlanTraceUs(kTiny)}};
  double per_launch = r["synced_us_per_call"].get<double>();
  if (device != Device::Cpu()) {
    if (const std::optional<BareLaunch> bare = MeasureBareLaunch()) {
      breakdown["cu_launch_kernel_us"] = bare->launch_us;
      breakdown["bare_launch_sync_us"] = bare->launch_sync_us;
      per_launch = per_launch - bare->launch_sync_us + bare->launch_us;
    }
  }
  r["us_per_launch"] = per_launch;
  // A launch that replays a launch record runs no PlanTrace (engine/runtime/cuda/backend/
  // launch_records.h): its cost is then not part of the launch.
  const bool recorded = r["synced_engine"]["launch_record_hits"].get<uint64_t>() > 0;
  breakdown["plan_trace_on_path"] = !recorded;
  breakdown["engine_rest_us"] =
      per_launch - (recorded ? 0.0 : breakdown["plan_trace_and_arguments_us"].get<double>()) -
      breakdown.value("cu_launch_kernel_us", 0.0);
  r["breakdown"] = breakdown;
  return r;
}

// Host time per unfused op (fusion off): `x.Exp()` and `x + y` on 256 elements, queued (N
// ops, one sync: the host's cost per op) and synced after each. The peer is PyTorch eager's
// per-op time (torch_peer.py's host_per_op), measured in the same call.
nlohmann::json HostUnfused(Device device) {
  constexpr int kCalls = 2000, kSynced = 200;
  const Tensor x = Uniform({256}, device, -1, 1), y = Uniform({256}, device, -1, 1);
  ember::Sync(device);
  nlohmann::json r = {{"n", 256}};
  auto measure = [&](const char* name, auto op) {
    for (int i = 0; i < 20; ++i) (void)op();
    ember::Sync(device);
    ember::Stats before = ember::GetStats(device);
    double wall_ms = 0;
    {
      std::vector<Tensor> outs;
      outs.reserve(kCalls);
      const Clock::time_point t0 = Clock::now();
      for (int i = 0; i < kCalls; ++i) outs.push_back(op());
      ember::Sync(device);
      wall_ms = Ms(Clock::now() - t0);
    }
    ember::Sync(device);
    nlohmann::json m = {{"queued_us_per_op", wall_ms * 1000.0 / kCalls},
                        {"queued_engine", EngineDelta(before, ember::GetStats(device), kCalls)}};
    std::vector<double> per_call;
    for (int i = 0; i < kSynced; ++i) {
      const Clock::time_point t0 = Clock::now();
      Tensor out = op();
      ember::Sync(device);
      per_call.push_back(Ms(Clock::now() - t0) * 1000.0);
    }
    m["synced_us_per_op"] = Median(per_call);
    r[name] = m;
  };
  measure("exp", [&] { return x.Exp(); });
  measure("add", [&] { return x + y; });
  return r;
}

std::string Today() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ember-bench-gpu OUT.json (see the file's header for the env)\n");
    return 2;
  }
  nlohmann::json doc = {{"tool", "ember"}, {"date", Today()}, {"results", nlohmann::json::array()}};
  auto write = [&] { std::ofstream(argv[1]) << doc.dump(2) << "\n"; };
  Device device = Device::Cpu();
  const char* on = std::getenv("EMBER_BENCH_GPU_DEVICE");
  try {
    // EMBER_BENCH_GPU_DEVICE=cpu: the CPU backend, to check the program itself without a GPU.
    if (on == nullptr || std::string(on) != "cpu") device = Device::Cuda(0);
  } catch (const ember::Error& e) {
    std::printf("ember-bench-gpu: not measured: %s\n", e.what());
    doc["skipped"] = e.what();
    write();
    return 0;
  }
  doc["device"] = device.ToString();
  const int repeats = static_cast<int>(EnvDouble("EMBER_BENCH_GPU_REPEATS", 15));
  Timer timer{.budget_s = EnvDouble("EMBER_BENCH_GPU_BUDGET_S", 240)};
  // The matmuls first, then the sizes in the order given: what the targets need comes before
  // the budget can run out.
  std::vector<Workload> workloads;
  if (EnvDouble("EMBER_BENCH_GPU_MATMUL", 1) != 0) {
    for (Workload& w : Matmuls()) workloads.push_back(std::move(w));
  }
  for (int e : SizeExponents()) {
    for (Workload& w : Elementwise(int64_t{1} << e)) workloads.push_back(std::move(w));
  }
  if (const char* only = std::getenv("EMBER_BENCH_GPU_ONLY")) {
    const std::string wanted = std::string(",") + only + ",";
    std::erase_if(workloads, [&](const Workload& w) {
      return wanted.find("," + std::string(w.name) + ",") == std::string::npos;
    });
  }

  // Host time per fused launch first: a fresh engine, fusion on, nothing else queued.
  if (EnvDouble("EMBER_BENCH_GPU_HOST", 1) != 0) {
    UseFusion(device, true);
    try {
      doc["host_launch"] = HostLaunch(device);
      const nlohmann::json& h = doc["host_launch"];
      std::printf("host per fused launch: %.2f us (%.2f us per call synced, %.2f queued)\n",
                  h["us_per_launch"].get<double>(), h["synced_us_per_call"].get<double>(),
                  h["queued_us_per_call"].get<double>());
    } catch (const ember::Error& e) {
      doc["host_launch"] = {{"error", e.what()}};
    }
    write();
  }

  // Host time per unfused op: fusion off, a fresh engine.
  if (EnvDouble("EMBER_BENCH_GPU_HOST", 1) != 0) {
    UseFusion(device, false);
    try {
      doc["host_unfused"] = HostUnfused(device);
      const nlohmann::json& h = doc["host_unfused"];
      std::printf("host per unfused op: exp %.2f us queued (%.2f synced), add %.2f us queued\n",
                  h["exp"]["queued_us_per_op"].get<double>(),
                  h["exp"]["synced_us_per_op"].get<double>(),
                  h["add"]["queued_us_per_op"].get<double>());
    } catch (const ember::Error& e) {
      doc["host_unfused"] = {{"error", e.what()}};
    }
    write();
  }

  std::printf("%-18s %11s %-14s %12s %10s %12s %10s %9s\n", "workload", "n", "variant",
              "per call ms", "GB/s", "b2b ms", "GB/s", "rel err");
  auto run_one = [&](const Workload& w, const std::string& variant) {
    nlohmann::json r;
    if (timer.Spent()) {
      r = {{"workload", w.name},
           {"n", w.n},
           {"variant", variant},
           {"skipped", "time budget (EMBER_BENCH_GPU_BUDGET_S) spent"}};
    } else {
      try {
        r = RunCase(device, w, variant, repeats);
      } catch (const ember::Error& e) {
        r = {{"workload", w.name}, {"n", w.n}, {"variant", variant}, {"error", e.what()}};
        ember::ReleaseDevice(device);
      }
    }
    doc["results"].push_back(r);
    write();  // what is measured survives a later crash or kill
    if (r.contains("per_call_ms")) {
      std::printf("%-18s %11lld %-14s %12.4f %10.1f %12.4f %10.1f %9s %s\n", w.name.c_str(),
                  static_cast<long long>(w.n), variant.c_str(), r["per_call_ms"].get<double>(),
                  r["per_call_gbps"].get<double>(), r["back_to_back_ms"].get<double>(),
                  r["back_to_back_gbps"].get<double>(),
                  r.contains("max_rel_error")
                      ? std::to_string(r["max_rel_error"].get<double>()).substr(0, 9).c_str()
                      : "-",
                  r.value("epilogue_choice", std::string()).c_str());
    } else {
      std::printf("%-18s %11lld %-14s %s\n", w.name.c_str(), static_cast<long long>(w.n),
                  variant.c_str(), r.value("skipped", r.value("error", std::string())).c_str());
    }
    std::fflush(stdout);
  };
  // Fusion on first (the figures the targets are about), then off; each switch releases the
  // device's engine.
  for (bool fused : {true, false}) {
    if (!fused && EnvDouble("EMBER_BENCH_GPU_UNFUSED", 1) == 0) break;
    UseFusion(device, fused);
    for (const Workload& w : workloads) {
      run_one(w, fused ? "fused" : "unfused");
#ifdef EMBER_WITH_CUDA
      if (fused && w.epilogue_variants && device != Device::Cpu()) {
        using ember::cuda::EpilogueMode;
        for (const auto& [mode, name] : {std::pair{EpilogueMode::kCublasLt, "fused-cublaslt"},
                                         std::pair{EpilogueMode::kKernel, "fused-kernel"}}) {
          ember::cuda::SetMatmulEpilogueModeForTesting(mode);
          run_one(w, name);
        }
        ember::cuda::SetMatmulEpilogueModeForTesting(std::nullopt);
      }
#endif
    }
  }
  UseFusion(device, true);
  write();
  return 0;
}

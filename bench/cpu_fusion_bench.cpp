// Fused against unfused ember on the CPU, in one process: each workload runs once with fusion
// on and once with it off (the `fused` argument), on the same data, so the report reads as a
// ratio. The peers (numpy, numexpr, PyTorch) run the same workloads in bench/cpu_peers.py;
// bench/run_cpu_fusion.sh runs both and prints the table recorded in docs/BENCHMARKS.md.
//
// Every iteration queues the whole workload and waits for it (ember::Sync), so the figure
// includes the engine's per-op host cost; after the first iteration every segment is a cache
// hit, as in a training loop.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <vector>

#include <ember/ember.h>

#include "engine/core/config.h"

namespace {

using ember::DType;
using ember::Tensor;

constexpr int64_t kRowLength = 1024;  // softmax / layernorm row length

// Switches fusion for the whole device: the device server reads the configuration when it
// starts, so release it.
void UseFusion(bool on) {
  ember::Config config = ember::GlobalConfig();
  config.fusion_enabled = on;
  ember::SetGlobalConfigForTesting(config);
  ember::ReleaseDevice(ember::Device::Cpu());
}

Tensor Input(int64_t n, float scale, std::vector<int64_t> shape) {
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = scale * static_cast<float>(i % 101) / 101.0f;
  return Tensor::FromVector(v, std::move(shape));
}

void Report(benchmark::State& state, int64_t n, int arrays) {
  state.SetBytesProcessed(state.iterations() * n * arrays * static_cast<int64_t>(sizeof(float)));
  state.SetLabel(state.range(1) != 0 ? "fused" : "unfused");
}

// (a*b + c*2).exp()
void BM_Seed(benchmark::State& state) {
  const int64_t n = state.range(0);
  UseFusion(state.range(1) != 0);
  Tensor a = Input(n, 1, {n}), b = Input(n, 2, {n}), c = Input(n, 0.5f, {n});
  ember::Sync();
  for (auto _ : state) {
    Tensor ab = a * b;
    Tensor c2 = c * 2.0;
    Tensor out = (std::move(ab) + std::move(c2)).Exp();
    ember::Sync();
    benchmark::DoNotOptimize(out);
  }
  Report(state, n, 4);
}

// x -> *0.5 +1 exp -0.25 tanh *3 sin abs
void BM_Chain8(benchmark::State& state) {
  const int64_t n = state.range(0);
  UseFusion(state.range(1) != 0);
  Tensor x = Input(n, 1, {n});
  ember::Sync();
  for (auto _ : state) {
    Tensor y = x * 0.5;
    y = std::move(y) + 1.0;
    y = std::move(y).Exp();
    y = std::move(y) - 0.25;
    y = std::move(y).Tanh();
    y = std::move(y) * 3.0;
    y = std::move(y).Sin();
    y = std::move(y).Abs();
    ember::Sync();
    benchmark::DoNotOptimize(y);
  }
  Report(state, n, 2);
}

// softmax(x * 0.125) over rows of kRowLength
void BM_Softmax(benchmark::State& state) {
  const int64_t n = state.range(0);
  UseFusion(state.range(1) != 0);
  Tensor x = Input(n, 4, {n / kRowLength, kRowLength});
  ember::Sync();
  for (auto _ : state) {
    Tensor y = x * 0.125;
    Tensor m = y.MaxDim(1);
    Tensor e = (std::move(y) - std::move(m)).Exp();
    Tensor s = e.SumDim(1);
    Tensor out = std::move(e) / std::move(s);
    ember::Sync();
    benchmark::DoNotOptimize(out);
  }
  Report(state, n, 2);
}

// layernorm(x + r) over rows of kRowLength, no affine
void BM_LayerNorm(benchmark::State& state) {
  const int64_t n = state.range(0);
  UseFusion(state.range(1) != 0);
  Tensor x = Input(n, 2, {n / kRowLength, kRowLength});
  Tensor r = Input(n, 1, {n / kRowLength, kRowLength});
  ember::Sync();
  for (auto _ : state) {
    Tensor h = x + r;
    Tensor mu = h.MeanDim(1);
    Tensor xc = std::move(h) - std::move(mu);
    Tensor var = (xc * xc).MeanDim(1);
    Tensor out = std::move(xc) / (std::move(var) + 1e-5).Sqrt();
    ember::Sync();
    benchmark::DoNotOptimize(out);
  }
  Report(state, n, 3);
}

void Sizes(benchmark::internal::Benchmark* b) {
  for (int64_t log2 : {12, 16, 20, 22, 24}) {
    for (int64_t fused : {1, 0}) b->Args({int64_t{1} << log2, fused});
  }
  b->Unit(benchmark::kMillisecond)->UseRealTime()->ArgNames({"n", "fused"});
}

BENCHMARK(BM_Seed)->Apply(Sizes);
BENCHMARK(BM_Chain8)->Apply(Sizes);
BENCHMARK(BM_Softmax)->Apply(Sizes);
BENCHMARK(BM_LayerNorm)->Apply(Sizes);

}  // namespace

BENCHMARK_MAIN();

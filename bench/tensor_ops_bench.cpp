// Unfused CPU ops through the whole engine (queue, relative form, backend), each measured next
// to a plain C++ loop doing the same arithmetic on the same data, so the report reads as a
// ratio: what the engine costs over the loop a user could write by hand. These are the
// baselines the fused paths (later issues) must beat.
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include <ember/ember.h>

namespace {

using ember::DType;
using ember::Tensor;

std::vector<float> Values(int64_t n, float scale) {
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = scale * static_cast<float>(i % 97) / 97.0f;
  return v;
}

void SetBytes(benchmark::State& state, int64_t n, int arrays) {
  state.SetBytesProcessed(state.iterations() * n * arrays * static_cast<int64_t>(sizeof(float)));
}

// c = a + b
void BM_Add_Ember(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor a = Tensor::FromVector<float>(Values(n, 1), {n});
  Tensor b = Tensor::FromVector<float>(Values(n, 2), {n});
  ember::Sync();
  for (auto _ : state) {
    Tensor c = a + b;
    ember::Sync();
    benchmark::DoNotOptimize(c);
  }
  SetBytes(state, n, 3);
}

void BM_Add_Loop(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::vector<float> a = Values(n, 1), b = Values(n, 2), c(a.size());
  for (auto _ : state) {
    for (size_t i = 0; i < c.size(); ++i) c[i] = a[i] + b[i];
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  SetBytes(state, n, 3);
}

// The seed's expression, (a * b + c * 2).exp(): four ops, unfused.
void BM_SeedExpr_Ember(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor a = Tensor::FromVector<float>(Values(n, 1), {n});
  Tensor b = Tensor::FromVector<float>(Values(n, 2), {n});
  Tensor c = Tensor::FromVector<float>(Values(n, 3), {n});
  ember::Sync();
  for (auto _ : state) {
    Tensor ab = a * b;
    Tensor c2 = c * 2.0;
    Tensor y = (std::move(ab) + std::move(c2)).Exp();
    ember::Sync();
    benchmark::DoNotOptimize(y);
  }
  SetBytes(state, n, 4);  // the fused minimum: read a, b, c; write y
}

void BM_SeedExpr_Loop(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::vector<float> a = Values(n, 1), b = Values(n, 2), c = Values(n, 3), y(a.size());
  for (auto _ : state) {
    for (size_t i = 0; i < y.size(); ++i) y[i] = std::exp(a[i] * b[i] + c[i] * 2.0f);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  SetBytes(state, n, 4);
}

// Per-op engine overhead: a chain of 64 scalar adds on a one-element tensor.
void BM_OpOverhead_Ember(benchmark::State& state) {
  Tensor x = Tensor::Zeros({1}, DType::kF32);
  ember::Sync();
  for (auto _ : state) {
    Tensor y = x + 1.0;
    for (int i = 0; i < 63; ++i) y = std::move(y) + 1.0;
    ember::Sync();
    benchmark::DoNotOptimize(y);
  }
  state.SetItemsProcessed(state.iterations() * 64);
}

void BM_Matmul_Ember(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor a = Tensor::FromVector<float>(Values(n * n, 1), {n, n});
  Tensor b = Tensor::FromVector<float>(Values(n * n, 2), {n, n});
  ember::Sync();
  for (auto _ : state) {
    Tensor c = a.Matmul(b);
    ember::Sync();
    benchmark::DoNotOptimize(c);
  }
  state.SetItemsProcessed(state.iterations() * 2 * n * n * n);  // flops
}

void BM_Matmul_Loop(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::vector<float> a = Values(n * n, 1), b = Values(n * n, 2), c(a.size());
  const auto un = static_cast<size_t>(n);
  for (auto _ : state) {
    std::fill(c.begin(), c.end(), 0.0f);
    for (size_t i = 0; i < un; ++i) {
      for (size_t k = 0; k < un; ++k) {
        const float aik = a[i * un + k];
        for (size_t j = 0; j < un; ++j) c[i * un + j] += aik * b[k * un + j];
      }
    }
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * 2 * n * n * n);
}

BENCHMARK(BM_Add_Ember)->Arg(1 << 12)->Arg(1 << 20)->Arg(1 << 24)->UseRealTime();
BENCHMARK(BM_Add_Loop)->Arg(1 << 12)->Arg(1 << 20)->Arg(1 << 24)->UseRealTime();
BENCHMARK(BM_SeedExpr_Ember)->Arg(64 * 64)->Arg(1 << 20)->UseRealTime();
BENCHMARK(BM_SeedExpr_Loop)->Arg(64 * 64)->Arg(1 << 20)->UseRealTime();
BENCHMARK(BM_OpOverhead_Ember)->UseRealTime();
BENCHMARK(BM_Matmul_Ember)->Arg(256)->Arg(512)->Arg(1024)->Arg(2048)->UseRealTime();
BENCHMARK(BM_Matmul_Loop)->Arg(256)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();

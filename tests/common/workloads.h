// The programs the tests' engine children run through the public API, the one copy: the
// children of the end-to-end suites (DISABLED_PlanDatabaseChild.Run,
// tests/end_to_end/plan_database_test.cpp) and of the ember-plans suites
// (DISABLED_PlansEngineChild.Run, tests/tools/plans/engine_child_test.cpp) name them by
// EMBER_TEST_WORKLOAD or EMBER_TEST_PROGRAM. The seed's expression is ember-lab's own
// (tools/lab/seed_programs.h), so a test's plans are the plans the lab finds.
//
// Each returns a checksum of its results, so that two runs can be compared value for value.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include <ember/ember.h>

#include "tools/lab/seed_programs.h"

namespace ember::test {

// The seed's expression with s = 2 and a row softmax (x * 0.125, max, subtract, exp, sum,
// divide), at 64x64 and then at 32x32 (the same relative shapes): fused ElementWise and reduce
// plans.
inline double SeedAndSoftmax() {
  double checksum = 0;
  for (int64_t n : {64, 32}) {
    Tensor a = Tensor::FromVector(std::vector<float>(n * n, 0.5f), {n, n});
    Tensor b = Tensor::FromVector(std::vector<float>(n * n, 1.5f), {n, n});
    Tensor c = Tensor::FromVector(std::vector<float>(n * n, 0.25f), {n, n});
    for (float v : lab::SeedExpression(a, b, c, 2.0).ToVector<float>()) checksum += v;
    Tensor y = a * 0.125;
    Tensor m = y.MaxDim(1);
    Tensor e = (std::move(y) - std::move(m)).Exp();
    Tensor s = e.SumDim(1);
    for (float v : (std::move(e) / std::move(s)).ToVector<float>()) checksum += v;
  }
  return checksum;
}

// The seed's expression with s = 2 on constant rows x cols inputs: run at 64x64 and then at
// 64x32 on one database, the seed's question across processes.
inline double SeedAt(int64_t rows, int64_t cols) {
  const size_t n = static_cast<size_t>(rows * cols);
  Tensor a = Tensor::FromVector(std::vector<float>(n, 0.5f), {rows, cols});
  Tensor b = Tensor::FromVector(std::vector<float>(n, 1.5f), {rows, cols});
  Tensor c = Tensor::FromVector(std::vector<float>(n, 0.25f), {rows, cols});
  double checksum = 0;
  for (float v : lab::SeedExpression(a, b, c, 2.0).ToVector<float>()) checksum += v;
  return checksum;
}

// A sequence of L token rows ([1, 8] each) assembled by Cat, scaled and summed per column, for
// L = 4, 5, ... 11: a length that changes every step (ember-lab's dynamic scenario, smaller).
// Every new length is a Cat of another arity, so it misses the plans of the lengths before.
inline double ChangingLengths() {
  double checksum = 0;
  for (int64_t len = 4; len <= 11; ++len) {
    std::vector<Tensor> tokens;
    for (int64_t i = 0; i < len; ++i) {
      tokens.push_back(
          Tensor::FromVector(std::vector<float>(8, 0.1f * static_cast<float>(i)), {1, 8}));
    }
    Tensor seq = Cat(std::move(tokens), 0);
    for (float v : (std::move(seq) * 2.0).SumDim(0).ToVector<float>()) checksum += v;
  }
  return checksum;
}

// ((x * 2) + 1).exp() on a new relative shape every step (rank 1, 2, ... 5): every segment
// misses the plans found before it.
inline double ChangingShapes() {
  double checksum = 0;
  for (size_t rank = 1; rank <= 5; ++rank) {
    Tensor a = Tensor::Full(std::vector<int64_t>(rank, 3), 1.0, DType::kF32);
    for (float v : ((a * 2.0) + 1.0).Exp().ToVector<float>()) checksum += v;
  }
  return checksum;
}

// Sixteen distinct segments, four per first op (x * k on rank 1..4, then one of four unary
// ops): several plans per first op, for the shared-memory tier's tests.
inline double ManySegments() {
  double checksum = 0;
  for (size_t rank = 1; rank <= 4; ++rank) {
    Tensor a = Tensor::Full(std::vector<int64_t>(rank, 3), 0.5, DType::kF32);
    for (int variant = 0; variant < 4; ++variant) {
      Tensor y = a * (variant + 1.0);
      Tensor z = variant == 0   ? y.Exp()
                 : variant == 1 ? y.Tanh()
                 : variant == 2 ? y.Sqrt()
                                : y.Sin();
      for (float v : (std::move(z) + 1.0).ToVector<float>()) checksum += v;
    }
  }
  return checksum;
}

// Chains of 1..8 ops (x * 1.5 + 0.25, repeated) on ranks 1..5, one segment each (forty
// programs, then the same forty again, hit), until `done()` says so: a process that keeps
// publishing, for the tests that read while one writes.
inline double PublishingUntil(const std::function<bool()>& done) {
  double checksum = 0;
  for (int i = 0; !done(); ++i) {
    const size_t rank = static_cast<size_t>(i % 5) + 1;
    const int length = (i / 5) % 8 + 1;
    Tensor t = Tensor::Full(std::vector<int64_t>(rank, 2), 1.0, DType::kF32);
    for (int k = 0; k < length; ++k) t = t * 1.5 + 0.25;
    for (float v : t.ToVector<float>()) checksum += v;
    Sync();
  }
  return checksum;
}

// PublishingUntil for about 1.2 s.
inline double PublishingForAWhile() {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(1200);
  return PublishingUntil([&] { return std::chrono::steady_clock::now() >= end; });
}

// The program issue 13's forgeries edit (tests/store/forged_plans.h): (x * 0.5 + 3).mean(1) * 2
// on a [16, 8] and an [8, 8] input, each fused by the Reduce fuser into one plan whose trace
// holds a Mean and three scalar placeholders. Its checksum weighs every value by its position,
// so a forged plan that computes anything else shows.
inline double ForgeableProgram() {
  double checksum = 0;
  for (int64_t rows : {16, 8}) {
    std::vector<float> values(static_cast<size_t>(rows) * 8);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 7) * 0.25f;
    const Tensor x = Tensor::FromVector(values, {rows, 8});
    const std::vector<float> means = (((x * 0.5) + 3.0).MeanDim(1) * 2.0).ToVector<float>();
    for (size_t i = 0; i < means.size(); ++i) checksum += static_cast<double>(means[i]) * (i + 1);
  }
  return checksum;
}

}  // namespace ember::test

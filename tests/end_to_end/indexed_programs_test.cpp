// Issue 45's three programs, tried as a user would, on the CPU: each indexed op (Select of an
// embedding table, Cat, Gather) fuses with the elementwise ops after it into one kernel, as
// burn's fusers take them (Note [Indexed inputs], engine/trace/fuse_trace.h), and computes
// what the ops compute one by one, out-of-range indices (0) included.
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>

#include "tests/api/api_test_util.h"

namespace ember {
namespace {

struct ProgramRun {
  std::vector<float> values;
  uint64_t launches = 0;
  uint64_t fused = 0;
};

// `program` on a fresh stream, synced; what it computed and launched.
ProgramRun Measure(const std::function<Tensor()>& program) {
  ProgramRun run;
  testing::OnFreshStream([&] {
    const Stats start = GetStats();
    Tensor out = program();
    Sync();
    const Stats end = GetStats();
    run.launches = end.launches - start.launches;
    run.fused = end.fused_executions - start.fused_executions;
    run.values = out.ToVector<float>();
  });
  return run;
}

std::vector<float> Iota(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(i) - 1.5f;
  return v;
}

TEST(IndexedPrograms, AnEmbeddingLookupFusesWithWhatFollows) {
  const std::vector<float> table = Iota(5 * 4, 0.25f), pos = Iota(3 * 4, -0.5f);
  const std::vector<int64_t> idx = {4, 0, 7};  // 7 is out of range: a row of zeros
  const ProgramRun run = Measure([&] {
    Tensor t = Tensor::FromVector(table, {5, 4});
    Tensor i = Tensor::FromVector(idx, {3});
    Tensor p = Tensor::FromVector(pos, {3, 4});
    Sync();
    return t.Select(0, i) * 2.0 + p;
  });
  EXPECT_EQ(run.launches, 1u);
  EXPECT_EQ(run.fused, 1u);
  ASSERT_EQ(run.values.size(), 12u);
  for (size_t r = 0; r < 3; ++r) {
    for (size_t c = 0; c < 4; ++c) {
      const float row = idx[r] < 5 ? table[static_cast<size_t>(idx[r]) * 4 + c] : 0.0f;
      EXPECT_EQ(run.values[r * 4 + c], row * 2.0f + pos[r * 4 + c]) << r << "," << c;
    }
  }
}

TEST(IndexedPrograms, ACatFusesWithWhatFollows) {
  const std::vector<float> a = Iota(2 * 3, 0.5f), b = Iota(2 * 2, -0.25f);
  const ProgramRun run = Measure([&] {
    Tensor ta = Tensor::FromVector(a, {2, 3});
    Tensor tb = Tensor::FromVector(b, {2, 2});
    Sync();
    return Cat({ta, tb}, 1).Exp() * 3.0;
  });
  EXPECT_EQ(run.launches, 1u);
  EXPECT_EQ(run.fused, 1u);
  ASSERT_EQ(run.values.size(), 10u);
  for (size_t r = 0; r < 2; ++r) {
    for (size_t c = 0; c < 5; ++c) {
      const float x = c < 3 ? a[r * 3 + c] : b[r * 2 + (c - 3)];
      EXPECT_FLOAT_EQ(run.values[r * 5 + c], std::exp(x) * 3.0f) << r << "," << c;
    }
  }
}

TEST(IndexedPrograms, AGatherFusesWithWhatFollows) {
  const std::vector<float> a = Iota(2 * 3, 0.75f);
  const std::vector<int32_t> idx = {2, -1, 0, 1, 1, 3};  // -1 and 3 are out of range: 0
  const ProgramRun run = Measure([&] {
    Tensor ta = Tensor::FromVector(a, {2, 3});
    Tensor ti = Tensor::FromVector(idx, {2, 3});
    Sync();
    return ta.Gather(1, ti).Abs() + 1.0;
  });
  EXPECT_EQ(run.launches, 1u);
  EXPECT_EQ(run.fused, 1u);
  ASSERT_EQ(run.values.size(), 6u);
  for (size_t r = 0; r < 2; ++r) {
    for (size_t c = 0; c < 3; ++c) {
      const int32_t k = idx[r * 3 + c];
      const float x = k >= 0 && k < 3 ? a[r * 3 + static_cast<size_t>(k)] : 0.0f;
      EXPECT_EQ(run.values[r * 3 + c], std::fabs(x) + 1.0f) << r << "," << c;
    }
  }
}

}  // namespace
}  // namespace ember

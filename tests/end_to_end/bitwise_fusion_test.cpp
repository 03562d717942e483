// The bitwise ops end to end on the CPU (Note [Bitwise ops], engine/runtime/cpu/elementwise.cpp):
// an elementwise chain of them, as a user writes it, runs as one fused trace (one launch), and
// the fused run gives the unfused run's values exactly, on i32 and i64, with broadcast operands,
// Python-style scalars, negative numbers, the extremes and shift amounts outside [0, 64).
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>

#include "tests/api/api_test_util.h"
#include "tests/end_to_end/use_fusion.h"

namespace ember {
namespace {

using testing::UseFusion;

constexpr int64_t kRows = 67, kCols = 45;  // 3015 positions: two full tiles and a partial one

struct ChainRun {
  std::vector<int64_t> values;
  std::vector<int64_t> expected;  // computed here, element by element
  uint64_t launches = 0;
  uint64_t fused = 0;
};

// docs/API.md's shifts: NumPy's results for amounts outside [0, 64).
int64_t Shl(int64_t a, int64_t s) {
  return s >= 0 && s < 64 ? static_cast<int64_t>(static_cast<uint64_t>(a) << s) : 0;
}
int64_t Shr(int64_t a, int64_t s) { return a >> (s >= 0 && s < 64 ? s : 63); }

// x [rows, cols], y [cols] (a broadcast row), amounts [rows, 1] (a broadcast column), all of
// `dtype`, with negative numbers, the dtype's extremes and amounts from -3 to 70.
ChainRun RunChain(DType dtype, bool fusion) {
  UseFusion(fusion);
  ChainRun run;
  testing::OnFreshStream([&] {
    const bool wide = dtype == DType::kI64;
    const int64_t lo = wide ? std::numeric_limits<int64_t>::min() : INT32_MIN;
    const int64_t hi = wide ? std::numeric_limits<int64_t>::max() : INT32_MAX;
    std::vector<int64_t> x(kRows * kCols), y(kCols), amounts(kRows);
    uint64_t state = 0x9e3779b97f4a7c15ULL;
    auto next = [&] {  // splitmix64: the same values on every machine
      uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      return z ^ (z >> 31);
    };
    for (int64_t& v : x) v = wide ? static_cast<int64_t>(next()) : static_cast<int32_t>(next());
    for (int64_t& v : y) v = static_cast<int64_t>(next() % 2001) - 1000;
    for (int64_t i = 0; i < kRows; ++i) amounts[i] = i % 74 - 3;
    x[0] = lo, x[1] = hi, x[2] = -1, x[3] = 0, y[0] = lo, y[1] = -1;
    Tensor tx = Tensor::FromVector<int64_t>(x, {kRows, kCols}).Cast(dtype);
    Tensor ty = Tensor::FromVector<int64_t>(y, {kCols}).Cast(dtype);
    Tensor ta = Tensor::FromVector<int64_t>(amounts, {kRows, 1}).Cast(dtype);
    // Each op's result stored as `dtype` (i32 wraps) before the next reads it.
    auto store = [&](int64_t v) {
      return wide ? v : static_cast<int64_t>(static_cast<int32_t>(v));
    };
    for (int64_t r = 0; r < kRows; ++r) {
      for (int64_t c = 0; c < kCols; ++c) {
        const int64_t v = x[r * kCols + c], a = amounts[r];
        const int64_t shifted = store(Shl(store(store(v & y[c]) ^ 0x5A5A), a));
        const int64_t joined = store(shifted | store(Shr(v, 3)));
        run.expected.push_back(store(Shr(store(store(~joined) & -7), a)));
      }
    }
    Sync();
    const Stats start = GetStats();
    // ~((((x & y) ^ 0x5A5A) << a) | (x >> 3)) & -7, then a right shift by the amounts.
    Tensor masked = tx.BitwiseAnd(ty);
    Tensor flipped = std::move(masked).BitwiseXor(0x5A5A);
    Tensor shifted = std::move(flipped).BitwiseLeftShift(ta);
    Tensor low = tx.BitwiseRightShift(3);
    Tensor joined = std::move(shifted).BitwiseOr(std::move(low));
    Tensor out = std::move(joined).BitwiseNot().BitwiseAnd(-7).BitwiseRightShift(ta);
    run.values = std::move(out).ToVector<int64_t>();
    const Stats end = GetStats();
    run.launches = end.launches - start.launches;
    run.fused = end.fused_executions - start.fused_executions;
  });
  UseFusion(true);
  return run;
}

TEST(BitwiseFusion, AChainOfBitwiseOpsIsOneTraceAndMatchesTheUnfusedRun) {
  for (DType dtype : {DType::kI32, DType::kI64}) {
    const ChainRun fused = RunChain(dtype, true);
    const ChainRun unfused = RunChain(dtype, false);
    EXPECT_EQ(fused.values, unfused.values) << DTypeName(dtype);
    EXPECT_EQ(fused.values, fused.expected) << DTypeName(dtype);
    EXPECT_EQ(fused.fused, 1u) << DTypeName(dtype);
    EXPECT_EQ(fused.launches, 1u) << DTypeName(dtype) << ": the chain's eight ops in one trace";
    EXPECT_EQ(unfused.fused, 0u) << DTypeName(dtype);
    EXPECT_EQ(unfused.launches, 8u) << DTypeName(dtype);
  }
}

}  // namespace
}  // namespace ember

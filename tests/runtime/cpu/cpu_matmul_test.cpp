// Matmul of the CPU backend: hand values, broadcast batch dims against a naive double
// reference, strided operands, ints and half types.
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "tests/runtime/cpu/cpu_test_util.h"

namespace ember {
namespace {

using testing::Harness;
using testing::RoundTo;
using testing::TestData;
using V = std::vector<double>;

// Naive [..., m, k] x [..., k, n] in double with numpy batch broadcasting.
V ReferenceMatmul(const V& a, const Shape& as, const V& b, const Shape& bs, const Shape& os) {
  const size_t rank = os.size();
  const int64_t m = os[rank - 2], n = os[rank - 1], k = as.back();
  const Shape batch(os.begin(), os.end() - 2);
  V out(NumElements(os), 0.0);
  auto matrix_index = [&](const Shape& s, int64_t batch_index) {
    // The operand's matrix for output batch `batch_index` (right-aligned, size-1 dims broadcast).
    int64_t index = 0, step = 1;
    const size_t own = s.size() - 2;
    for (size_t d = batch.size(); d-- > 0;) {
      const int64_t i = batch_index % batch[d];
      batch_index /= batch[d];
      const int64_t od = static_cast<int64_t>(d) - static_cast<int64_t>(batch.size() - own);
      if (od < 0) continue;
      if (s[od] != 1) index += i * step;
      step *= s[od];
    }
    return index;
  };
  for (int64_t bi = 0; bi < NumElements(batch); ++bi) {
    const int64_t am = matrix_index(as, bi), bm = matrix_index(bs, bi);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) sum += a[(am * m + i) * k + p] * b[(bm * k + p) * n + j];
        out[(bi * m + i) * n + j] = sum;
      }
  }
  return out;
}

TEST(CpuMatmul, TwoByTwoByHand) {
  Harness h;
  const TensorIr a = h.Input({2, 2}, DType::kF32, {1, 2, 3, 4});
  const TensorIr b = h.Input({2, 2}, DType::kF32, {5, 6, 7, 8});
  EXPECT_EQ(h.Run(ir::Binary(OpKind::kMatmul, a, b, h.Output({2, 2}))), (V{19, 22, 43, 50}));
  const TensorIr r = h.Input({2, 3}, DType::kF32, {1, 0, -1, 2, 1, 0});
  EXPECT_EQ(h.Run(ir::Binary(OpKind::kMatmul, a, r, h.Output({2, 3}))), (V{5, 2, -1, 11, 4, -3}));
}

TEST(CpuMatmul, BroadcastBatchDimsMatchNaiveReference) {
  struct Case {
    Shape a, b, out;
  };
  const std::vector<Case> cases = {
      {{2, 1, 3, 4}, {3, 4, 5}, {2, 3, 3, 5}},
      {{3, 4}, {2, 4, 6}, {2, 3, 6}},
      {{5, 1, 7, 2}, {1, 4, 2, 3}, {5, 4, 7, 3}},
      {{1, 9, 33}, {4, 33, 17}, {4, 9, 17}},
  };
  for (const Case& c : cases) {
    Harness h;
    const V a = TestData(NumElements(c.a), -1, 1, 21), b = TestData(NumElements(c.b), -1, 1, 22);
    V ar(a.size()), br(b.size());
    for (size_t i = 0; i < a.size(); ++i) ar[i] = RoundTo(a[i], DType::kF32);
    for (size_t i = 0; i < b.size(); ++i) br[i] = RoundTo(b[i], DType::kF32);
    const TensorIr ta = h.Input(c.a, DType::kF32, a), tb = h.Input(c.b, DType::kF32, b);
    const V got = h.Run(ir::Binary(OpKind::kMatmul, ta, tb, h.Output(c.out)));
    const V want = ReferenceMatmul(ar, c.a, br, c.b, c.out);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-5) << i;
  }
}

TEST(CpuMatmul, StridedOperands) {
  Harness h;
  // a^T x b where a is stored [k, m] and b is a reversed slice.
  const V av = TestData(4 * 3, -2, 2, 31), bv = TestData(4 * 5, -2, 2, 32);
  const TensorIr a = h.Input({4, 3}, DType::kF32, av);
  const TensorIr at = h.Exec(ir::SwapDims(a, 0, 1, h.Output({3, 4})));
  const TensorIr b = h.Input({4, 5}, DType::kF32, bv);
  const TensorIr brev = h.Exec(ir::SliceOp(b, {Slice{0, std::nullopt, -1}}, h.Output({4, 5})));
  const V got = h.Run(ir::Binary(OpKind::kMatmul, at, brev, h.Output({3, 5})));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) {
      double want = 0;
      for (int p = 0; p < 4; ++p) {
        want += RoundTo(av[p * 3 + i], DType::kF32) * RoundTo(bv[(3 - p) * 5 + j], DType::kF32);
      }
      ASSERT_NEAR(got[i * 5 + j], want, 1e-5);
    }
  // An expanded (stride 0) batch.
  const TensorIr e = h.Exec(ir::Unary(OpKind::kExpand, at, h.Output({2, 3, 4})));
  const V batched = h.Run(ir::Binary(OpKind::kMatmul, e, brev, h.Output({2, 3, 5})));
  EXPECT_EQ(V(batched.begin(), batched.begin() + 15), got);
  EXPECT_EQ(V(batched.begin() + 15, batched.end()), got);
}

TEST(CpuMatmul, IntegersAccumulateExactly) {
  for (DType dtype : {DType::kI32, DType::kI64}) {
    Harness h;
    const TensorIr a = h.Input({2, 3}, dtype, {1, -2, 3, 4, 5, -6});
    const TensorIr b = h.Input({3, 2}, dtype, {7, 8, 9, 10, -11, 12});
    EXPECT_EQ(h.Run(ir::Binary(OpKind::kMatmul, a, b, h.Output({2, 2}, dtype))),
              (V{-44, 24, 139, 10}));
  }
  Harness h;
  const TensorIr big = h.InputInts({1, 2}, DType::kI64, {1LL << 40, 3});
  const TensorIr col = h.InputInts({2, 1}, DType::kI64, {1LL << 10, 5});
  EXPECT_EQ(h.RunInts(ir::Binary(OpKind::kMatmul, big, col, h.Output({1, 1}, DType::kI64))),
            (std::vector<int64_t>{(1LL << 50) + 15}));
}

TEST(CpuMatmul, HalfTypesComputeInF32AndRoundOnce) {
  for (DType dtype : {DType::kF16, DType::kBF16}) {
    Harness h;
    const V a = TestData(8 * 16, -1, 1, 41), b = TestData(16 * 8, -1, 1, 42);
    const TensorIr ta = h.Input({8, 16}, dtype, a), tb = h.Input({16, 8}, dtype, b);
    const V got = h.Run(ir::Binary(OpKind::kMatmul, ta, tb, h.Output({8, 8}, dtype)));
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) {
        double want = 0;
        for (int p = 0; p < 16; ++p) {
          want += RoundTo(a[i * 16 + p], dtype) * RoundTo(b[p * 8 + j], dtype);
        }
        const double tol = (dtype == DType::kF16 ? 1e-3 : 8e-3) * std::max(1.0, std::fabs(want));
        ASSERT_NEAR(got[i * 8 + j], want, tol);
      }
  }
}

TEST(CpuMatmul, EmptyInnerDimGivesZeros) {
  Harness h;
  const TensorIr a = h.Input({2, 0}, DType::kF32, {});
  const TensorIr b = h.Input({0, 3}, DType::kF32, {});
  EXPECT_EQ(h.Run(ir::Binary(OpKind::kMatmul, a, b, h.Output({2, 3}))), (V{0, 0, 0, 0, 0, 0}));
}

TEST(CpuMatmul, SameResultWithOneOrManyThreads) {
  const V a = TestData(3 * 65 * 70, -1, 1, 51), b = TestData(70 * 130, -1, 1, 52);
  auto run = [&](int threads) {
    Harness h(threads);
    const TensorIr ta = h.Input({3, 65, 70}, DType::kF32, a);
    const TensorIr tb = h.Input({70, 130}, DType::kF32, b);
    return h.Run(ir::Binary(OpKind::kMatmul, ta, tb, h.Output({3, 65, 130})));
  };
  EXPECT_EQ(run(1), run(4));
}

// A product large enough to be cut into bands of rows, one sgemm each (matmul.cpp): the bands
// depend on the shape alone, so 1, 2 and 5 threads agree bit for bit, and the result matches a
// double-precision reference.
TEST(CpuMatmul, ALargeProductInBandsIsTheSameOnAnyThreadCount) {
  const int64_t m = 601, k = 197, n = 130;  // 15.4M multiply-adds: two bands, 304 and 297 rows
  const V a = TestData(m * k, -1, 1, 61), b = TestData(k * n, -1, 1, 62);
  auto run = [&](int threads) {
    Harness h(threads);
    const TensorIr ta = h.Input({m, k}, DType::kF32, a);
    const TensorIr tb = h.Input({k, n}, DType::kF32, b);
    return h.Run(ir::Binary(OpKind::kMatmul, ta, tb, h.Output({m, n})));
  };
  const V one = run(1);
  EXPECT_EQ(one, run(2));
  EXPECT_EQ(one, run(5));
  for (int64_t i = 0; i < m; i += 37) {
    for (int64_t j = 0; j < n; j += 11) {
      double want = 0;
      for (int64_t p = 0; p < k; ++p) want += double(a[i * k + p]) * double(b[p * n + j]);
      ASSERT_NEAR(one[i * n + j], want, 1e-4 * std::max(1.0, std::fabs(want))) << i << "," << j;
    }
  }
}

}  // namespace
}  // namespace ember

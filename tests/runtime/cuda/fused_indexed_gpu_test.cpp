// Fused Gather, Select and Cat on the GPU (Note [Indexed inputs], engine/trace/fuse_trace.h;
// codegen/indexed_read.h): hand-built traces `op(...) * s + addend` (the fusers do not emit
// indexed ops yet) run through the CUDA backend's ExecuteFused and are checked against the
// host's values: indices out of range, negative ones included, read 0; i32 and i64 indices;
// f32 and f16 data; Cat of 2 and 3 inputs along dim 0 and the last dim, and cat([x, x]).
// Every value is a multiple of 1/16 small enough that f16, f32 and any rounding order (a fused
// multiply-add included) give the same exact result, so results compare exactly. Shapes cover
// vectorized bodies (a last dim the width divides) and scalar ones (an odd last dim). The
// hash test needs no GPU; the rest are skipped without one.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "engine/runtime/cuda/backend/cuda_backend.h"
#include "engine/runtime/cuda/backend/trace_launcher.h"
#include "engine/runtime/cuda/cuda_device.h"
#include "tests/codegen/indexed_traces.h"
#include "tests/runtime/fused_test_util.h"

namespace ember::cuda {
namespace {

using ember::testing::EncodeInts;
using ember::testing::MakeHandle;
using ember::testing::OutIr;
using ember::testing::ReadValues;

constexpr double kScale = 0.5;

// One indexed op over `ref`: its operands are inputs[operands[k]] of the shapes and dtypes
// given (data tensors hold floats of `dtype`, index tensors ints of their dtype).
struct IndexedCase {
  std::string name;
  FuseOpKind kind = FuseOpKind::kGather;
  int64_t dim = 0;
  std::vector<Shape> shapes;
  std::vector<DType> dtypes;
  std::vector<uint32_t> operands;
  Shape ref;
  DType dtype = DType::kF32;
};

std::vector<int64_t> Coords(int64_t linear, const Shape& shape) {
  std::vector<int64_t> c(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    c[d] = linear % shape[d];
    linear /= shape[d];
  }
  return c;
}

int64_t Linear(const std::vector<int64_t>& c, const Shape& shape) {
  int64_t at = 0;
  for (size_t d = 0; d < shape.size(); ++d) at = at * shape[d] + c[d];
  return at;
}

bool IsIndices(const IndexedCase& c, size_t input) {
  return c.kind != FuseOpKind::kCat && input == c.operands.at(1);
}

// Index values from two below 0 to two past the end of `size`, so some are out of range.
std::vector<int64_t> IndexValues(int64_t n, int64_t size, uint64_t seed) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<int64_t>((i * 7 + seed) % (size + 4)) - 2;
  return v;
}

// Multiples of 1/8 in [-6, 6): exact in f16 and f32, as are their products by kScale and sums.
std::vector<double> DataValues(int64_t n, uint64_t seed) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * 37 + seed * 11) % 97) / 8 - 6;
  return v;
}

// The op's value at output position p (Note [Indexed inputs]), from the host's copies.
double Expected(const IndexedCase& c, const std::vector<std::vector<double>>& data,
                const std::vector<std::vector<int64_t>>& ints, const std::vector<int64_t>& p) {
  const auto dim = static_cast<size_t>(c.dim);
  if (c.kind == FuseOpKind::kCat) {
    int64_t at = p[dim];
    for (uint32_t t : c.operands) {
      const Shape& shape = c.shapes[t];
      if (at < shape[dim]) {
        std::vector<int64_t> q = p;
        q[dim] = at;
        return data[t][Linear(q, shape)];
      }
      at -= shape[dim];
    }
    ADD_FAILURE() << "position past the inputs";
    return 0;
  }
  const uint32_t tensor = c.operands[0], indices = c.operands[1];
  const int64_t k =
      c.kind == FuseOpKind::kGather ? ints[indices][Linear(p, c.ref)] : ints[indices][p[dim]];
  if (k < 0 || k >= c.shapes[tensor][dim]) return 0;
  std::vector<int64_t> q = p;
  q[dim] = k;
  return data[tensor][Linear(q, c.shapes[tensor])];
}

class FusedIndexedGpuTest : public ::testing::TestWithParam<IndexedCase> {
 protected:
  void SetUp() override {
    const std::string why = CudaDevice::Probe(0);
    if (!why.empty()) GTEST_SKIP() << "needs a CUDA device: " << why;
    backend_ = MakeCudaBackend(0);
  }

  std::unique_ptr<Backend> backend_;
};

TEST_P(FusedIndexedGpuTest, MatchesTheHost) {
  const IndexedCase& c = GetParam();
  Backend& b = *backend_;
  std::vector<TensorIr> irs;
  std::vector<TensorHandle> handles;
  std::vector<std::vector<double>> data(c.shapes.size());
  std::vector<std::vector<int64_t>> ints(c.shapes.size());
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    const int64_t n = NumElements(c.shapes[i]);
    irs.push_back(
        codegen_test::IndexedInput(static_cast<TensorId>(i + 1), c.shapes[i], c.dtypes[i]));
    if (IsIndices(c, i)) {
      const int64_t size = c.shapes[c.operands[0]][c.dim];
      ints[i] = IndexValues(n, size, i + 3);
      handles.push_back(b.FromHost(EncodeInts(ints[i], c.dtypes[i]), c.shapes[i], c.dtypes[i]));
    } else {
      data[i] = DataValues(n, i + 1);
      handles.push_back(MakeHandle(b, c.shapes[i], c.dtypes[i], data[i]));
    }
  }
  const std::vector<double> addend = DataValues(NumElements(c.ref), 7);
  handles.push_back(MakeHandle(b, c.ref, c.dtype, addend));
  Shape rank;  // relative ids: only the block's rank reaches the code generator
  for (size_t d = 0; d < c.ref.size(); ++d) rank.push_back(static_cast<int64_t>(d + 1));
  const FuseTrace trace =
      codegen_test::IndexedMulAdd(c.kind, c.dim, irs, c.operands, rank, c.dtype);
  const FusedLaunch launch = ember::testing::Launch(trace, handles, {OutIr(c.ref, c.dtype)},
                                                    {c.ref}, {ScalarIr::Float(kScale)});
  const std::vector<TensorHandle> out = b.ExecuteFused(launch);
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].shape, c.ref);
  ASSERT_EQ(out[0].dtype, c.dtype);
  const std::vector<double> got = ReadValues(b, out[0]);
  int zeros = 0;
  for (int64_t i = 0; i < NumElements(c.ref); ++i) {
    const double v = Expected(c, data, ints, Coords(i, c.ref));
    if (v == 0) ++zeros;
    ASSERT_EQ(got[i], v * kScale + addend[i])
        << c.name << " at " << fmt::format("{}", Coords(i, c.ref)) << " (read " << v << ")";
  }
  // Out-of-range indices were exercised (they read 0).
  if (c.kind != FuseOpKind::kCat) EXPECT_GT(zeros, 0) << c.name;
}

std::vector<IndexedCase> Cases() {
  const DType f32 = DType::kF32, f16 = DType::kF16, i32 = DType::kI32, i64 = DType::kI64;
  using K = FuseOpKind;
  return {
      // Gather: indices of the output's shape.
      {"gather_last_f32_i64", K::kGather, 1, {{33, 7}, {33, 12}}, {f32, i64}, {0, 1}, {33, 12}},
      {"gather_last_odd_f32_i32", K::kGather, 1, {{9, 4}, {9, 7}}, {f32, i32}, {0, 1}, {9, 7}},
      {"gather_dim0_f16_i32", K::kGather, 0, {{4, 16}, {6, 16}}, {f16, i32}, {0, 1}, {6, 16}, f16},
      {"gather_mid_f32_i64", K::kGather, 1, {{3, 5, 8}, {3, 6, 8}}, {f32, i64}, {0, 1}, {3, 6, 8}},
      // Select: 1-D indices, one per output position along dim.
      {"select_dim0_f32_i32", K::kSelect, 0, {{5, 8}, {6}}, {f32, i32}, {0, 1}, {6, 8}},
      {"select_last_f16_i64", K::kSelect, 1, {{3, 9}, {40}}, {f16, i64}, {0, 1}, {3, 40}, f16},
      {"select_last_odd_f32_i64", K::kSelect, 1, {{5, 4}, {11}}, {f32, i64}, {0, 1}, {5, 11}},
      // Cat.
      {"cat2_dim0_f32", K::kCat, 0, {{3, 8}, {5, 8}}, {f32, f32}, {0, 1}, {8, 8}},
      {"cat3_dim0_f16",
       K::kCat,
       0,
       {{1, 24}, {4, 24}, {2, 24}},
       {f16, f16, f16},
       {0, 1, 2},
       {7, 24},
       f16},
      {"cat2_last_f32", K::kCat, 1, {{6, 3}, {6, 9}}, {f32, f32}, {0, 1}, {6, 12}},
      {"cat3_last_f16",
       K::kCat,
       1,
       {{4, 3}, {4, 5}, {4, 8}},
       {f16, f16, f16},
       {0, 1, 2},
       {4, 16},
       f16},
      {"cat3_last_odd_f32",
       K::kCat,
       1,
       {{5, 2}, {5, 1}, {5, 4}},
       {f32, f32, f32},
       {0, 1, 2},
       {5, 7}},
      // cat([x, x]): one input, read twice.
      {"cat_self_last_f32", K::kCat, 1, {{6, 10}}, {f32}, {0, 0}, {6, 20}},
      {"cat_self_dim0_f16", K::kCat, 0, {{3, 16}}, {f16}, {0, 0}, {6, 16}, f16},
  };
}

INSTANTIATE_TEST_SUITE_P(Traces, FusedIndexedGpuTest, ::testing::ValuesIn(Cases()),
                         [](const auto& info) { return info.param.name; });

// TraceHash spreads indexed traces by their dim and operands (equality decides; this only
// spreads them). Needs no GPU.
TEST(FusedIndexedHash, DimAndOperandsChangeTheHash) {
  const FuseTrace a = codegen_test::GatherMulAdd(0, DType::kF32, DType::kI64);
  const FuseTrace b = codegen_test::GatherMulAdd(1, DType::kF32, DType::kI64);
  EXPECT_NE(TraceHash(a), TraceHash(b));
  const FuseTrace two = codegen_test::CatMulAdd(1, {3, 4}, 5, DType::kF32);
  const FuseTrace self = codegen_test::CatMulAdd(1, {3, 4}, 5, DType::kF32, {0, 0});
  EXPECT_NE(TraceHash(two), TraceHash(self));
  EXPECT_EQ(TraceHash(two), TraceHash(codegen_test::CatMulAdd(1, {3, 4}, 5, DType::kF32)));
}

}  // namespace
}  // namespace ember::cuda

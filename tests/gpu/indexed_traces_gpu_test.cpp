// Indexed inputs (Note [Indexed inputs], engine/trace/fuse_trace.h) on the device through the
// public API, against the CPU backend under Note [GPU tolerances]: an embedding lookup read by a
// row normalisation and a Gather feeding a softmax (both one ReduceBroadcasted trace), a Select
// in a matmul epilogue and a Cat of its output, and the 16-bit and bool dtypes the indexed read
// loads (bf16 and f16 tables, a bool mask gathered and used by MaskFill).
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>

#include "tests/gpu/gpu_test_util.h"

namespace ember::gpu {
namespace {

class IndexedTracesGpu : public ::testing::Test {
 protected:
  void SetUp() override { UseFusion(true); }
  void TearDown() override { UseFusion(true); }
};

// `program` on the CPU and on the device, with the same host inputs; the outputs compared.
void ExpectSameOnBoth(const std::function<Tensor(Device)>& program) {
  EMBER_CUDA_OR_SKIP(cuda);
  const ProgramOutput want = Read(program(Device::Cpu()), "cpu");
  const Stats before = GetStats(cuda);
  const ProgramOutput got = Read(program(cuda), "cpu");
  EXPECT_GT(GetStats(cuda).fused_executions, before.fused_executions);
  EXPECT_EQ(Compare(want, got), "");
}

TEST_F(IndexedTracesGpu, AnEmbeddingLookupFeedsARowNormalisation) {
  HostData data(71);
  const std::vector<float> table = data.Uniform(50 * 256, -2, 2),
                           pos = data.Uniform(40 * 256, -1, 1);
  std::vector<int64_t> idx = data.Ints(40, -3, 55);  // some out of range: rows of zeros
  ExpectSameOnBoth([&](Device d) {
    Tensor t = Make(table, {50, 256}, DType::kF32, d);
    Tensor i = MakeInt(idx, {40}, DType::kI64, d);
    Tensor p = Make(pos, {40, 256}, DType::kF32, d);
    Tensor e = t.Select(0, i) + p;
    Tensor dlt = e - e.MeanDim(-1);
    return dlt / ((dlt * dlt).MeanDim(-1) + 1e-5).Sqrt();
  });
}

TEST_F(IndexedTracesGpu, AGatherFeedsASoftmax) {
  HostData data(72);
  const std::vector<float> x = data.Uniform(64 * 512, -4, 4);
  const std::vector<int64_t> idx = data.Ints(64 * 512, -2, 513);
  ExpectSameOnBoth([&](Device d) {
    Tensor g =
        Make(x, {64, 512}, DType::kF32, d).Gather(1, MakeInt(idx, {64, 512}, DType::kI32, d));
    Tensor s = g * 0.5;
    Tensor e = (s - s.MaxDim(-1)).Exp();
    return e / e.SumDim(-1);
  });
}

TEST_F(IndexedTracesGpu, ASelectInAMatmulEpilogueThenACatOfItsOutput) {
  HostData data(73);
  const std::vector<float> a = data.Uniform(96 * 64, -1, 1), b = data.Uniform(64 * 80, -1, 1);
  const std::vector<float> bias = data.Uniform(7 * 80, -1, 1), left = data.Uniform(96 * 16, -1, 1);
  const std::vector<int64_t> rows = data.Ints(96, 0, 6);
  ExpectSameOnBoth([&](Device d) {
    Tensor y = Make(a, {96, 64}, DType::kF32, d).Matmul(Make(b, {64, 80}, DType::kF32, d)) +
               Make(bias, {7, 80}, DType::kF32, d).Select(0, MakeInt(rows, {96}, DType::kI64, d));
    return Cat({Make(left, {96, 16}, DType::kF32, d), y.Clamp(0.0, 1e30)}, 1) * 2.0;
  });
}

TEST_F(IndexedTracesGpu, SixteenBitTablesAreIndexedInTheirOwnDtype) {
  for (DType dtype : {DType::kBF16, DType::kF16}) {
    SCOPED_TRACE(DTypeName(dtype));
    HostData data(74);
    const std::vector<float> table = data.Uniform(30 * 64, -3, 3);
    const std::vector<int64_t> idx = data.Ints(20, 0, 31);
    ExpectSameOnBoth([&](Device d) {
      Tensor t = Make(table, {30, 64}, dtype, d);
      return (t.Select(0, MakeInt(idx, {20}, DType::kI64, d)) * 2.0 + 1.0).Exp();
    });
  }
}

TEST_F(IndexedTracesGpu, ABoolMaskIsGatheredAndUsed) {
  HostData data(75);
  const std::vector<bool> mask = data.Bools(16 * 48);
  const std::vector<float> x = data.Uniform(16 * 48, -2, 2);
  const std::vector<int64_t> idx = data.Ints(16 * 48, 0, 48);  // 48 is out of range: false
  ExpectSameOnBoth([&](Device d) {
    std::vector<uint8_t> bytes(mask.begin(), mask.end());
    Tensor m = Tensor::FromVector(std::vector<int64_t>(bytes.begin(), bytes.end()), {16, 48}, d)
                   .Cast(DType::kBool);
    Tensor g = m.Gather(1, MakeInt(idx, {16, 48}, DType::kI64, d));
    return Make(x, {16, 48}, DType::kF32, d).MaskFill(g, -7.0) * 3.0;
  });
}

}  // namespace
}  // namespace ember::gpu

// Independent row reductions queued back to back: the search, faithful to burn, fuses them into
// one ReduceBroadcasted trace, and the code generator runs each chain as a row kernel of its
// own (Note [Trace chains], engine/trace/trace_chains.h; where chains share memory, one kernel
// whose chains reuse each other's shared arrays, Note [Shared handover slots]). Checked here on
// the device against the CPU backend under Note [GPU tolerances]: softmaxes of rows long enough
// that every chain's handovers together would not fit in shared memory, and layernorms whose
// chains read one gamma and beta (an input several chains read).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>

#include "tests/gpu/gpu_test_util.h"

namespace ember::gpu {
namespace {

class RowChainsGpu : public ::testing::Test {
 protected:
  void SetUp() override { UseFusion(true); }
  void TearDown() override { UseFusion(true); }
};

Tensor ScaledSoftmax(const Tensor& x, double scale) {
  Tensor t = x * scale;
  Tensor m = t.MaxDim(-1);
  Tensor e = (t - m).Exp();
  Tensor s = e.SumDim(-1);
  return e / s;
}

Tensor LayerNormOf(const Tensor& x, const Tensor& gamma, const Tensor& beta) {
  Tensor mu = x.MeanDim(-1);
  Tensor d = x - mu;
  Tensor var = (d * d).MeanDim(-1);
  Tensor y = d / (var + 1e-5).Sqrt();
  return y * gamma + beta;
}

// Runs `chains` softmaxes and layernorms on `device`, queued with no sync between them, and
// reads every result back.
std::vector<ProgramOutput> RunChains(Device device, int chains, int64_t rows, int64_t length) {
  HostData data(4711);
  std::vector<Tensor> xs, outs;
  for (int c = 0; c < chains; ++c) {
    xs.push_back(Make(data.Uniform(rows * length, -4, 4), {rows, length}, DType::kF32, device));
  }
  Tensor gamma = Make(data.Uniform(length, 0.5f, 1.5f), {length}, DType::kF32, device);
  Tensor beta = Make(data.Uniform(length, -1, 1), {length}, DType::kF32, device);
  Sync(device);
  for (int c = 0; c < chains; ++c) outs.push_back(ScaledSoftmax(xs[c], 0.125 * (c + 1)));
  for (int c = 0; c < chains; ++c) outs.push_back(LayerNormOf(xs[c], gamma, beta));
  std::vector<ProgramOutput> read;
  for (size_t k = 0; k < outs.size(); ++k) read.push_back(Read(outs[k], "out" + std::to_string(k)));
  return read;
}

void ExpectChainsMatchTheCpu(int chains, int64_t rows, int64_t length) {
  EMBER_CUDA_OR_SKIP(cuda);
  const std::vector<ProgramOutput> want = RunChains(Device::Cpu(), chains, rows, length);
  const Stats before = GetStats(cuda);
  const std::vector<ProgramOutput> got = RunChains(cuda, chains, rows, length);
  const Stats after = GetStats(cuda);
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) EXPECT_EQ(Compare(want[k], got[k]), "") << k;
  // Fewer fused executions than chains: the search put several chains in one trace.
  EXPECT_GT(after.fused_executions, before.fused_executions);
  EXPECT_LT(after.fused_executions - before.fused_executions, static_cast<uint64_t>(2 * chains));
}

TEST_F(RowChainsGpu, SixSoftmaxesAndLayernormsOfRowsOf4096) {
  // Six chains' handovers together: 6 x 2 x 16 KiB a row, past any block's shared memory.
  ExpectChainsMatchTheCpu(6, 96, 4096);
}

TEST_F(RowChainsGpu, ShortRowsShareThreadBlocksAcrossChains) {
  ExpectChainsMatchTheCpu(5, 300, 96);
}

}  // namespace
}  // namespace ember::gpu

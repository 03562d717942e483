// Note [Register cap] (codegen/register_cap.h) on the device: a row kernel the rule caps computes
// exactly what its uncapped build computes (a register budget changes no arithmetic), both
// match the CPU, and EMBER_KERNEL_VARIANTS=noregcap leaves every kernel uncapped.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "codegen/kernel_variants.h"
#include "tests/gpu/gpu_test_util.h"

namespace ember::gpu {
namespace {

class RegisterCapGpu : public ::testing::Test {
 protected:
  void SetUp() override { UseFusion(true); }
  void TearDown() override {
    codegen::SetKernelVariantsForTesting(nullptr);
    UseFusion(true);
  }
};

// Softmax of x * 0.125 (one row kernel, 34 registers under NVRTC 13 for sm_90) and a layernorm
// (40 registers: not capped) over rows of 4096.
std::vector<ProgramOutput> RunRows(Device device) {
  HostData data(9001);
  const int64_t rows = 64, length = 4096;
  Tensor x = Make(data.Uniform(rows * length, -6, 6), {rows, length}, DType::kF32, device);
  Tensor t = x * 0.125;
  Tensor m = t.MaxDim(-1);
  Tensor e = (t - m).Exp();
  Tensor s = e.SumDim(-1);
  Tensor softmax = e / s;
  Tensor d = x - x.MeanDim(-1);
  Tensor layernorm = d / ((d * d).MeanDim(-1) + 1e-5).Sqrt();
  return {Read(softmax, "softmax"), Read(layernorm, "layernorm")};
}

TEST_F(RegisterCapGpu, CappedAndUncappedKernelsGiveTheSameBits) {
  EMBER_CUDA_OR_SKIP(cuda);
  const std::vector<ProgramOutput> want = RunRows(Device::Cpu());
  const std::vector<ProgramOutput> capped = RunRows(cuda);
  const uint64_t capped_kernels = GetStats(cuda).kernels_register_capped;
  RecordProperty("kernels_register_capped", std::to_string(capped_kernels));

  const codegen::KernelVariants off = codegen::ParseKernelVariants("noregcap");
  codegen::SetKernelVariantsForTesting(&off);
  UseFusion(true);  // a new engine, so every kernel is compiled again under the variant
  const std::vector<ProgramOutput> uncapped = RunRows(cuda);
  EXPECT_EQ(GetStats(cuda).kernels_register_capped, 0u);

  ASSERT_EQ(capped.size(), uncapped.size());
  for (size_t k = 0; k < capped.size(); ++k) {
    EXPECT_EQ(Compare(want[k], capped[k]), "") << k;
    EXPECT_EQ(capped[k].floats, uncapped[k].floats) << capped[k].name;
  }
}

}  // namespace
}  // namespace ember::gpu

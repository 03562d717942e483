// Matmul + bias (+ relu, + alpha) on Device::Cuda(0) against the CPU backend, with each variant
// of engine/runtime/cuda/backend/matmul_epilogue.h forced (cuBLASLt's own epilogue, the
// generated epilogue kernel) and chosen by measuring. A relu whose NaN rule cuBLASLt does not
// share runs the generated kernel even when cuBLASLt is forced; the NaN rows check that.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>

#include "tests/common/temp_dir.h"
#include "tests/gpu/gpu_test_util.h"

#ifdef EMBER_WITH_CUDA
#include "engine/runtime/cuda/backend/matmul_epilogue.h"
#endif

namespace ember::gpu {
namespace {

struct Inputs {
  std::vector<float> a, b, bias;
  std::vector<int64_t> a_shape, b_shape;
  int64_t n = 0;
};

Inputs MakeInputs(uint64_t salt, std::vector<int64_t> a_shape, int64_t k, int64_t n, bool nan) {
  HostData data(salt);
  Inputs in{.a_shape = a_shape, .b_shape = {k, n}, .n = n};
  in.a = data.Uniform(static_cast<size_t>(Numel(a_shape)), -1, 1);
  in.b = data.Uniform(static_cast<size_t>(k * n), -1, 1);
  in.bias = data.Uniform(static_cast<size_t>(n), -0.5f, 0.5f);
  // A NaN in row 1 of A makes row 1 of the product NaN: relu must keep it as the CPU does.
  if (nan) in.a[static_cast<size_t>(k + 3)] = std::numeric_limits<float>::quiet_NaN();
  return in;
}

using Program = Tensor (*)(const Tensor& a, const Tensor& b, const Tensor& bias);

Tensor Bias(const Tensor& a, const Tensor& b, const Tensor& bias) { return a.Matmul(b) + bias; }
Tensor BiasClampRelu(const Tensor& a, const Tensor& b, const Tensor& bias) {
  return (a.Matmul(b) + bias).Clamp(0.0, std::numeric_limits<double>::infinity());
}
Tensor BiasMaskRelu(const Tensor& a, const Tensor& b, const Tensor& bias) {
  Tensor y = a.Matmul(b) + bias;
  Tensor negative = y.Lower(0.0);
  return std::move(y).MaskFill(std::move(negative), 0.0);
}
Tensor AlphaBias(const Tensor& a, const Tensor& b, const Tensor& bias) {
  return a.Matmul(b) * 0.5 + bias;
}

ProgramOutput RunOn(Device device, const Inputs& in, Program program) {
  const Tensor a = Make(in.a, in.a_shape, DType::kF32, device);
  const Tensor b = Make(in.b, in.b_shape, DType::kF32, device);
  const Tensor bias = Make(in.bias, {in.n}, DType::kF32, device);
  return Read(program(a, b, bias), "y");
}

class MatmulEpilogueGpu : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { UseFusion(true); }
  void TearDown() override {
#ifdef EMBER_WITH_CUDA
    cuda::SetMatmulEpilogueModeForTesting(std::nullopt);
#endif
    UseFusion(true);
  }
};

TEST_P(MatmulEpilogueGpu, MatchesTheCpu) {
  EMBER_CUDA_OR_SKIP(cuda);
#ifdef EMBER_WITH_CUDA
  const std::string mode = GetParam();
  if (cuda != Device::Cpu()) {
    cuda::SetMatmulEpilogueModeForTesting(mode == "cublaslt" ? cuda::EpilogueMode::kCublasLt
                                          : mode == "kernel" ? cuda::EpilogueMode::kKernel
                                                             : cuda::EpilogueMode::kAuto);
  }
  UseFusion(true);  // a new engine: auto measures again
  const struct {
    const char* name;
    Program program;
  } programs[] = {{"bias", Bias},
                  {"bias+clamp relu", BiasClampRelu},
                  {"bias+mask relu", BiasMaskRelu},
                  {"alpha+bias", AlphaBias}};
  const struct {
    const char* name;
    std::vector<int64_t> a_shape;
    bool nan;
  } cases[] = {{"96x64 . 64x80", {96, 64}, false},
               {"96x64 . 64x80 with NaN", {96, 64}, true},
               {"3x40x64 . 64x80", {3, 40, 64}, false}};
  const cuda::EpilogueCounters before = cuda::MatmulEpilogueCounters();
  uint64_t salt = 1;
  for (const auto& c : cases) {
    for (const auto& p : programs) {
      const Inputs in = MakeInputs(salt++, c.a_shape, 64, 80, c.nan);
      const ProgramOutput want = RunOn(Device::Cpu(), in, p.program);
      // Twice: the first launch of a shape class measures, the second runs the choice.
      for (int run = 0; run < 2; ++run) {
        const ProgramOutput got = RunOn(cuda, in, p.program);
        EXPECT_EQ(Compare(want, got), "")
            << mode << ", " << p.name << ", " << c.name << ", run " << run;
      }
    }
  }
  if (cuda == Device::Cpu()) return;
  const cuda::EpilogueCounters after = cuda::MatmulEpilogueCounters();
  const uint64_t cublaslt = after.runs_cublaslt - before.runs_cublaslt;
  const uint64_t kernel = after.runs_kernel - before.runs_kernel;
  std::printf(
      "[gpu] matmul epilogue mode %s: %llu cublaslt runs, %llu kernel runs, %llu matched, "
      "%llu refused, %llu measured (%llu for cublaslt)\n",
      mode.c_str(), static_cast<unsigned long long>(cublaslt),
      static_cast<unsigned long long>(kernel),
      static_cast<unsigned long long>(after.matched - before.matched),
      static_cast<unsigned long long>(after.refused - before.refused),
      static_cast<unsigned long long>(after.measured - before.measured),
      static_cast<unsigned long long>(after.chose_cublaslt - before.chose_cublaslt));
  if (mode == "kernel") {
    EXPECT_EQ(cublaslt, 0u);
  } else if (mode == "cublaslt") {
    EXPECT_GT(cublaslt, 0u);  // the bias programs always match
  } else {
    EXPECT_GT(after.measured - before.measured, 0u);
  }
#else
  GTEST_SKIP() << "built without CUDA";
#endif
}

// Issue 43: a shape class measured by one engine is not measured by the next one on the same
// plan database (a new engine is what a new process starts with), and it runs what was chosen.
TEST(MatmulEpilogueFactsGpu, AStoredChoiceIsRunWithoutMeasuringAgain) {
  EMBER_CUDA_OR_SKIP(cuda);
#ifdef EMBER_WITH_CUDA
  if (cuda == Device::Cpu()) GTEST_SKIP() << "the GPU's epilogue choice";
  test::TempDir dir;
  Config config;
  config.plan_db = dir.File("plans.db");
  config.shm = false;
  SetGlobalConfigForTesting(config);
  cuda::SetMatmulEpilogueModeForTesting(cuda::EpilogueMode::kAuto);
  const Inputs in = MakeInputs(7, {96, 64}, 64, 80, false);
  const ProgramOutput want = RunOn(Device::Cpu(), in, Bias);
  std::vector<uint64_t> measured;
  std::vector<uint64_t> ran;  // cublaslt + kernel runs
  for (int engine = 0; engine < 3; ++engine) {
    ReleaseDevice(cuda);  // the next op starts a new engine: nothing measured in memory
    const cuda::EpilogueCounters before = cuda::MatmulEpilogueCounters();
    EXPECT_EQ(Compare(want, RunOn(cuda, in, Bias)), "") << "engine " << engine;
    FlushPlans(cuda);
    const cuda::EpilogueCounters after = cuda::MatmulEpilogueCounters();
    measured.push_back(after.measured - before.measured);
    ran.push_back(after.runs_cublaslt + after.runs_kernel - before.runs_cublaslt -
                  before.runs_kernel);
  }
  cuda::SetMatmulEpilogueModeForTesting(std::nullopt);
  UseFusion(true);
  EXPECT_EQ(measured[0], 1u) << "the first engine measures the class";
  EXPECT_EQ(measured[1], 0u) << "the second runs the stored choice";
  EXPECT_EQ(measured[2], 0u);
  EXPECT_EQ(ran[1], 1u);
  EXPECT_EQ(ran[2], 1u);
#else
  GTEST_SKIP() << "built without CUDA";
#endif
}

#ifdef EMBER_WITH_CUDA
// The choice store and shape classes need no GPU.
TEST(EpilogueChoiceStore, RemembersPerShapeClassAndNeverAcrossDevices) {
  cuda::InMemoryEpilogueChoiceStore store;
  cuda::EpilogueShapeClass h200{.device = "NVIDIA H200/sm_90/cublasLt-13.1.0",
                                .kind = codegen::BlasEpilogueKind::kBias,
                                .m_log2 = cuda::CeilLog2(8192),
                                .n_log2 = cuda::CeilLog2(4096),
                                .k_log2 = cuda::CeilLog2(4000),
                                .batch_log2 = cuda::CeilLog2(1)};
  EXPECT_EQ(h200.m_log2, 13);
  EXPECT_EQ(h200.k_log2, 12);  // 4000 rounds up to 2^12, with 4096
  EXPECT_EQ(h200.batch_log2, 0);
  EXPECT_FALSE(store.Find(h200));
  store.Remember(h200,
                 {.variant = cuda::EpilogueVariant::kCublasLt, .cublaslt_ms = 1, .kernel_ms = 2});
  ASSERT_TRUE(store.Find(h200));
  EXPECT_EQ(store.Find(h200)->variant, cuda::EpilogueVariant::kCublasLt);
  cuda::EpilogueShapeClass other = h200;
  other.device = "NVIDIA H100 80GB HBM3/sm_90/cublasLt-13.1.0";
  EXPECT_FALSE(store.Find(other));
  other = h200;
  other.kind = codegen::BlasEpilogueKind::kBiasRelu;
  EXPECT_FALSE(store.Find(other));
  other = h200;
  other.n_log2 += 1;
  EXPECT_FALSE(store.Find(other));
  EXPECT_EQ(h200.ToString(),
            "NVIDIA H200/sm_90/cublasLt-13.1.0 f32 bias m<=2^13 n<=2^12 k<=2^12 batch<=2^0");
}
#endif

INSTANTIATE_TEST_SUITE_P(Variants, MatmulEpilogueGpu,
                         ::testing::Values("cublaslt", "kernel", "auto"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace ember::gpu

// NVRTC needs no GPU, so these run wherever libnvrtc is (skipped, with the reason, elsewhere).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "engine/runtime/cuda/nvrtc_api.h"

namespace ember::cuda {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string NvrtcProblem() {
  try {
    Nvrtc();
    return "";
  } catch (const Error& error) {
    return error.what();
  }
}

#define EMBER_REQUIRE_NVRTC()                                           \
  do {                                                                  \
    if (const std::string problem = NvrtcProblem(); !problem.empty()) { \
      GTEST_SKIP() << "needs NVRTC: " << problem;                       \
    }                                                                   \
  } while (0)

constexpr const char* kHalfKernel = R"(
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void ember_test_halves(const __half* a, const __nv_bfloat16* b, float* out,
                                             int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __half2float(a[i]) + __bfloat162float(b[i]);
}
)";

TEST(Nvrtc, MissingLibraryMessageSaysNvrtc) {
  const std::string problem = NvrtcProblem();
  if (problem.empty()) GTEST_SKIP() << "NVRTC is installed: " << Nvrtc().library_path;
  EXPECT_THAT(problem, ::testing::StartsWith("NVRTC not found: "));
}

TEST(Nvrtc, VersionIsMajorDotMinor) {
  EMBER_REQUIRE_NVRTC();
  EXPECT_TRUE(std::regex_match(NvrtcVersion(), std::regex(R"(\d+\.\d+)"))) << NvrtcVersion();
  EXPECT_EQ(NvrtcCompilerId(), "nvrtc-" + NvrtcVersion());
  const std::vector<std::string> archs = NvrtcSupportedArchs();
  EXPECT_THAT(archs, ::testing::Contains("sm_90"));
}

TEST(Nvrtc, OptionsAreIeeeAndExact) {
  const std::string extra[] = {"-DEMBER_TILE=128"};
  EXPECT_EQ(CompileOptionsText("sm_90", extra),
            "--gpu-architecture=sm_90 -std=c++17 -default-device -DEMBER_TILE=128");
  EXPECT_THAT(CompileOptionsText("sm_90"), Not(HasSubstr("fast_math")));
}

TEST(Nvrtc, CompilesHalfAndBfloat16KernelToCubin) {
  EMBER_REQUIRE_NVRTC();
  const std::vector<char> cubin = CompileToCubin(kHalfKernel, "halves.cu", "sm_90");
  ASSERT_GT(cubin.size(), 4u);
  // A cubin is an ELF image.
  EXPECT_EQ(std::string(cubin.data(), 4),
            "\x7f"
            "ELF");
}

TEST(Nvrtc, FindsTheHalfHeaders) {
  EMBER_REQUIRE_NVRTC();
  EXPECT_FALSE(Nvrtc().include_dir.empty())
      << "no cuda_fp16.h beside " << Nvrtc().library_path << " or under a toolkit root";
}

TEST(Nvrtc, SyntaxErrorThrowsWithTheLog) {
  EMBER_REQUIRE_NVRTC();
  const char* broken = "extern \"C\" __global__ void broken(float* out) { out[0] = 1.0f +; }\n";
  try {
    CompileToCubin(broken, "broken_kernel.cu", "sm_90");
    FAIL() << "a syntax error compiled";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_THAT(message, HasSubstr("broken_kernel.cu"));
    EXPECT_THAT(message, HasSubstr("NVRTC_ERROR_COMPILATION"));
    EXPECT_THAT(message, HasSubstr("expected an expression"));  // From the compile log.
    EXPECT_THAT(message, HasSubstr("--gpu-architecture=sm_90"));
  }
}

TEST(Nvrtc, UnknownArchThrows) {
  EMBER_REQUIRE_NVRTC();
  EXPECT_THROW(CompileToCubin(kHalfKernel, "halves.cu", "sm_1"), Error);
}

}  // namespace
}  // namespace ember::cuda

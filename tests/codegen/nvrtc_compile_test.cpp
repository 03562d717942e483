// Every golden source (golden_cases.h) and every special kernel compiles with NVRTC for sm_90,
// the H200's architecture. NVRTC needs no GPU, so this runs in CI; where NVRTC is missing (a
// build without the toolkit) each test says so and skips.
#include <string>

#include <gtest/gtest.h>

#include <ember/error.h>

#include "codegen/special_kernels.h"
#include "tests/codegen/golden_cases.h"

#ifdef EMBER_WITH_CUDA
#include "engine/runtime/cuda/nvrtc_api.h"
#endif

namespace ember {
namespace {

constexpr const char* kArch = "sm_90";

// Compiles `source`; skips the test (visibly) when NVRTC is not there.
void ExpectCompiles(const std::string& source, const std::string& name) {
#ifdef EMBER_WITH_CUDA
  try {
    (void)cuda::Nvrtc();
  } catch (const Error& e) {
    GTEST_SKIP() << "NVRTC is not available here: " << e.what();
  }
  const std::vector<char> cubin = cuda::CompileToCubin(source, name + ".cu", kArch);
  EXPECT_FALSE(cubin.empty()) << name;
#else
  (void)source;
  GTEST_SKIP() << "built without CUDA (EMBER_WITH_CUDA=OFF): NVRTC is not linked in " << name;
#endif
}

class NvrtcGolden : public ::testing::TestWithParam<codegen_test::GoldenCase> {};

TEST_P(NvrtcGolden, EveryKernelCompilesForSm90) {
  const codegen_test::Generated generated = codegen_test::Generate(GetParam());
  ASSERT_FALSE(generated.sources.empty());
  for (size_t k = 0; k < generated.sources.size(); ++k) {
    ExpectCompiles(generated.sources[k], GetParam().name + "_" + std::to_string(k));
  }
}

INSTANTIATE_TEST_SUITE_P(Traces, NvrtcGolden, ::testing::ValuesIn(codegen_test::GoldenCases()),
                         [](const auto& test_info) { return test_info.param.name; });

constexpr DType kDTypes[] = {DType::kF32, DType::kF16, DType::kBF16,
                             DType::kI32, DType::kI64, DType::kBool};

TEST(NvrtcSpecial, RandomKernelsCompileForEveryDtype) {
  for (DType dtype : kDTypes) {
    for (auto kind : {Distribution::Kind::kUniform, Distribution::Kind::kNormal}) {
      const codegen::GeneratedKernel k = codegen::RandomKernel(kind, dtype);
      ExpectCompiles(k.source, "random_" + std::string(DTypeName(dtype)));
    }
  }
}

TEST(NvrtcSpecial, IndexAndIntMatmulKernelsCompile) {
  for (DType dtype : kDTypes) {
    for (DType index : {DType::kI32, DType::kI64}) {
      ExpectCompiles(codegen::IndexKernel(false, dtype, index).source, "gather");
      ExpectCompiles(codegen::IndexKernel(true, dtype, index).source, "select");
    }
  }
  ExpectCompiles(codegen::IntMatmulKernel(DType::kI32).source, "int_matmul_i32");
  ExpectCompiles(codegen::IntMatmulKernel(DType::kI64).source, "int_matmul_i64");
}

}  // namespace
}  // namespace ember

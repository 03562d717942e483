// Golden sources of the code generator: for a set of traces the real fusers build (the seed's
// expression, chains, softmax, layernorm, a matmul epilogue, f16, views, in-place outputs, a
// reduce along another axis), the plan and the generated CUDA C++ must equal the files in
// tests/codegen/golden/. A change to the generator shows up as a diff of those files:
// EMBER_UPDATE_GOLDEN=1 rewrites them (review the diff before committing it).
// nvrtc_compile_test.cpp compiles the same sources with NVRTC.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "codegen/kernel_source.h"
#include "codegen/plan_trace.h"
#include "tests/codegen/golden_cases.h"

namespace ember {
namespace {

std::string GoldenPath(const std::string& name) {
  return std::string(EMBER_CODEGEN_GOLDEN_DIR) + "/" + name + ".cu";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class GoldenTest : public ::testing::TestWithParam<codegen_test::GoldenCase> {};

TEST_P(GoldenTest, SourceMatchesGoldenFile) {
  const codegen_test::GoldenCase& c = GetParam();
  const codegen_test::Generated generated = codegen_test::Generate(c);
  const std::string path = GoldenPath(c.name);
  if (std::getenv("EMBER_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << generated.text;
    GTEST_SKIP() << "rewrote " << path;
  }
  const std::string golden = ReadFile(path);
  ASSERT_FALSE(golden.empty()) << "missing " << path << " (EMBER_UPDATE_GOLDEN=1 writes it)";
  EXPECT_EQ(generated.text, golden) << "the generated source of " << c.name << " changed";
}

INSTANTIATE_TEST_SUITE_P(Traces, GoldenTest, ::testing::ValuesIn(codegen_test::GoldenCases()),
                         [](const auto& test_info) { return test_info.param.name; });

}  // namespace
}  // namespace ember

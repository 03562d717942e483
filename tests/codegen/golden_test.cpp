// Golden sources of the code generator: for a set of traces the real fusers build (the seed's
// expression, chains, softmax, layernorm, a matmul epilogue, f16, views, in-place outputs, a
// reduce along another axis), the plan and the generated CUDA C++ must equal the files in
// tests/codegen/golden/. A change to the generator shows up as a diff of those files:
// EMBER_UPDATE_GOLDEN=1 rewrites them (review the diff before committing it).
// nvrtc_compile_test.cpp compiles the same sources with NVRTC.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "codegen/kernel_source.h"
#include "codegen/plan_trace.h"
#include "tests/codegen/golden_cases.h"

namespace ember {
namespace {

// The folder is compiled in; $EMBER_CODEGEN_GOLDEN_DIR overrides it where the binary runs from
// another checkout (the GPU machine's copy of the repository).
std::string GoldenPath(const std::string& name) {
  const char* dir = std::getenv("EMBER_CODEGEN_GOLDEN_DIR");
  return std::string(dir != nullptr ? dir : EMBER_CODEGEN_GOLDEN_DIR) + "/" + name + ".cu";
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

// Every slot a kernel reads is one its Params declares and KernelArguments fills.
TEST_P(GoldenTest, EverySlotTheSourceReadsIsDeclared) {
  const codegen_test::GoldenCase& c = GetParam();
  const FuseTrace trace = c.trace();
  codegen_test::LaunchMaker maker(c.dims);
  const codegen::TraceLaunch launch = maker.Make(trace);
  const codegen::TracePlan plan = codegen::PlanTrace(launch);
  for (const codegen::KernelSpec& spec : plan.kernels) {
    const codegen::GeneratedKernel kernel = codegen::GenerateKernel(trace, spec);
    const std::string declared =
        "s[" + std::to_string(std::max<size_t>(1, kernel.slots.size())) + "]; };";
    EXPECT_NE(kernel.source.find(declared), std::string::npos) << c.name;
    for (size_t at = kernel.source.find("p.s["); at != std::string::npos;
         at = kernel.source.find("p.s[", at + 1)) {
      const size_t slot = std::stoul(kernel.source.substr(at + 4));
      EXPECT_LT(slot, kernel.slots.size()) << c.name << " reads slot " << slot;
    }
    std::vector<codegen::BoundTensor> scratch;
    codegen::TraceLaunch bound = launch;
    for (const codegen::ScratchSpec& s : plan.scratch) {
      bound.scratch.push_back({.dtype = s.dtype, .shape = {s.positions}, .strides = {1}});
    }
    EXPECT_EQ(codegen::KernelArguments(bound, plan, kernel.slots).size(),
              std::max<size_t>(1, kernel.slots.size()));
  }
}

INSTANTIATE_TEST_SUITE_P(Traces, GoldenTest, ::testing::ValuesIn(codegen_test::GoldenCases()),
                         [](const auto& test_info) { return test_info.param.name; });

}  // namespace
}  // namespace ember

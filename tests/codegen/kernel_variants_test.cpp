// Note [Kernel variants] (codegen/kernel_variants.h): the words EMBER_KERNEL_VARIANTS takes, the
// errors for others, and what each variant changes in a plan or a source (nothing when unset:
// the golden sources pin that).
#include <gtest/gtest.h>

#include <ember/error.h>

#include "codegen/kernel_source.h"
#include "codegen/kernel_variants.h"
#include "codegen/launch_geometry.h"
#include "codegen/plan_trace.h"
#include "tests/codegen/golden_cases.h"

namespace ember {
namespace {

using codegen::KernelVariants;
using codegen::ParseKernelVariants;

// Sets the process's variants for one test.
class ScopedVariants {
 public:
  explicit ScopedVariants(const KernelVariants& v) { codegen::SetKernelVariantsForTesting(&v); }
  ~ScopedVariants() { codegen::SetKernelVariantsForTesting(nullptr); }
};

std::string SourceOf(const FuseTrace& trace, std::map<int64_t, int64_t> dims) {
  codegen_test::LaunchMaker maker(std::move(dims));
  const codegen::TracePlan plan = codegen::PlanTrace(maker.Make(trace));
  return codegen::GenerateKernel(trace, plan.kernels.at(0)).source;
}

TEST(KernelVariants, EveryWordParsesAndPrintsBack) {
  EXPECT_EQ(ParseKernelVariants(""), KernelVariants{});
  const KernelVariants v = ParseKernelVariants("unroll,minblocks=8,vpt=2,,rownocap,nocap");
  EXPECT_EQ(v.row_min_blocks, 8);
  EXPECT_EQ(v.row_vectors_per_thread, 2);
  EXPECT_TRUE(v.row_no_wave_cap);
  EXPECT_TRUE(v.elementwise_unroll);
  EXPECT_TRUE(v.elementwise_no_cap);
  EXPECT_EQ(v.Text(), "minblocks=8,vpt=2,rownocap,unroll,nocap");
  EXPECT_EQ(ParseKernelVariants(v.Text()), v);
  EXPECT_EQ(KernelVariants{}.Text(), "");
}

TEST(KernelVariants, UnknownWordsAndBadValuesAreRefusedByName) {
  for (const char* bad : {"fast", "minblocks=0", "minblocks=33", "minblocks=x", "minblocks",
                          "vpt=3", "vpt=128", "unroll=2"}) {
    try {
      ParseKernelVariants(std::string("nocap,") + bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}

TEST(KernelVariants, MinBlocksCapsTheRowKernelAndIsWrittenIntoItsSource) {
  const FuseTrace softmax = codegen_test::ops::Softmax();
  const std::string planner = SourceOf(softmax, {{1, 2048}, {2, 4096}});
  EXPECT_NE(planner.find("__launch_bounds__(256) "), std::string::npos);
  EXPECT_EQ(planner.find("// variants:"), std::string::npos);
  const ScopedVariants scoped(ParseKernelVariants("minblocks=8"));
  const std::string capped = SourceOf(softmax, {{1, 2048}, {2, 4096}});
  EXPECT_NE(capped.find("__launch_bounds__(256, 8) "), std::string::npos);
  EXPECT_NE(capped.find("// variants: minblocks=8\n"), std::string::npos);
  // An elementwise kernel keeps its bounds, and still names the variant (another key).
  const std::string seed = SourceOf(codegen_test::ops::Seed(DType::kF32), {{1, 64}, {2, 64}});
  EXPECT_NE(seed.find("__launch_bounds__(256) "), std::string::npos);
  EXPECT_NE(seed.find("// variants: minblocks=8\n"), std::string::npos);
}

// Note [Register cap]: the launcher's cap for a row kernel, which a minblocks=N variant replaces;
// an elementwise kernel never takes it.
TEST(KernelVariants, ARegisterCapIsWrittenIntoARowKernelOnly) {
  const FuseTrace softmax = codegen_test::ops::Softmax();
  codegen_test::LaunchMaker maker({{1, 2048}, {2, 4096}});
  const codegen::TracePlan plan = codegen::PlanTrace(maker.Make(softmax));
  const std::string capped = codegen::GenerateKernel(softmax, plan.kernels.at(0), 8).source;
  EXPECT_NE(capped.find("__launch_bounds__(256, 8) "), std::string::npos);
  EXPECT_EQ(capped.find("// variants:"), std::string::npos);  // the rule, not a variant
  {
    const ScopedVariants scoped(ParseKernelVariants("minblocks=4"));
    const std::string fixed = codegen::GenerateKernel(softmax, plan.kernels.at(0), 8).source;
    EXPECT_NE(fixed.find("__launch_bounds__(256, 4) "), std::string::npos);
  }
  codegen_test::LaunchMaker seed_maker({{1, 64}, {2, 64}});
  const FuseTrace seed = codegen_test::ops::Seed(DType::kF32);
  const codegen::TracePlan seed_plan = codegen::PlanTrace(seed_maker.Make(seed));
  const std::string elementwise = codegen::GenerateKernel(seed, seed_plan.kernels.at(0), 8).source;
  EXPECT_NE(elementwise.find("__launch_bounds__(256) "), std::string::npos);
}

TEST(KernelVariants, VectorsPerThreadSetTheRowGroup) {
  const codegen::RowShape row{.vectors = 1024, .units = 10000, .multiprocessors = 132};
  EXPECT_EQ(codegen::ChooseRowGeometry(row).group, 256);  // kRowVectorsPerThread = 4
  const ScopedVariants scoped(ParseKernelVariants("vpt=2"));
  EXPECT_EQ(codegen::ChooseRowGeometry(row).group, 512);
}

TEST(KernelVariants, UnrollAndNoCapChangeTheElementwiseKernel) {
  codegen_test::LaunchMaker maker({{1, 4096}, {2, 4096}});
  const FuseTrace seed = codegen_test::ops::Seed(DType::kF32);
  const codegen::TracePlan capped = codegen::PlanTrace(maker.Make(seed));
  EXPECT_EQ(capped.kernels.at(0).grid, 132 * 16);
  const ScopedVariants scoped(ParseKernelVariants("unroll,nocap"));
  const codegen::TracePlan uncapped = codegen::PlanTrace(maker.Make(seed));
  EXPECT_EQ(uncapped.kernels.at(0).grid, 4096 * 4096 / 4 / 256);
  const std::string source = codegen::GenerateKernel(seed, uncapped.kernels.at(0)).source;
  EXPECT_NE(source.find("#pragma unroll 4\n  for (idx v ="), std::string::npos) << source;
}

}  // namespace
}  // namespace ember

// KernelSignature and ParseKernelSignature (codegen/kernel_signature.h): every spec the planner
// makes for the golden traces reads back as itself, and text that is not a signature of the
// trace's shape reads back as nothing.
#include "codegen/kernel_signature.h"

#include <gtest/gtest.h>

#include "codegen/plan_trace.h"
#include "tests/codegen/golden_cases.h"

namespace ember {
namespace {

using codegen::KernelSpec;
using codegen::ParseKernelSignature;

TEST(KernelSignature, EveryGoldenSpecReadsBackAsItself) {
  size_t specs = 0;
  for (const codegen_test::GoldenCase& c : codegen_test::GoldenCases()) {
    const FuseTrace trace = c.trace();
    codegen_test::LaunchMaker maker(c.dims);
    const codegen::TracePlan plan = codegen::PlanTrace(maker.Make(trace));
    for (const KernelSpec& spec : plan.kernels) {
      ++specs;
      EXPECT_EQ(codegen::KernelSignature(spec), spec.signature) << c.name;
      const std::optional<KernelSpec> read =
          ParseKernelSignature(spec.signature, trace.blocks.size());
      ASSERT_TRUE(read.has_value()) << c.name << ": " << spec.signature;
      EXPECT_EQ(read->mode, spec.mode) << c.name;
      EXPECT_EQ(read->block, spec.block) << c.name;
      EXPECT_EQ(read->width, spec.width) << c.name;
      EXPECT_EQ(read->index64, spec.index64) << c.name;
      EXPECT_EQ(read->threads, spec.threads) << c.name;
      EXPECT_EQ(read->group, spec.group) << c.name;
      EXPECT_EQ(read->shared_handover, spec.shared_handover) << c.name;
      EXPECT_EQ(read->access, spec.access) << c.name;
      EXPECT_EQ(read->dtypes, spec.dtypes) << c.name;
      EXPECT_EQ(read->unaliased, spec.unaliased) << c.name;
      EXPECT_EQ(read->full, spec.full) << c.name;
      EXPECT_EQ(read->signature, spec.signature) << c.name;
    }
  }
  EXPECT_GT(specs, 20u);
}

TEST(KernelSignature, TextThatIsNotASignatureOfTheTraceReadsAsNothing) {
  const std::string good =
      "mode=1 block=0 width=4 index64=false threads=256 group=32 shared=true b0:21 dt:aa ua:11 "
      "full:1";
  ASSERT_TRUE(ParseKernelSignature(good, 1).has_value());
  EXPECT_FALSE(ParseKernelSignature(good, 2).has_value()) << "another trace's block count";
  EXPECT_FALSE(ParseKernelSignature(good, 0).has_value());
  EXPECT_FALSE(ParseKernelSignature("", 1).has_value());
  for (const std::string bad : {
           "mode=9 block=0 width=4 index64=false threads=256 group=32 shared=true b0:21 dt:aa "
           "ua:11 full:1",  // no such mode
           "mode=1 block=0 width=4 index64=false threads=256 group=512 shared=true b0:21 dt:aa "
           "ua:11 full:1",  // a group larger than the block
           "mode=1 block=0 width=4 index64=maybe threads=256 group=32 shared=true b0:21 dt:aa "
           "ua:11 full:1",
           "mode=1 block=0 width=4x index64=false threads=256 group=32 shared=true b0:21 dt:aa "
           "ua:11 full:1",
           "mode=1 block=0 width=4 index64=false threads=256 group=32 shared=true b0:29 dt:aa "
           "ua:11 full:1",  // an access past the enum
           "mode=1 block=0 width=4 index64=false threads=256 group=32 shared=true b0:21 dt:az "
           "ua:11 full:1",  // a dtype past the enum
           "mode=1 block=0 width=4 index64=false threads=256 group=32 shared=true b0:21 dt:aaa "
           "ua:11 full:1",  // tensor counts that disagree
           "mode=1 block=0 width=99999999999 index64=false threads=256 group=32 shared=true b0:21 "
           "dt:aa ua:11 full:1",
       }) {
    EXPECT_FALSE(ParseKernelSignature(bad, 1).has_value()) << bad;
  }
}

}  // namespace
}  // namespace ember

// The plan of blocks with indexed ops (Note [Indexed inputs], engine/trace/fuse_trace.h;
// codegen/indexed_read.h): an indexed input is read one element per lane by its own strides
// (Access::kIndexed) and does not vote in the vector width, which still divides the last dim
// (lanes never leave a row); the output keeps its contiguous vector access; __restrict__
// follows addresses as for every tensor; malformed launches are refused before any source.
#include <gtest/gtest.h>

#include <ember/error.h>

#include "codegen/kernel_signature.h"
#include "codegen/kernel_source.h"
#include "codegen/plan_trace.h"
#include "tests/codegen/codegen_test_util.h"
#include "tests/codegen/indexed_traces.h"

namespace ember {
namespace {

using codegen::Access;
using codegen::KernelSpec;
using codegen::TraceLaunch;
using codegen::TracePlan;
using codegen_test::CatMulAdd;
using codegen_test::GatherMulAdd;
using codegen_test::SelectMulAdd;

TracePlan PlanOf(const FuseTrace& trace, std::map<int64_t, int64_t> dims) {
  codegen_test::LaunchMaker maker(std::move(dims));
  return codegen::PlanTrace(maker.Make(trace));
}

TEST(IndexedPlan, IndexedInputsAreReadByIndexAndTheOutputStaysVectorized) {
  const FuseTrace trace = GatherMulAdd(1, DType::kF32, DType::kI64);
  const TracePlan plan = PlanOf(trace, {{1, 64}, {2, 48}, {3, 100}});
  ASSERT_EQ(plan.kernels.size(), 1u);
  const KernelSpec& k = plan.kernels[0];
  // Kernel tensors: tensor, indices, addend, output.
  EXPECT_EQ(k.access[0][0], Access::kIndexed);
  EXPECT_EQ(k.access[0][1], Access::kIndexed);
  EXPECT_EQ(k.access[0][2], Access::kVector);
  EXPECT_EQ(k.access[0][3], Access::kVector);  // contiguous output, 16-byte stores
  EXPECT_EQ(k.width, 4);                       // f32: the i64 indices do not narrow it
  EXPECT_EQ(k.unaliased, (std::vector<bool>{true, true, true, true}));
  // The signature names the indexed access and parses back.
  const std::optional<KernelSpec> parsed = codegen::ParseKernelSignature(k.signature, 1);
  ASSERT_TRUE(parsed.has_value()) << k.signature;
  EXPECT_EQ(parsed->access, k.access);
}

TEST(IndexedPlan, WidthDividesTheLastDimSoLanesStayInARow) {
  // Rows of 6 f32: 4 lanes would cross a row, so 2.
  const TracePlan plan =
      PlanOf(CatMulAdd(1, {3, 4}, 5, DType::kF32), {{1, 33}, {3, 2}, {4, 4}, {5, 6}});
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels[0].width, 2);
  EXPECT_EQ(plan.kernels[0].access[0][0], Access::kIndexed);
  EXPECT_EQ(plan.kernels[0].access[0][1], Access::kIndexed);
}

TEST(IndexedPlan, CatOfOneInputTwiceReadsItByIndex) {
  const FuseTrace trace = CatMulAdd(0, {3}, 4, DType::kF32, {0, 0});
  const TracePlan plan = PlanOf(trace, {{2, 16}, {3, 8}, {4, 16}});
  ASSERT_EQ(plan.kernels.size(), 1u);
  const KernelSpec& k = plan.kernels[0];
  EXPECT_EQ(k.access[0][0], Access::kIndexed);
  EXPECT_EQ(k.unaliased, (std::vector<bool>{true, true, true}));
  const codegen::GeneratedKernel kernel = codegen::GenerateKernel(trace, k);
  // Both halves read t0, at its own stride; its length along dim 0 is subtracted once.
  EXPECT_NE(kernel.source.find("(a -= "), std::string::npos) << kernel.source;
}

TEST(IndexedPlan, TwoIndexedInputsAtOneAddressAreNotRestrict) {
  const FuseTrace trace = CatMulAdd(1, {3, 3}, 4, DType::kF32);
  codegen_test::LaunchMaker maker({{1, 8}, {3, 16}, {4, 32}});
  TraceLaunch launch = maker.Make(trace);
  launch.inputs[1].address = launch.inputs[0].address;  // cat([x, x]) bound twice
  const TracePlan plan = codegen::PlanTrace(launch);
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels[0].unaliased, (std::vector<bool>{false, false, true, true}));
}

TEST(IndexedPlan, SelectIndicesAreOneElementPerPositionAlongDim) {
  const FuseTrace trace = SelectMulAdd(1, DType::kF16, DType::kI32);
  const TracePlan plan = PlanOf(trace, {{1, 10}, {2, 16}, {3, 7}});
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels[0].width, 8);  // f16 output and addend
  EXPECT_EQ(plan.kernels[0].access[0][1], Access::kIndexed);
}

TEST(IndexedPlan, MalformedLaunchesAreRefused) {
  // Cat inputs that do not fill the reference along dim.
  {
    const FuseTrace trace = CatMulAdd(1, {3, 4}, 5, DType::kF32);
    EXPECT_THROW(PlanOf(trace, {{1, 8}, {3, 2}, {4, 2}, {5, 6}}), Error);
  }
  // Select indices of another length than the output along dim.
  {
    const FuseTrace trace = SelectMulAdd(0, DType::kF32, DType::kI64);
    codegen_test::LaunchMaker maker({{1, 4}, {2, 8}, {3, 5}});
    TraceLaunch launch = maker.Make(trace);
    launch.inputs[1] = maker.Tensor({3}, DType::kI64);
    EXPECT_THROW(codegen::PlanTrace(launch), Error);
  }
  // Float indices.
  EXPECT_THROW(PlanOf(GatherMulAdd(1, DType::kF32, DType::kF32), {{1, 4}, {2, 8}, {3, 5}}), Error);
  // A dim outside the block.
  {
    FuseTrace trace = GatherMulAdd(1, DType::kF32, DType::kI64);
    trace.blocks[0].ops[0].dim = 2;
    EXPECT_THROW(PlanOf(trace, {{1, 4}, {2, 8}, {3, 5}}), Error);
  }
  // An indexed input also read at the block's positions.
  {
    FuseTrace trace = GatherMulAdd(1, DType::kF32, DType::kI64);
    trace.blocks[0].reads[0].args[0].pos = 1;
    trace.blocks[0].reads[0].args[0].dtype = DType::kI64;
    EXPECT_THROW(PlanOf(trace, {{1, 4}, {2, 8}, {3, 5}}), Error);
  }
}

}  // namespace
}  // namespace ember

// Note [Trace chains] (engine/trace/trace_chains.h): the independent chains of a fused trace,
// and the planner's kernel per chain (codegen/plan_trace.cpp) unless one chain writes memory
// another touches (codegen/chain_memory.h).
#include <gtest/gtest.h>

#include <algorithm>

#include <ember/error.h>

#include "codegen/kernel_signature.h"
#include "codegen/kernel_source.h"
#include "codegen/plan_trace.h"
#include "engine/fuse/reduce_broadcasted_fuser.h"
#include "engine/trace/trace_chains.h"
#include "tests/codegen/chain_traces.h"
#include "tests/codegen/golden_cases.h"

namespace ember {
namespace {

using codegen::KernelMode;
using codegen_test::ops::kRow;
using codegen_test::ops::kRows;
using test::Out;
using test::P;
using test::Ro;
using test::Rw;

size_t OpCount(const FuseTrace& trace) {
  size_t n = 0;
  for (const FuseBlock& b : trace.blocks) n += b.reads.size() + b.ops.size() + b.writes.size();
  return n;
}

// Whether `trace` reads input `pos` (a read op or an indexed operand).
bool ReadsInput(const FuseTrace& trace, uint32_t pos) {
  for (const FuseBlock& b : trace.blocks) {
    for (const FuseOp& op : b.reads) {
      if (op.args[0].kind == FuseArgKind::kInput && op.args[0].pos == pos) return true;
    }
  }
  return false;
}

TEST(TraceChains, OneSoftmaxIsOneChain) {
  const FuseTrace trace = codegen_test::ops::Softmax();
  EXPECT_TRUE(SplitTraceChains(trace).empty());
}

TEST(TraceChains, TwoSoftmaxesAreTwoChainsOfTwoStagesEach) {
  const FuseTrace trace = codegen_test::ops::TwoSoftmaxes();
  ASSERT_EQ(trace.reduces.size(), 4u);
  const std::vector<FuseTrace> chains = SplitTraceChains(trace);
  ASSERT_EQ(chains.size(), 2u);
  EXPECT_EQ(chains[0].reduces.size(), 2u);
  EXPECT_EQ(chains[1].reduces.size(), 2u);
  // The first chain holds the first stages; blocks, shapes and resources stay the trace's.
  EXPECT_EQ(chains[0].reduces[0], trace.reduces[0]);
  EXPECT_EQ(chains[1].reduces[1], trace.reduces[3]);
  for (const FuseTrace& chain : chains) {
    ASSERT_EQ(chain.blocks.size(), trace.blocks.size());
    EXPECT_EQ(chain.resources, trace.resources);
    for (size_t b = 0; b < trace.blocks.size(); ++b) {
      EXPECT_EQ(chain.blocks[b].shape_ref, trace.blocks[b].shape_ref);
    }
  }
  // Every op in exactly one chain (no input is read by both).
  EXPECT_EQ(OpCount(chains[0]) + OpCount(chains[1]), OpCount(trace));
  EXPECT_NE(ReadsInput(chains[0], 0), ReadsInput(chains[1], 0));
  // The first chain's last block and the second's first ones have nothing of the other.
  EXPECT_TRUE(IsIdleBlock(chains[0], static_cast<uint32_t>(trace.blocks.size() - 1)));
  EXPECT_TRUE(IsIdleBlock(chains[1], 0));
  EXPECT_FALSE(IsIdleBlock(trace, 0));
}

TEST(TraceChains, AnInputTwoChainsReadIsReadByEach) {
  const FuseTrace trace = codegen_test::OneReadForTwoChains();
  const std::vector<FuseTrace> chains = SplitTraceChains(trace);
  ASSERT_EQ(chains.size(), 2u);
  // The reduce chain first (its op comes first), then exp(x) without a stage.
  EXPECT_EQ(chains[0].reduces.size(), 1u);
  EXPECT_TRUE(chains[1].reduces.empty());
  for (const FuseTrace& chain : chains) {
    ASSERT_EQ(chain.blocks[0].reads.size(), 1u);
    EXPECT_EQ(chain.blocks[0].reads[0], trace.blocks[0].reads[0]);
    EXPECT_EQ(chain.blocks[0].ops.size(), 1u);
  }
  EXPECT_EQ(chains[0].blocks[0].ops[0].kind, FuseOpKind::kMul);
  EXPECT_EQ(chains[1].blocks[0].ops[0].kind, FuseOpKind::kExp);
  // The one read of x went to both chains; everything else to one.
  EXPECT_EQ(OpCount(chains[0]) + OpCount(chains[1]), OpCount(trace) + 1);
  EXPECT_TRUE(IsIdleBlock(chains[1], 1));
  // Planned as two row kernels; the second folds nothing.
  codegen_test::LaunchMaker maker({{1, 300}, {2, 1000}});
  const codegen::TracePlan plan = codegen::PlanTrace(maker.Make(trace));
  ASSERT_EQ(plan.kernels.size(), 2u);
  const std::string second = codegen::GenerateKernel(trace, plan.kernels[1]).source;
  EXPECT_EQ(second.find("acc0"), std::string::npos) << second;
  EXPECT_NE(second.find("expf"), std::string::npos) << second;
}

TEST(TraceChains, EachChainRunsAsItsOwnRowKernel) {
  const FuseTrace trace = codegen_test::ops::TwoSoftmaxes();
  codegen_test::LaunchMaker maker({{1, 512}, {2, 4096}});
  const codegen::TracePlan plan = codegen::PlanTrace(maker.Make(trace));
  ASSERT_EQ(plan.kernels.size(), 2u);
  for (int k = 0; k < 2; ++k) {
    const codegen::KernelSpec& spec = plan.kernels[k];
    EXPECT_EQ(spec.mode, KernelMode::kRow);
    EXPECT_EQ(spec.chain, k);
    EXPECT_TRUE(spec.shared_handover);
    // One chain's handovers: one row slot of 4096 floats per row of the block.
    EXPECT_EQ(spec.shared_bytes, 4096 * 4 * (spec.threads / spec.group));
    EXPECT_NE(spec.signature.find(" chain=" + std::to_string(k)), std::string::npos);
    // Each kernel reads its own chain's input only (kernel tensor 0 or 1).
    const std::string source = codegen::GenerateKernel(trace, spec).source;
    EXPECT_NE(source.find("t" + std::to_string(k) + " = "), std::string::npos) << source;
    EXPECT_EQ(source.find("t" + std::to_string(1 - k) + " = "), std::string::npos) << source;
  }
}

TEST(TraceChains, OneKernelWhenAChainWritesWhereAnotherReads) {
  const FuseTrace trace = codegen_test::ops::TwoSoftmaxes();
  codegen_test::LaunchMaker maker({{1, 512}, {2, 4096}});
  codegen::TraceLaunch launch = maker.Make(trace);
  // The first softmax's output takes the second's input buffer (an in-place reuse).
  const std::vector<FuseTrace> chains = SplitTraceChains(trace);
  int first_output = -1;
  for (const FuseBlock& b : chains[0].blocks) {
    for (const FuseOp& op : b.writes) {
      if (op.out.kind == FuseArgKind::kOutput) first_output = static_cast<int>(op.out.pos);
    }
  }
  ASSERT_GE(first_output, 0);
  const uint32_t second_input = ReadsInput(chains[1], 0) ? 0 : 1;
  launch.outputs.at(first_output).address = launch.inputs.at(second_input).address + 1024;
  const codegen::TracePlan plan = codegen::PlanTrace(launch);
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels[0].chain, -1);
}

TEST(TraceChains, AChainSignatureReadsBack) {
  const FuseTrace trace = codegen_test::ops::TwoSoftmaxes();
  codegen_test::LaunchMaker maker({{1, 64}, {2, 1 << 16}});  // rows too long for shared memory
  const codegen::TracePlan plan = codegen::PlanTrace(maker.Make(trace));
  ASSERT_EQ(plan.kernels.size(), 2u);
  // Scratch handovers: the second chain's are numbered after the first's.
  EXPECT_EQ(plan.kernels[0].scratch_base, 0);
  EXPECT_GT(plan.kernels[1].scratch_base, 0);
  EXPECT_EQ(static_cast<size_t>(plan.kernels[1].scratch_base) * 2, plan.scratch.size());
  for (const codegen::KernelSpec& spec : plan.kernels) {
    const std::optional<codegen::KernelSpec> back =
        codegen::ParseKernelSignature(spec.signature, trace.blocks.size());
    ASSERT_TRUE(back.has_value()) << spec.signature;
    EXPECT_EQ(back->chain, spec.chain);
    EXPECT_EQ(back->scratch_base, spec.scratch_base);
    EXPECT_EQ(codegen::GenerateKernel(trace, *back).source,
              codegen::GenerateKernel(trace, spec).source);
  }
  // A chain the trace does not have is refused, not generated.
  codegen::KernelSpec wrong = plan.kernels[1];
  wrong.chain = 2;
  EXPECT_THROW(codegen::GenerateKernel(trace, wrong), Error);
}

}  // namespace
}  // namespace ember

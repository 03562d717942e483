// A stored plan with a fused trace, and kernel rows as the CUDA kernel cache writes them for it:
// the source codegen generates from the trace, stored under MakeKernelKey of its text — for
// tests of what a trusted import and a copy accept (Note [Kernels are their plans'],
// store/admin/bundle_kernel_check.h). No GPU: the binary is only bytes here.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codegen/kernel_source.h"
#include "codegen/plan_trace.h"
#include "engine/fuse/builtin_fusers.h"
#include "engine/ir/builders.h"
#include "engine/ir/relative.h"
#include "engine/runtime/kernel_key.h"
#include "engine/stream/explorer.h"
#include "store/codec/plan_codec.h"
#include "store/repository/column_encoding.h"
#include "store/repository/plan_rows.h"
#include "tests/codegen/codegen_test_util.h"
#include "tests/common/ir_builders.h"
#include "tests/store/real_plans.h"

namespace ember::test {

// `first`(x) then `second`, over [4, 8], fused into one ElementWise leaf.
inline ExecutionPlan FusedChain(OpKind first, OpKind second) {
  const Shape r = {4, 8};
  return ExploredPlan(
      {ir::Unary(first, T(1, r), Out(2, r)), ir::Unary(second, Rw(2, r), Out(3, r))});
}

// The row of `plan` as the engine writes it.
inline NewPlan RowOfPlan(const ExecutionPlan& plan) {
  return {.first_op_hash = FirstOpHash(plan.operations),
          .plan_key = PlanKey(plan.operations),
          .ops_blob = EncodeOperations(plan.operations),
          .plan_blob = EncodeBlockOptimization(plan.optimization),
          .num_ops = static_cast<uint32_t>(plan.operations.size())};
}

inline const FuseTrace* FirstTrace(const ExecutionStrategy& s) {
  if (s.kind == ExecutionStrategy::Kind::kOptimization) {
    const auto* traced = dynamic_cast<const TraceOptimization*>(s.optimization.get());
    return traced != nullptr ? &traced->trace() : nullptr;
  }
  for (const ExecutionStrategy& child : s.children) {
    if (const FuseTrace* trace = FirstTrace(child)) return trace;
  }
  return nullptr;
}

constexpr char kKernelOptions[] = "--gpu-architecture=sm_90 -std=c++17 -default-device";

// A kernel row for `name` and `source`, under the key of that text.
inline NewKernel KernelRow(const std::string& name, const std::string& source,
                           std::string binary =
                               "\x7f"
                               "ELF cubin") {
  const KernelBinaryKey key =
      MakeKernelKey({.name = name, .source = source}, kKernelOptions, "sm_90", "nvrtc-13.0");
  return {.key = {.source_hash = Hash64Bytes(key.hash),
                  .arch = key.arch,
                  .compiler_version = key.compiler},
          .binary = Blob(binary.begin(), binary.end()),
          .text = {.name = name, .source = source, .options = kKernelOptions}};
}

// The first kernel `plan`'s first fused trace generates for a launch over dims of 8.
inline NewKernel GeneratedKernelOf(const ExecutionPlan& plan) {
  const FuseTrace* trace = FirstTrace(plan.optimization.strategy);
  EXPECT_NE(trace, nullptr);
  if (trace == nullptr) return {};
  codegen_test::LaunchMaker maker({{1, 8}, {2, 8}, {3, 8}, {4, 8}, {5, 8}, {6, 8}});
  const codegen::TraceLaunch launch = maker.Make(*trace);
  const codegen::TracePlan planned = codegen::PlanTrace(launch);
  EXPECT_FALSE(planned.kernels.empty());
  if (planned.kernels.empty()) return {};
  const codegen::GeneratedKernel kernel = codegen::GenerateKernel(*trace, planned.kernels[0]);
  return KernelRow(kernel.name, kernel.source);
}

}  // namespace ember::test

// Plans that pass CheckPlanRecord (store/repository/plan_row_check.h) as the engine would load
// them: real relative ops, encoded, with keys derived from them — for tests of what copies,
// exports and imports check (sqlite_test::SamplePlan's made-up blobs would be refused).
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "engine/fuse/builtin_fusers.h"
#include "engine/ir/builders.h"
#include "engine/ir/relative.h"
#include "engine/stream/explorer.h"
#include "store/codec/plan_codec.h"
#include "store/repository/plan_rows.h"

namespace ember::test {

// A one-op plan (relative form, unfused) of `kind` on a 4x4 tensor.
inline NewPlan OneOpPlan(OpKind kind) {
  OperationConverter converter;
  const OperationIr global =
      ir::Unary(kind, TensorIr{.id = 5, .shape = {4, 4}, .status = TensorStatus::kReadOnly},
                TensorIr{.id = 6, .shape = {4, 4}, .status = TensorStatus::kNotInit});
  const std::vector<OperationIr> ops = {converter.ToRelative(global)};
  return NewPlan{.first_op_hash = FirstOpHash(ops),
                 .plan_key = PlanKey(ops),
                 .ops_blob = EncodeOperations(ops),
                 .plan_blob = EncodeBlockOptimization(BlockOptimization::Unfused(1)),
                 .num_ops = 1,
                 .explore_ms = 2.5};
}

// `global` planned as the engine plans a sync segment: the real fusers, the explorer (search,
// holes, the sync tail), one OnSync trigger.
inline ExecutionPlan ExploredPlan(const std::vector<OperationIr>& global) {
  OperationConverter converter;
  std::vector<OperationIr> ops;
  for (const OperationIr& op : global) ops.push_back(converter.ToRelative(op));
  Explorer explorer(BuiltinFusers(kCpuMaxBindings), 5, std::nullopt);
  for (size_t i = 0; i < ops.size(); ++i) explorer.OnNewOperation();
  Exploration found = explorer.Explore(ops, ExecutionMode::kSync);
  EXPECT_EQ(found.kind, Exploration::Kind::kCompleted);
  return ExecutionPlan{std::move(ops), {ExecutionTrigger::OnSync()}, std::move(found.optimization)};
}

}  // namespace ember::test

// Plans that pass CheckPlanRecord (store/repository/plan_row_check.h) as the engine would load
// them: real relative ops, encoded, with keys derived from them — for tests of what copies,
// exports and imports check (sqlite_test::SamplePlan's made-up blobs would be refused).
#pragma once

#include <vector>

#include "engine/ir/builders.h"
#include "engine/ir/relative.h"
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

}  // namespace ember::test

// One-op plans for tests of PersistentPlans: a relative unary op of `kind` on [4, 8], and the
// plan made of it alone (unfused, always triggered), the only plan of its first op.
#pragma once

#include "engine/ir/builders.h"
#include "engine/ir/relative.h"
#include "engine/stream/plan.h"

namespace ember::test {

inline OperationIr FirstOp(OpKind kind) {
  OperationConverter converter;
  return converter.ToRelative(
      ir::Unary(kind, TensorIr{.id = 100, .shape = {4, 8}},
                TensorIr{.id = 101, .shape = {4, 8}, .status = TensorStatus::kNotInit}));
}

inline ExecutionPlan PlanStartingWith(OpKind kind) {
  return {{FirstOp(kind)}, {ExecutionTrigger::Always()}, BlockOptimization::Unfused(1)};
}

}  // namespace ember::test

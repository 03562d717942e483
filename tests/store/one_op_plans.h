// One-op plans for tests of PersistentPlans: a relative unary op of `kind` on [4, 8], and the
// plan made of it alone (unfused, always triggered), the only plan of its first op.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <span>

#include "engine/ir/builders.h"
#include "engine/ir/relative.h"
#include "engine/stream/plan.h"
#include "engine/stream/plan_backing.h"

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

// How many plans `plans` hands over for the first ops of `kinds`; each must be the one-op plan
// of its kind (a test failure otherwise).
inline size_t LoadOneOpPlans(PlanBacking& plans, std::span<const OpKind> kinds) {
  size_t added = 0;
  for (OpKind kind : kinds) {
    plans.Load(FirstOp(kind), [&](ExecutionPlan plan) {
      EXPECT_EQ(plan.operations, PlanStartingWith(kind).operations);
      return added++;
    });
  }
  return added;
}

}  // namespace ember::test

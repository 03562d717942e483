#include "engine/stream/plan_store.h"

#include <algorithm>

#include "engine/core/check.h"

namespace ember {

PlanId ExecutionPlanStore::Add(ExecutionPlan plan) {
  EMBER_CHECK(!plan.operations.empty(), "a plan must cover at least one op");
  const PlanId id = plans_.size();
  index_.Insert(plan.operations.front(), id);
  plans_.push_back(std::move(plan));
  return id;
}

const ExecutionPlan& ExecutionPlanStore::Get(PlanId id) const {
  EMBER_CHECK(id < plans_.size(), "plan #{} of {}", id, plans_.size());
  return plans_[id];
}

ExecutionPlan& ExecutionPlanStore::GetMut(PlanId id) {
  EMBER_CHECK(id < plans_.size(), "plan #{} of {}", id, plans_.size());
  return plans_[id];
}

void ExecutionPlanStore::AddTrigger(PlanId id, ExecutionTrigger trigger) {
  std::vector<ExecutionTrigger>& triggers = GetMut(id).triggers;
  if (std::find(triggers.begin(), triggers.end(), trigger) == triggers.end()) {
    triggers.push_back(std::move(trigger));
  }
}

}  // namespace ember

// ExecutionPlanStore: the plans of one device, shared by all its streams (burn's
// ExecutionPlanStore). Ids are dense and stable; plans and their triggers are append-only,
// because policies keep plan ids and trigger indices across updates.
//
// Threading: used under the device server's lock.
#pragma once

#include <vector>

#include "engine/stream/plan.h"
#include "engine/stream/plan_index.h"

namespace ember {

class ExecutionPlanStore {
 public:
  std::vector<PlanId> PlansStartingWith(const OperationIr& op) const { return index_.Find(op); }
  // REQUIRES: !plan.operations.empty().
  PlanId Add(ExecutionPlan plan);
  // REQUIRES: id < size().
  const ExecutionPlan& Get(PlanId id) const;
  ExecutionPlan& GetMut(PlanId id);
  // Appends `trigger` unless an equal one is already there.
  void AddTrigger(PlanId id, ExecutionTrigger trigger);
  size_t size() const { return plans_.size(); }

 private:
  std::vector<ExecutionPlan> plans_;
  ExecutionPlanIndex index_;
};

}  // namespace ember

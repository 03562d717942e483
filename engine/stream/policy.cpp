#include "engine/stream/policy.h"

#include <algorithm>

#include "engine/core/check.h"

namespace ember {
namespace {

std::span<const OperationIr> TriggerOps(const ExecutionPlan& plan, size_t trigger_index) {
  const ExecutionTrigger& trigger = plan.triggers[trigger_index];
  if (trigger.kind != ExecutionTrigger::Kind::kOnOperations) return {};
  return trigger.operations;
}

}  // namespace

void Policy::Update(const ExecutionPlanStore& store, const OperationIr& op,
                    std::optional<uint64_t> first_hash) {
  if (num_operations_ == 0) {
    // Plans only match at the queue head: candidates are seeded from the first op only.
    candidates_.clear();
    const std::span<const PlanId> starting =
        first_hash ? store.PlansStartingWith(op, *first_hash) : store.PlansStartingWith(op);
    for (PlanId id : starting) {
      candidates_.push_back(OperationsValidator{.id = id});
    }
  }
  UpdateCandidates(store, op);
  CheckCandidates(store);
  UpdateAvailables(store, op);
  CheckAvailables();
  ++num_operations_;
}

void Policy::Reset() {
  candidates_.clear();
  availables_.clear();
  found_.reset();
  num_operations_ = 0;
}

void Policy::UpdateCandidates(const ExecutionPlanStore& store, const OperationIr& op) {
  for (OperationsValidator& candidate : candidates_) {
    candidate.Update(op, num_operations_, store.Get(candidate.id).operations);
  }
}

void Policy::CheckCandidates(const ExecutionPlanStore& store) {
  for (const OperationsValidator& candidate : candidates_) {
    switch (candidate.state) {
      case OperationsValidator::State::kFound: {
        // The trigger validators reflect the plan's triggers at this moment, by index.
        const ExecutionPlan& plan = store.Get(candidate.id);
        Available available{candidate.id, candidate.found_size, {}};
        for (size_t i = 0; i < plan.triggers.size(); ++i) {
          TriggerValidator v;
          switch (plan.triggers[i].kind) {
            case ExecutionTrigger::Kind::kOnOperations:
              v.kind = TriggerValidator::Kind::kOnOperations;
              v.matching.id = i;
              break;
            case ExecutionTrigger::Kind::kOnSync: v.kind = TriggerValidator::Kind::kOnSync; break;
            case ExecutionTrigger::Kind::kAlways: v.kind = TriggerValidator::Kind::kAlways; break;
          }
          available.triggers.push_back(v);
        }
        availables_.push_back(std::move(available));
        break;
      }
      case OperationsValidator::State::kInvalidated:
      case OperationsValidator::State::kValidating: break;
    }
  }
  // Found and invalidated candidates are settled (each plan is a candidate once).
  std::erase_if(candidates_, [](const OperationsValidator& c) {
    return c.state != OperationsValidator::State::kValidating;
  });
}

void Policy::UpdateAvailables(const ExecutionPlanStore& store, const OperationIr& op) {
  for (Available& available : availables_) {
    const ExecutionPlan& plan = store.Get(available.id);
    for (TriggerValidator& trigger : available.triggers) {
      if (trigger.kind != TriggerValidator::Kind::kOnOperations) continue;
      if (!trigger.num_checked) {
        // The op that completed the plan is not part of the trigger.
        trigger.num_checked = 0;
        continue;
      }
      trigger.matching.Update(op, *trigger.num_checked, TriggerOps(plan, trigger.matching.id));
      ++*trigger.num_checked;
    }
  }
}

void Policy::CheckAvailables() {
  for (const Available& available : availables_) {
    for (const TriggerValidator& trigger : available.triggers) {
      switch (trigger.kind) {
        case TriggerValidator::Kind::kOnOperations:
          if (trigger.matching.state == OperationsValidator::State::kFound) {
            found_ = {available.id, available.size};
            return;
          }
          break;
        case TriggerValidator::Kind::kAlways: found_ = {available.id, available.size}; return;
        case TriggerValidator::Kind::kOnSync: break;  // never decides
      }
    }
  }
}

Action Policy::GetAction(const ExecutionPlanStore& store, std::span<const OperationIr> ops,
                         ExecutionMode mode) const {
  EMBER_CHECK(ops.size() <= num_operations_, "asked about {} ops but only {} were analyzed",
              ops.size(), num_operations_);
  if (found_ && found_->second <= ops.size()) return Action::Execute(found_->first);
  switch (mode) {
    case ExecutionMode::kLazy: return LazyAction(ops);
    case ExecutionMode::kSync: return SyncAction(store, ops);
  }
  return Action::Explore();
}

Action Policy::LazyAction(std::span<const OperationIr> ops) const {
  if (!candidates_.empty()) return Action::Defer();
  for (const Available& available : availables_) {
    if (available.size == ops.size()) return Action::Defer();  // waiting for trigger ops
    for (const TriggerValidator& trigger : available.triggers) {
      if (trigger.kind == TriggerValidator::Kind::kOnOperations &&
          trigger.matching.state == OperationsValidator::State::kValidating) {
        return Action::Defer();
      }
    }
  }
  return Action::Explore();
}

Action Policy::SyncAction(const ExecutionPlanStore& store, std::span<const OperationIr> ops) const {
  for (const Available& available : availables_) {
    if (available.size == ops.size()) return Action::Execute(available.id);
  }
  for (const OperationsValidator& candidate : candidates_) {
    if (store.Get(candidate.id).operations.size() == ops.size()) {
      return Action::Execute(candidate.id);
    }
  }
  return Action::Explore();
}

}  // namespace ember

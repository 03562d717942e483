#include "engine/stream/plan_store.h"

#include <algorithm>

#include "engine/core/check.h"
#include "engine/ir/hash.h"

namespace ember {

PlanId ExecutionPlanStore::Insert(ExecutionPlan plan) {
  EMBER_CHECK(!plan.operations.empty(), "a plan must cover at least one op");
  const PlanId id = plans_.size();
  index_.Insert(plan.operations.front(), id);
  const size_t kind = static_cast<size_t>(plan.operations.front().kind);
  if (kind >= by_first_kind_.size()) by_first_kind_.resize(kind + 1);
  by_first_kind_[kind].push_back(id);
  plans_.push_back(std::move(plan));
  return id;
}

std::span<const PlanId> ExecutionPlanStore::PlansWithFirstKind(OpKind kind) const {
  const size_t i = static_cast<size_t>(kind);
  if (i >= by_first_kind_.size()) return {};
  return by_first_kind_[i];
}

PlanId ExecutionPlanStore::Add(ExecutionPlan plan, double explore_ms) {
  const PlanId id = Insert(std::move(plan));
  if (backing_ != nullptr) backing_->OnPlanAdded(id, plans_[id], explore_ms);
  return id;
}

void ExecutionPlanStore::LoadStartingWith(const OperationIr& first) {
  if (backing_ == nullptr) return;
  LoadStartingWith(first, HashOp(first));
}

void ExecutionPlanStore::LoadStartingWith(const OperationIr& first, uint64_t hash) {
  if (backing_ == nullptr) return;
  const auto add = [this](ExecutionPlan plan) { return Insert(std::move(plan)); };
  const std::span<const PlanId> seen = loaded_.Find(first, hash);
  if (seen.empty()) {
    // The generation is read before loading: a publication during the load is asked again.
    const uint64_t generation = backing_->Generation();
    loaded_.Insert(first, load_generations_.size());
    load_generations_.push_back(generation);
    backing_->Load(first, add);
    return;
  }
  uint64_t& asked_at = load_generations_[seen.front()];
  const uint64_t generation = backing_->Generation();
  if (generation == asked_at) return;
  asked_at = generation;
  backing_->Refresh(first, add, [this](PlanId id, ExecutionTrigger trigger) {
    AddTrigger(id, std::move(trigger));
  });
}

void ExecutionPlanStore::RecordHit(PlanId id) {
  if (backing_ != nullptr) backing_->OnHit(id);
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
    if (backing_ != nullptr) backing_->OnTriggerAdded(id, plans_[id], triggers.back());
  }
}

}  // namespace ember

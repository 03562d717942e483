// ExecutionPlanStore: the plans of one device, shared by all its streams (burn's
// ExecutionPlanStore). Ids are dense and stable; plans and their triggers are append-only,
// because policies keep plan ids and trigger indices across updates.
//
// Threading: used under the device server's lock.
#pragma once

#include <vector>

#include "engine/stream/plan.h"
#include "engine/stream/plan_backing.h"
#include "engine/stream/plan_index.h"

namespace ember {

class ExecutionPlanStore {
 public:
  // Valid until the next Add or Load (ExecutionPlanIndex::Find).
  std::span<const PlanId> PlansStartingWith(const OperationIr& op) const { return index_.Find(op); }
  // REQUIRES: hash == HashOp(op).
  std::span<const PlanId> PlansStartingWith(const OperationIr& op, uint64_t hash) const {
    return index_.Find(op, hash);
  }
  // The plans whose first op has kind `kind`, in insertion order: the candidates for
  // explaining a miss (Note [Explaining a miss]). Valid until the next Add or Load.
  std::span<const PlanId> PlansWithFirstKind(OpKind kind) const;
  // REQUIRES: !plan.operations.empty(). Reported to the backing, if any, with the time the
  // search spent finding it.
  PlanId Add(ExecutionPlan plan, double explore_ms = 0);

  // Durable storage behind this store (not owned; outlives it), or null.
  void SetBacking(PlanBacking* backing) { backing_ = backing; }
  PlanBacking* backing() const { return backing_; }
  // Before the policy looks up plans starting with `first`: the first time `first` is seen,
  // the backing's stored plans for it join the store; later, when the backing's generation has
  // moved since (a sibling process published), the backing may add plans it has learned of.
  void LoadStartingWith(const OperationIr& first);
  // REQUIRES: hash == HashOp(first).
  void LoadStartingWith(const OperationIr& first, uint64_t hash);
  // A cache hit on plan `id` (for the backing's statistics).
  void RecordHit(PlanId id);
  // REQUIRES: id < size().
  const ExecutionPlan& Get(PlanId id) const;
  ExecutionPlan& GetMut(PlanId id);
  // Appends `trigger` unless an equal one is already there.
  void AddTrigger(PlanId id, ExecutionTrigger trigger);
  size_t size() const { return plans_.size(); }

 private:
  PlanId Insert(ExecutionPlan plan);

  std::vector<ExecutionPlan> plans_;
  ExecutionPlanIndex index_;
  // Indexed by OpKind's number (grown on demand).
  std::vector<std::vector<PlanId>> by_first_kind_;
  PlanBacking* backing_ = nullptr;
  // First ops already asked of the backing; each "id" indexes load_generations_, the backing's
  // generation when that first op was last asked.
  ExecutionPlanIndex loaded_;
  std::vector<uint64_t> load_generations_;
};

}  // namespace ember

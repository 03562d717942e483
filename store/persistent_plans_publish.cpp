// PersistentPlans' outgoing side: what this process finds goes to both tiers (the shared
// segment at once, the database behind, through the writer), and compiled kernels go with the
// plan whose first run compiled them (Note [Stored kernels], persistent_kernels.h).
#include "store/persistent_plans.h"

#include <utility>

#include "engine/ir/hash.h"
#include "store/codec/plan_codec.h"

namespace ember {
namespace {

TriggerRow EncodeTrigger(const ExecutionTrigger& trigger) {
  TriggerRow row{.kind = static_cast<int>(trigger.kind)};
  if (trigger.kind == ExecutionTrigger::Kind::kOnOperations) {
    row.ops_blob = EncodeOperations(trigger.operations);
  }
  return row;
}

}  // namespace

PublishItem PersistentPlans::ItemFor(const ExecutionPlan& plan) {
  PublishItem item;
  item.plan.first_op_hash = FirstOpHash(plan.operations);
  item.plan.plan_key = PlanKey(plan.operations);
  item.plan.ops_blob = EncodeOperations(plan.operations);
  item.plan.plan_blob = EncodeBlockOptimization(plan.optimization);
  item.plan.num_ops = static_cast<uint32_t>(plan.operations.size());
  item.plan.first_op_kind = static_cast<int>(plan.operations.front().kind);
  item.plan.found_dims = plan.found_dims;
  for (const ExecutionTrigger& trigger : plan.triggers) {
    item.triggers.push_back(EncodeTrigger(trigger));
  }
  return item;
}

void PersistentPlans::OnPlanAdded(PlanId id, const ExecutionPlan& plan, double explore_ms) {
  PublishItem item = ItemFor(plan);
  item.plan.explore_ms = explore_ms;
  known_.emplace(item.plan.plan_key, id);
  if (kernels_attached_) {
    PublishPending();  // (a plan that never ran: not expected, but never lost)
    pending_ = PendingPlan{.id = id, .item = std::move(item), .encoded = EncodePlan(plan)};
    return;
  }
  // Siblings see it now, before the write-behind below commits it.
  shm_.Publish(item.plan.first_op_hash, item.plan.plan_key, plan);
  shm_.Release(item.plan.first_op_hash);
  writer_->Publish(id, std::move(item));
}

void PersistentPlans::OnTriggerAdded(PlanId id, const ExecutionPlan& plan,
                                     const ExecutionTrigger& trigger) {
  // Another process's trigger, read with its plan: it publishes and writes its own.
  if (applying_others_) return;
  if (pending_.has_value() && pending_->id == id) {
    pending_->item.triggers.push_back(EncodeTrigger(trigger));
    pending_->encoded = EncodePlan(plan);
    return;
  }
  writer_->AppendTrigger(id, EncodeTrigger(trigger));
  // Siblings that load or refresh this plan get the trigger from its newer version.
  if (shm_.on()) shm_.Publish(FirstOpHash(plan.operations), PlanKey(plan.operations), plan);
}

void PersistentPlans::PublishPending() {
  if (!pending_.has_value()) return;
  PendingPlan pending = std::move(*pending_);
  pending_.reset();
  const uint64_t hash = pending.item.plan.first_op_hash;
  shm_.Publish(hash, pending.item.plan.plan_key, pending.encoded);
  shm_.Release(hash);
  writer_->Publish(pending.id, std::move(pending.item));
}

KernelStore* PersistentPlans::AttachKernels() {
  kernels_attached_ = true;
  return kernels_.get();
}

void PersistentPlans::OnPlanRunning(PlanId id) { running_ = id; }

void PersistentPlans::OnPlanRan(PlanId id) {
  running_.reset();
  if (pending_.has_value() && pending_->id == id) PublishPending();
}

void PersistentPlans::KeepKernel(NewKernel kernel) {
  if (running_.has_value() && pending_.has_value() && pending_->id == *running_) {
    pending_->item.kernels.push_back(std::move(kernel));
    return;
  }
  writer_->Kernel(running_, std::move(kernel));
}

void PersistentPlans::LinkKernel(const KernelBinaryKey& key) {
  // Only a plan in its first run gains links: a stored plan's were made when it was found.
  if (!running_.has_value() || !pending_.has_value() || pending_->id != *running_) return;
  if (!pending_->linked.insert(key.hash).second) return;
  pending_->item.used_kernels.push_back(KernelRowKey(key));
}

}  // namespace ember

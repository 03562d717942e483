// PersistentPlans' one admit path: the plans a tier offers for a first op (the shared
// segment's entries, the database's rows) join the in-memory store here, and only here. Each
// plan is decoded and checked the way its tier requires (a segment entry by
// SharedTierClient::Decode, a row by DecodeStoredPlan, which quarantines it when it fails), at
// most the bound of plans per first op join from both tiers together (Note [Plans per first
// op], persistent_plans.h), and a plan the store has already only brings the triggers others
// gave it since.
#include "store/persistent_plans.h"

#include <utility>

#include <fmt/format.h>

#include "engine/core/log.h"
#include "store/repository/plan_row_check.h"

namespace ember {

size_t PersistentPlans::AdmitShared(const OperationIr& first, uint64_t hash, const AddPlan& add,
                                    const AddTrigger* add_trigger) {
  std::vector<SharedPlanTier::Entry> entries;
  if (!shm_.Lookup(hash, &entries)) return 0;
  const size_t added =
      Admit(first, hash, {.tier = Tier::kShm, .entries = entries}, add, add_trigger);
  if (added > 0) {
    LogFusion(LogLevel::kMedium, [&] {
      return fmt::format("[store] loaded {} plan(s) for first-op 0x{:016x} from shared memory",
                         added, hash);
    });
  }
  return added;
}

size_t PersistentPlans::AdmitStored(const OperationIr& first, uint64_t hash,
                                    const LoadedPlans& loaded, const AddPlan& add,
                                    const AddTrigger* add_trigger) {
  quarantined_.fetch_add(loaded.quarantined);
  return Admit(first, hash, {.tier = Tier::kDatabase, .rows = loaded.plans}, add, add_trigger);
}

size_t PersistentPlans::Admit(const OperationIr& first, uint64_t hash, const Offered& offered,
                              const AddPlan& add, const AddTrigger* add_trigger) {
  size_t added = 0;
  size_t cut = 0;
  size_t& held = loaded_per_first_op_[hash];
  for (size_t i = 0; i < offered.size(); ++i) {
    const auto known = known_.find(offered.key(i));
    // Note [Plans per first op]: past the bound, a new plan is not even decoded.
    if (known == known_.end() && held >= max_plans_per_first_op_) {
      ++cut;
      continue;
    }
    ExecutionPlan plan;
    if (!Decode(offered, i, first, hash, &plan)) continue;
    // A known key is a newer version of a plan the store has (a segment's, where an incomplete
    // segment had it too, or a second look): on a refresh, the triggers others appended since.
    if (known != known_.end()) {
      if (add_trigger != nullptr) AddOthersTriggers(known->second, plan, *add_trigger);
      continue;
    }
    const PlanId id = Join(offered, i, hash, std::move(plan), add);
    known_.emplace(offered.key(i), id);
    loaded_.fetch_add(1);
    ++held;
    ++added;
  }
  if (cut > 0) SayCut(hash, offered.tier == Tier::kShm ? shm_.where() : db_.where());
  return added;
}

bool PersistentPlans::Decode(const Offered& offered, size_t i, const OperationIr& first,
                             uint64_t hash, ExecutionPlan* plan) {
  if (offered.tier == Tier::kShm)
    return SharedTierClient::Decode(offered.entries[i], first, hash, plan);
  const StoredPlan& row = offered.rows[i];
  if (Status s = DecodeStoredPlan(row, plan); !s.ok()) {
    quarantined_.fetch_add(1);
    LogFusion(LogLevel::kBasic, [&] {
      return fmt::format("[store] plan row {} is unusable ({}); quarantined", row.id, s.ToString());
    });
    writer_->Quarantine(row.id, s.ToString());
    return false;
  }
  // Another first op with the same hash: not this one's plan.
  return plan->operations.front() == first;
}

PlanId PersistentPlans::Join(const Offered& offered, size_t i, uint64_t hash, ExecutionPlan plan,
                             const AddPlan& add) {
  if (offered.tier == Tier::kShm) {
    // A sibling's plan: the writer finds the row its finder wrote (binding it) or writes it, if
    // the finder died before its write-behind committed.
    PublishItem item = ItemFor(plan);
    const PlanId id = add(std::move(plan));
    writer_->Adopt(id, std::move(item));
    SetTier(id, Tier::kShm);
    loaded_from_shm_.fetch_add(1);
    return id;
  }
  // A row: siblings of this host get it from the segment, and the writer binds the plan to it.
  shm_.Publish(hash, offered.rows[i].plan_key, plan);
  const PlanId id = add(std::move(plan));
  writer_->Bind(id, offered.rows[i].id);
  SetTier(id, Tier::kDatabase);
  return id;
}

void PersistentPlans::AddOthersTriggers(PlanId id, ExecutionPlan& plan,
                                        const AddTrigger& add_trigger) {
  applying_others_ = true;
  for (ExecutionTrigger& trigger : plan.triggers) add_trigger(id, std::move(trigger));
  applying_others_ = false;
}

void PersistentPlans::SayCut(uint64_t hash, std::string_view where) {
  if (!cut_said_.insert(hash).second) return;
  LogFusion(LogLevel::kBasic, [&] {
    return fmt::format(
        "[store] first-op 0x{:016x} has more than {} stored plans; the rest, from {}, were left "
        "out, unread (Note [Plans per first op]: a workload whose shapes change every step; "
        "`ember-plans explain` tells)",
        hash, max_plans_per_first_op_, where);
  });
}

void PersistentPlans::SetTier(PlanId id, Tier tier) {
  if (tier_of_plan_.size() <= id) tier_of_plan_.resize(id + 1, Tier::kExplored);
  tier_of_plan_[id] = tier;
}

std::function<bool(const Hash128&)> PersistentPlans::Known() const {
  return [this](const Hash128& key) { return known_.contains(key); };
}

}  // namespace ember

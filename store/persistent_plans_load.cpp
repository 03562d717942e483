// PersistentPlans' stored rows joining the in-memory store: each row's keys checked against its
// ops (quarantined when they are not), and at most the bound of plans per first op (Note [Plans
// per first op], persistent_plans.h). The database's and the server's rows come this way; the
// segment's entries through LoadShared (persistent_plans.cpp), under the same bound.
#include "store/persistent_plans.h"

#include <fmt/format.h>

#include "engine/core/log.h"
#include "store/repository/plan_row_check.h"

namespace ember {

size_t PersistentPlans::AddStoredPlans(const OperationIr& first, uint64_t hash,
                                       const LoadedPlans& loaded, const AddPlan& add,
                                       const AddTrigger* add_trigger) {
  quarantined_.fetch_add(loaded.quarantined);
  size_t added = 0;
  size_t cut = 0;
  size_t& held = loaded_per_first_op_[hash];
  for (const StoredPlan& row : loaded.plans) {
    const auto known = known_.find(row.plan_key);
    // Note [Plans per first op]: past the bound, a new row is not even decoded.
    if (known == known_.end() && held >= max_plans_per_first_op_) {
      ++cut;
      continue;
    }
    ExecutionPlan plan;
    if (Status s = DecodeStoredPlan(row, &plan); !s.ok()) {
      quarantined_.fetch_add(1);
      LogFusion(LogLevel::kBasic, [&] {
        return fmt::format("[store] plan row {} is unusable ({}); quarantined", row.id,
                           s.ToString());
      });
      writer_->Quarantine(row.id, s.ToString());
      continue;
    }
    // Another first op with the same hash: not this one's plan.
    if (!(plan.operations.front() == first)) continue;
    // A known key came from the segment (an incomplete one, or this is a second look): on a
    // refresh, it may have gained triggers another host appended (already stored: the
    // store's AddTrigger must not write them again).
    if (known != known_.end()) {
      if (add_trigger != nullptr) AddOthersTriggers(known->second, plan, *add_trigger);
      continue;
    }
    if (tier_ != nullptr) PublishShared(hash, row.plan_key, plan);
    const PlanId id = add(std::move(plan));
    writer_->Bind(id, row.id);
    SetTier(id, Tier::kDatabase);
    known_.emplace(row.plan_key, id);
    loaded_.fetch_add(1);
    ++held;
    ++added;
  }
  if (cut > 0) SayCut(hash, reader_ != nullptr ? reader_->location() : "the database");
  return added;
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

}  // namespace ember

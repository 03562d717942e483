#include "store/exploration_budget.h"

#include <utility>

namespace ember {

Status ExplorationBudget::Open(PlanRepository& db, EnvironmentRowId environment,
                               const std::string& workload, std::optional<size_t> max_explorations,
                               std::string* unwritable, ExplorationBudget* out) {
  WorkloadRow row;
  bool found = true;
  if (unwritable->empty()) {
    if (Status s = db.GetOrCreateWorkload(environment, workload, &row); !s.ok()) {
      *unwritable = s.ToString();
    }
  }
  if (!unwritable->empty()) {
    if (Status s = db.FindWorkload(environment, workload, &found, &row); !s.ok()) return s;
  }
  if (found) {
    out->workload_ = row.id;
    out->explorations_at_open_ = row.explorations;
    out->cap_ = row.max_explorations;
  }
  if (max_explorations) out->configured_cap_ = static_cast<int64_t>(*max_explorations);
  if (!out->cap_ && max_explorations) out->cap_ = static_cast<int64_t>(*max_explorations);
  return Status::Ok();
}

bool ExplorationBudget::Allowed(DatabaseReader& db) {
  if (!cap_) return true;
  if (reserved_) return true;  // granted before, and not spent yet
  // (A workload without a row has nothing to reserve in.)
  if (PlanRepository* writable = workload_ != 0 ? db.WritableNow() : nullptr; writable != nullptr) {
    bool granted = false;
    int64_t count = 0;
    if (writable->TryReserveExploration(workload_, configured_cap_, &granted, &count).ok()) {
      reserved_ = granted;
      return granted;
    }
  }
  return explorations_at_open_ + explored_here_ < *cap_;
}

bool ExplorationBudget::Spend() {
  ++explored_here_;
  return std::exchange(reserved_, false);
}

}  // namespace ember

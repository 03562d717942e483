#include "engine/stream/plan_index.h"

#include "engine/ir/hash.h"

namespace ember {

std::span<const PlanId> ExecutionPlanIndex::Find(const OperationIr& first) const {
  return Find(first, HashOp(first));
}

std::span<const PlanId> ExecutionPlanIndex::Find(const OperationIr& first, uint64_t hash) const {
  auto it = mapping_.find(hash);
  if (it == mapping_.end()) return {};
  for (const auto& [op, starter] : it->second) {
    if (op == first) return starters_[starter];
  }
  return {};
}

void ExecutionPlanIndex::Insert(const OperationIr& first, PlanId id) {
  std::vector<std::pair<OperationIr, size_t>>& entries = mapping_[HashOp(first)];
  for (const auto& [op, starter] : entries) {
    if (op == first) {
      starters_[starter].push_back(id);
      return;
    }
  }
  entries.emplace_back(first, starters_.size());
  starters_.push_back({id});
}

}  // namespace ember

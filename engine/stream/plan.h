// ExecutionPlan and ExecutionTrigger: a cached decision (burn's ExecutionPlan).
//
// A plan holds the relative ops it covers (a prefix of the segment it was found on), the
// strategy that executes them, and its triggers — any one of which lets the plan fire:
//   OnOperations(ops): in Lazy mode, once exactly these relative ops follow the plan's ops
//       (relative forms in the frame of the plan's head, compared with ops relativized in
//       that same frame);
//   Always: as soon as the plan's ops are matched (the exploration consumed the whole segment);
//   OnSync: recorded for plans found or hit at a sync; never consulted to decide (a Sync
//       action ignores triggers: Policy, engine/stream/policy.h).
// Triggers are append-only and deduplicated: the policy refers to them by index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/ir/operation_ir.h"
#include "engine/search/strategy.h"

namespace ember {

// Dense index into one device's plan store, in insertion order; plans are never removed.
using PlanId = size_t;

struct ExecutionTrigger {
  // Stored numbers (plan database): never renumber.
  enum class Kind : uint8_t { kOnOperations = 0, kOnSync = 1, kAlways = 2 };

  Kind kind = Kind::kAlways;
  std::vector<OperationIr> operations;  // kOnOperations only

  static ExecutionTrigger OnOperations(std::vector<OperationIr> ops) {
    return {Kind::kOnOperations, std::move(ops)};
  }
  static ExecutionTrigger OnSync() { return {Kind::kOnSync, {}}; }
  static ExecutionTrigger Always() { return {Kind::kAlways, {}}; }

  bool operator==(const ExecutionTrigger&) const = default;
};

struct ExecutionPlan {
  std::vector<OperationIr> operations;  // relative
  std::vector<ExecutionTrigger> triggers;
  BlockOptimization optimization;
  // The real dim of each relative shape id in the segment the plan was found on (index 0
  // holds 1), for explaining a miss ("the stored plan has [1,1] from 64×64": Note [Explaining
  // a miss], engine/stream/miss_explanation.h). Not part of the plan's identity; may be empty
  // (plans stored before it was kept, plans from the shared-memory tier).
  std::vector<int64_t> found_dims;
};

}  // namespace ember

// Policy: decides, for one stream, whether to execute a cached plan, wait, or explore (burn's
// Policy). It sees the stream's relative ops one at a time (Update) and is asked for an Action
// about the current segment.
//
//   candidates: plans whose ops matched so far, seeded only at the queue head (the first op
//       after a reset) from the plans starting with that op;
//   availables: plans fully matched at the head, each with validators for its triggers;
//   found: a plan whose trigger fired (an OnOperations trigger fully matched, or Always).
//
// Action: Execute(found) when its size fits the segment; otherwise Lazy defers while a
// candidate or a trigger is still matching (or an available plan is exactly the segment:
// waiting for its trigger ops) and explores otherwise; Sync executes an available plan (or a
// candidate) whose size equals the segment, ignoring triggers, and explores otherwise.
//
// Threading: one per stream; the store is the device's, read under the server's lock.
#pragma once

#include <optional>
#include <span>
#include <utility>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "engine/stream/execution_mode.h"
#include "engine/stream/plan_store.h"
#include "engine/stream/validator.h"

namespace ember {

struct Action {
  enum class Kind { kExplore, kDefer, kExecute };
  Kind kind = Kind::kExplore;
  PlanId plan = 0;  // kExecute

  static Action Explore() { return {Kind::kExplore, 0}; }
  static Action Defer() { return {Kind::kDefer, 0}; }
  static Action Execute(PlanId id) { return {Kind::kExecute, id}; }
  bool operator==(const Action&) const = default;
};

class Policy {
 public:
  // Analyzes the next op of the segment (called once per op, in order, after a reset).
  // `first_hash`: HashOp(op), when the caller already has it (used when op starts the segment).
  void Update(const ExecutionPlanStore& store, const OperationIr& op,
              std::optional<uint64_t> first_hash = std::nullopt);
  // REQUIRES: ops.size() <= the number of ops analyzed since the reset.
  Action GetAction(const ExecutionPlanStore& store, std::span<const OperationIr> ops,
                   ExecutionMode mode) const;
  void Reset();

  size_t num_operations() const { return num_operations_; }

 private:
  struct Available {
    PlanId id;
    size_t size;
    // Inline: a plan has one or two triggers nearly always, and an Available is built at every
    // cache hit (issue 41: it was one of the hit path's last allocations per segment).
    boost::container::small_vector<TriggerValidator, 2> triggers;
  };

  void UpdateCandidates(const ExecutionPlanStore& store, const OperationIr& op);
  void CheckCandidates(const ExecutionPlanStore& store);
  void UpdateAvailables(const ExecutionPlanStore& store, const OperationIr& op);
  void CheckAvailables();
  Action LazyAction(std::span<const OperationIr> ops) const;
  Action SyncAction(const ExecutionPlanStore& store, std::span<const OperationIr> ops) const;

  std::vector<OperationsValidator> candidates_;
  std::vector<Available> availables_;
  std::optional<std::pair<PlanId, size_t>> found_;
  size_t num_operations_ = 0;
};

}  // namespace ember

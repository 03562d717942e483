// Validators: incremental matching of queued relative ops against a stored op list (burn's
// OperationsValidator / TriggerValidator).
//
// An OperationsValidator starts Validating; each Update compares the op at `position` of the
// expected list: a mismatch or a missing position invalidates it, and matching the last
// expected op makes it Found{size}. Found and Invalidated are sticky. Plans are validated
// with the policy's op count as position; OnOperations triggers with their own counter, which
// starts one op late: the op that completed the plan is not part of its trigger (burn's
// Policy::update_availables, burn-fusion's stream/execution/policy.rs).
#pragma once

#include <cstddef>
#include <optional>
#include <span>

#include "engine/ir/operation_ir.h"

namespace ember {

struct OperationsValidator {
  enum class State { kValidating, kFound, kInvalidated };

  size_t id = 0;  // plan id, or trigger index for a trigger's validator
  State state = State::kValidating;
  size_t found_size = 0;  // when kFound

  // `expected`: the op list this validator matches (a plan's ops or a trigger's ops).
  void Update(const OperationIr& added, size_t position, std::span<const OperationIr> expected);
};

struct TriggerValidator {
  enum class Kind { kOnOperations, kAlways, kOnSync };

  Kind kind = Kind::kAlways;
  OperationsValidator matching;       // kOnOperations: id = trigger index
  std::optional<size_t> num_checked;  // kOnOperations: nullopt until the plan is complete
};

}  // namespace ember

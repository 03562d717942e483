// ExecutionPlanIndex: plans by their first relative op (burn's ExecutionPlanIndex).
//
// The key is HashOp (XXH3-64 of the op's canonical bytes, engine/ir/hash.h) of the first op;
// colliding ops get separate entries, and Find confirms equality on the op itself, never on
// the hash alone (an EMBER_HASH_ZERO build puts every op on one key and must still work).
// Ids come back in insertion order. The index only narrows candidates; the policy's
// validators match the rest of a plan op by op.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/ir/operation_ir.h"
#include "engine/stream/plan.h"

namespace ember {

class ExecutionPlanIndex {
 public:
  // The plans whose first op equals `first`, in insertion order (empty if none). The view is
  // valid until the next Insert; it allocates nothing (every segment asks once).
  std::span<const PlanId> Find(const OperationIr& first) const;
  // The same, with `hash` == HashOp(first) already computed (the processor hashes a segment's
  // first op once for the database lookup and the policy, issue 41).
  std::span<const PlanId> Find(const OperationIr& first, uint64_t hash) const;
  void Insert(const OperationIr& first, PlanId id);

 private:
  // key -> (first op, index into starters_) for each distinct first op with that key.
  std::unordered_map<uint64_t, std::vector<std::pair<OperationIr, size_t>>> mapping_;
  std::vector<std::vector<PlanId>> starters_;
};

}  // namespace ember

// StreamSegment: what a Processor works on (burn's StreamSegment): the stream's queued relative
// ops, and the two ways to execute a prefix of them. Implemented over a real OperationQueue by
// MultiStream, and by a recording fake in the processor tests.
#pragma once

#include <span>

#include "engine/ir/operation_ir.h"
#include "engine/search/strategy.h"
#include "engine/stream/plan_store.h"

namespace ember {

class StreamSegment {
 public:
  virtual ~StreamSegment() = default;
  // The queued ops in relative form, head first.
  virtual std::span<const OperationIr> operations() const = 0;
  // The real dim of each relative shape id in operations() (index 0 holds 1); empty when the
  // segment does not know them (a fake).
  virtual std::span<const int64_t> dims() const { return {}; }
  // Executes the stored plan `id` over the head of the segment and drains what it covered.
  virtual void Execute(PlanId id, ExecutionPlanStore& store) = 0;
  // Executes a one-off optimization that is not stored (the exploration cap was reached).
  virtual void ExecuteUnfused(BlockOptimization optimization) = 0;
};

}  // namespace ember

// OperationQueue: the ops one stream has queued and not yet executed (burn's OperationQueue).
//
// Parallel vectors indexed by queue position: `global` (ops as submitted: real ids, shapes,
// scalars, ranges), `relative` (their relative forms, all in one frame that starts at the
// queue head; Note [Relative form] in engine/ir/relative.h) and `shapes_assigned` (the number
// of relative shape ids assigned once op i was converted). After any execution the executed
// prefix is drained and every remaining op is converted again from the new head.
//
// `variables` is the latest status seen per tensor id; a stream whose variables become empty
// is removed by MultiStream. `deferred_frees` holds last-use frees received from other threads
// while pending ops still referenced the tensor (burn's deferred frees, flush_deferred in
// burn-fusion's stream/queue/base.rs); they run at the next boundary.
//
// Threading: owned by one Stream inside MultiStream; called under the device server's lock.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "engine/core/flat_map.h"
#include "engine/fuse/context.h"
#include "engine/fuse/ordered_execution.h"
#include "engine/ir/operation_ir.h"
#include "engine/ir/relative.h"
#include "engine/runtime/backend.h"
#include "engine/search/strategy.h"
#include "engine/stream/plan_store.h"

namespace ember {

// What a queue executed, for ember::GetStats (see OrderedExecution).
struct ExecutionCounters {
  uint64_t fused_executions = 0;
  uint64_t unfused_operations = 0;
  uint64_t launches = 0;
};

class OperationQueue {
 public:
  // Records the statuses of the op's nodes, converts it to the relative form and appends it.
  void Add(OperationIr global);

  const std::vector<OperationIr>& global() const { return global_; }
  const std::vector<OperationIr>& relative() const { return relative_; }
  const std::vector<size_t>& shapes_assigned() const { return shapes_assigned_; }
  const OperationConverter& converter() const { return converter_; }
  size_t size() const { return global_.size(); }
  bool empty() const { return global_.empty(); }
  const ExecutionCounters& counters() const { return counters_; }

  // Executes the stored plan `id` over the head of the queue, then drains what it covered.
  // A plan that names a relative shape id the plan's own ops never assigned runs its ops
  // unfused in submission order instead (as burn's OperationQueue::execute, burn-fusion's
  // stream/queue/execution.rs: matching ops does not prove the stored code fits this stream).
  void Execute(PlanId id, const ExecutionPlanStore& store, Backend& backend,
               HandleContainer& handles);
  // Executes `optimization` (positions relative to the queue head), then drains the ops it
  // covered. When an op fails (an exception from the backend or an optimization, or an input
  // whose producer failed), every op the optimization covers is drained, the ones after the
  // failure without running, and ember::Error ("<op> failed: <why>") is thrown; outputs that
  // were not computed never get a handle, so reading them reports the failure.
  void ExecuteOptimization(const BlockOptimization& optimization, Backend& backend,
                           HandleContainer& handles);
  // Runs the ops at the given queue positions one by one (an Operations strategy).
  // REQUIRES: `ordering` is a permutation of 0..ordering.size()-1 (the executed positions
  // form a prefix, burn's OrderedExecution::finish).
  void ExecuteUnfused(std::span<const size_t> ordering, Backend& backend, HandleContainer& handles);

  // Whether any pending op references tensor `id` (scans the global ops' nodes).
  bool ReferencesTensor(TensorId id) const;

  FlatMap<TensorId, TensorStatus>& variables() { return variables_; }
  const FlatMap<TensorId, TensorStatus>& variables() const { return variables_; }

  void DeferFree(TensorIr tensor) { deferred_frees_.push_back(std::move(tensor)); }
  const std::vector<TensorIr>& deferred_frees() const { return deferred_frees_; }
  // Frees each deferred tensor no pending op references; keeps the others.
  void FlushDeferred(HandleContainer& handles);

 private:
  // Bookkeeping after the first `count` ops executed: frees last uses, drops them from the
  // queue, re-relativizes the rest, flushes deferred frees.
  void Drain(size_t count, HandleContainer& handles);
  void ResetRelative();
  // Appends the relative form of `global` to relative_, in storage from spare_relative_.
  void AppendRelative(const OperationIr& global);
  // Walks the strategy tree, running its leaves in order.
  void RunStrategy(const ExecutionStrategy& strategy, OrderedExecution& execution, Context& context,
                   HandleContainer& handles);

  std::vector<OperationIr> global_;
  std::vector<OperationIr> relative_;
  // Relative ops no longer in the queue, kept for their lists' capacity: converting the queue
  // again after every execution then allocates nothing in the steady state.
  std::vector<OperationIr> spare_relative_;
  std::vector<size_t> shapes_assigned_;
  OperationConverter converter_;
  FlatMap<TensorId, TensorStatus> variables_;
  std::vector<TensorIr> deferred_frees_;
  ExecutionCounters counters_;  // what this queue executed, for ember::GetStats
};

}  // namespace ember

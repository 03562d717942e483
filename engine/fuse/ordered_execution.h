// OrderedExecution: the queue's ops while one strategy runs (burn's OrderedExecution). It
// counts how many ops the strategy executed; the queue drains exactly that many from its front
// afterwards, so the covered positions must be a prefix (they are: the search re-searches
// every hole before the last covered position, engine/search/strategy.h).
//
// Unfused leaves run their positions in the given order; a fused leaf runs through its
// optimization, which may fall back to running one of its ops unfused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "engine/fuse/context.h"
#include "engine/fuse/optimization.h"
#include "engine/ir/operation_ir.h"
#include "engine/runtime/backend.h"

namespace ember {

class OrderedExecution {
 public:
  // `operations`: the queue's global ops, position 0 = queue head.
  OrderedExecution(std::span<const OperationIr> operations, Backend& backend)
      : operations_(operations), backend_(backend) {}

  // Runs operations[i] unfused for each i in `ordering`, in that order. Each op (here and in
  // the methods below) first checks that its inputs exist, and throws ember::Error when one
  // does not (its producer failed earlier).
  void ExecuteOperations(HandleContainer& handles, std::span<const size_t> ordering);
  // Runs `optimization` over `ordering`; counts optimization.len() ops as executed (the
  // optimization's length is authoritative, not the ordering's, as in burn's
  // OrderedExecution::execute_optimization, burn-fusion's stream/execution/ordering.rs).
  // REQUIRES: ordering.size() <= number of queued ops.
  void ExecuteOptimization(Optimization& optimization, Context& context,
                           std::span<const size_t> ordering);

  // For an optimization's fallback: the global op at ordering[i] of the running optimization,
  // and running it unfused.
  const OperationIr& OperationWithinOptimization(size_t i) const;
  void ExecuteWithinOptimization(size_t i, HandleContainer& handles);

  size_t num_executed() const { return num_executed_; }
  // For ember::GetStats: optimizations run fused, ops run one by one (an optimization's
  // fallback included, which then does not count as fused), and kernels launched (Init and
  // Drop launch nothing).
  uint64_t fused_executions() const { return fused_executions_; }
  uint64_t unfused_operations() const { return unfused_operations_; }
  uint64_t launches() const { return launches_; }
  // The op or optimization running (or that ran last): named when execution fails. Named
  // only then: formatting an op's name before every unfused run cost the op path a string.
  std::string running() const;
  Backend& backend() { return backend_; }

 private:
  std::span<const OperationIr> operations_;
  Backend& backend_;
  std::span<const size_t> ordering_;  // of the optimization being executed
  size_t num_executed_ = 0;
  uint64_t fused_executions_ = 0;
  uint64_t unfused_operations_ = 0;
  uint64_t launches_ = 0;
  const OperationIr* running_op_ = nullptr;  // into operations_; null: running_ names it
  std::string running_;

  void RunUnfused(const OperationIr& op, HandleContainer& handles);
};

}  // namespace ember

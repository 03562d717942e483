#include "engine/fuse/ordered_execution.h"

#include <algorithm>
#include <span>
#include <vector>

#include <boost/container/small_vector.hpp>

#include <ember/error.h>
#include <fmt/format.h>

#include "engine/core/check.h"

namespace ember {
namespace {

// Throws when `op` reads a tensor with no handle (its producer failed earlier), so that the op
// fails with an error instead of the backend aborting on a missing handle. `produced_here`:
// ids the same fused leaf produces before `op` runs.
void RequireInputs(const OperationIr& op, const HandleContainer& handles,
                   std::span<const TensorId> produced_here = {}) {
  if (op.kind == OpKind::kDrop) return;  // freeing a tensor that never came to be is fine
  for (const TensorIr& t : op.inputs) {
    if (handles.Has(t.id)) continue;
    if (std::find(produced_here.begin(), produced_here.end(), t.id) != produced_here.end()) {
      continue;
    }
    throw Error(fmt::format("its input t{} was never computed (an op before it failed)", t.id));
  }
}

}  // namespace

void OrderedExecution::ExecuteOperations(HandleContainer& handles,
                                         std::span<const size_t> ordering) {
  num_executed_ += ordering.size();
  for (size_t position : ordering) {
    EMBER_CHECK(position < operations_.size(), "position {} of {} queued ops", position,
                operations_.size());
    RunUnfused(operations_[position], handles);
  }
}

std::string OrderedExecution::running() const {
  return running_op_ != nullptr ? OpName(*running_op_) : running_;
}

void OrderedExecution::RunUnfused(const OperationIr& op, HandleContainer& handles) {
  running_op_ = &op;
  RequireInputs(op, handles);
  backend_.Execute(op, handles);
  ++unfused_operations_;
  if (op.kind != OpKind::kInit && op.kind != OpKind::kDrop) ++launches_;
}

void OrderedExecution::ExecuteOptimization(Optimization& optimization, Context& context,
                                           std::span<const size_t> ordering) {
  EMBER_CHECK(ordering.size() <= operations_.size(), "{} covers {} ops of {} queued",
              optimization.name(), ordering.size(), operations_.size());
  running_op_ = nullptr;
  running_ = std::string(optimization.name());
  // Inputs from outside the leaf must exist; those the leaf produces itself come later.
  // Inline up to a long chain's length: the check runs at every fused execution (issue 41).
  boost::container::small_vector<TensorId, 64> produced_here;
  for (size_t position : ordering) {
    EMBER_CHECK(position < operations_.size(), "position {} of {} queued ops", position,
                operations_.size());
    const OperationIr& op = operations_[position];
    RequireInputs(op, *context.handles, {produced_here.data(), produced_here.size()});
    for (const TensorIr& t : op.outputs) produced_here.push_back(t.id);
  }
  ordering_ = ordering;
  const uint64_t unfused_before = unfused_operations_;
  optimization.Execute(context, *this);
  ordering_ = {};
  num_executed_ += optimization.len();
  // An optimization that fell back to its ops one by one (Note [Fused fallback]) counted
  // those ops and their launches already.
  if (unfused_operations_ == unfused_before) {
    ++fused_executions_;
    ++launches_;
  }
}

const OperationIr& OrderedExecution::OperationWithinOptimization(size_t i) const {
  EMBER_CHECK(i < ordering_.size(), "op {} of an optimization over {}", i, ordering_.size());
  EMBER_CHECK(ordering_[i] < operations_.size(), "position {} of {} queued ops", ordering_[i],
              operations_.size());
  return operations_[ordering_[i]];
}

void OrderedExecution::ExecuteWithinOptimization(size_t i, HandleContainer& handles) {
  RunUnfused(OperationWithinOptimization(i), handles);
}

}  // namespace ember

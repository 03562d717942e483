#include "engine/fuse/ordered_execution.h"

#include "engine/core/check.h"

namespace ember {

void OrderedExecution::ExecuteOperations(HandleContainer& handles,
                                         std::span<const size_t> ordering) {
  num_executed_ += ordering.size();
  for (size_t position : ordering) {
    EMBER_CHECK(position < operations_.size(), "position {} of {} queued ops", position,
                operations_.size());
    RunUnfused(operations_[position], handles);
  }
}

void OrderedExecution::RunUnfused(const OperationIr& op, HandleContainer& handles) {
  backend_.Execute(op, handles);
  ++unfused_operations_;
  if (op.kind != OpKind::kInit && op.kind != OpKind::kDrop) ++launches_;
}

void OrderedExecution::ExecuteOptimization(Optimization& optimization, Context& context,
                                           std::span<const size_t> ordering) {
  EMBER_CHECK(ordering.size() <= operations_.size(), "{} covers {} ops of {} queued",
              optimization.name(), ordering.size(), operations_.size());
  ordering_ = ordering;
  optimization.Execute(context, *this);
  num_executed_ += optimization.len();
  ++fused_executions_;
  ++launches_;
}

const OperationIr& OrderedExecution::OperationWithinOptimization(size_t i) const {
  EMBER_CHECK(i < ordering_.size(), "op {} of an optimization over {}", i, ordering_.size());
  return operations_[ordering_[i]];
}

void OrderedExecution::ExecuteWithinOptimization(size_t i, HandleContainer& handles) {
  RunUnfused(OperationWithinOptimization(i), handles);
}

}  // namespace ember

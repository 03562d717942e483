#include "engine/fuse/ordered_execution.h"

#include "engine/core/check.h"

namespace ember {

void OrderedExecution::ExecuteOperations(HandleContainer& handles,
                                         std::span<const size_t> ordering) {
  num_executed_ += ordering.size();
  for (size_t position : ordering) {
    EMBER_CHECK(position < operations_.size(), "position {} of {} queued ops", position,
                operations_.size());
    backend_.Execute(operations_[position], handles);
  }
}

void OrderedExecution::ExecuteOptimization(Optimization& optimization, Context& context,
                                           std::span<const size_t> ordering) {
  EMBER_CHECK(ordering.size() <= operations_.size(), "{} covers {} ops of {} queued",
              optimization.name(), ordering.size(), operations_.size());
  ordering_ = ordering;
  optimization.Execute(context, *this);
  num_executed_ += optimization.len();
}

const OperationIr& OrderedExecution::OperationWithinOptimization(size_t i) const {
  EMBER_CHECK(i < ordering_.size(), "op {} of an optimization over {}", i, ordering_.size());
  return operations_[ordering_[i]];
}

void OrderedExecution::ExecuteWithinOptimization(size_t i, HandleContainer& handles) {
  backend_.Execute(OperationWithinOptimization(i), handles);
}

}  // namespace ember

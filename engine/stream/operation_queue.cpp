#include "engine/stream/operation_queue.h"

#include <ember/error.h>
#include <fmt/format.h>

#include "engine/core/check.h"
#include "engine/core/log.h"
#include "engine/stream/trace.h"

namespace ember {

void OperationQueue::Add(OperationIr global) {
  for (const TensorIr& t : global.inputs) variables_[t.id] = t.status;
  for (const TensorIr& t : global.outputs) variables_[t.id] = t.status;
  AppendRelative(global);
  global_.push_back(std::move(global));
}

void OperationQueue::AppendRelative(const OperationIr& global) {
  if (spare_relative_.empty()) {
    relative_.emplace_back();
  } else {
    relative_.push_back(std::move(spare_relative_.back()));
    spare_relative_.pop_back();
  }
  converter_.ToRelative(global, relative_.back());
  shapes_assigned_.push_back(converter_.NumRelativeShapes());
}

void OperationQueue::Execute(PlanId id, const ExecutionPlanStore& store, Backend& backend,
                             HandleContainer& handles) {
  const BlockOptimization& plan = store.Get(id).optimization;
  const size_t len = plan.ordering.size();
  // The bound is what the plan's own ops assigned, not the whole queue: ops queued behind the
  // plan (its trigger) would otherwise inflate it.
  const size_t assigned =
      len >= 1 && len - 1 < shapes_assigned_.size() ? shapes_assigned_[len - 1] : 1;
  const std::optional<size_t> needed = plan.strategy.MaxRelativeShapeId();
  if (needed && *needed >= assigned) {
    LogFusion(LogLevel::kMedium, [&] {
      return fmt::format(
          "[plan] #{} needs relative shape id {} but the stream assigned {}; running its {} "
          "operations unfused",
          id, *needed, assigned, len);
    });
    ExecuteOptimization(BlockOptimization::Unfused(len), backend, handles);
    return;
  }
  ExecuteOptimization(plan, backend, handles);
}

void OperationQueue::ExecuteUnfused(std::span<const size_t> ordering, Backend& backend,
                                    HandleContainer& handles) {
  for (size_t position : ordering) {
    EMBER_CHECK(position < ordering.size(), "position {} outside the executed prefix of {}",
                position, ordering.size());
  }
  std::vector<size_t> positions(ordering.begin(), ordering.end());
  ExecuteOptimization(BlockOptimization{ExecutionStrategy::Operations(positions), positions},
                      backend, handles);
}

void OperationQueue::ExecuteOptimization(const BlockOptimization& optimization, Backend& backend,
                                         HandleContainer& handles) {
  LogFusion(LogLevel::kFull, [&] { return FormatExecutionTable(optimization.strategy, global_); });
  EMBER_CHECK(optimization.ordering.size() <= global_.size(),
              "a plan covering {} ops on a queue of {}", optimization.ordering.size(),
              global_.size());
  Context context{converter_.tensors_relative2global(), converter_.shapes_relative2global(),
                  converter_.scalars(), converter_.ranges(), &handles};
  OrderedExecution execution(global_, backend);
  // Counted also when the strategy fails midway: what ran, ran.
  struct CountOnExit {
    const OrderedExecution& execution;
    ExecutionCounters& counters;
    ~CountOnExit() {
      counters.fused_executions += execution.fused_executions();
      counters.unfused_operations += execution.unfused_operations();
      counters.launches += execution.launches();
    }
  } count_on_exit{execution, counters_};
  // The failing op may already have consumed its last-use inputs, so nothing the plan covers
  // can run again: drain all of it to keep the queue consistent with the handles.
  try {
    RunStrategy(optimization.strategy, execution, context, handles);
  } catch (const std::exception& e) {
    const std::string running = execution.running();  // names a queued op: before Drain
    Drain(optimization.ordering.size(), handles);
    throw Error(fmt::format("ember: {} failed: {}", running, e.what()));
  } catch (...) {
    const std::string running = execution.running();
    Drain(optimization.ordering.size(), handles);
    throw Error(fmt::format("ember: {} failed with an unknown exception", running));
  }
  EMBER_CHECK(execution.num_executed() == optimization.ordering.size(),
              "the plan executed {} ops but covers {}", execution.num_executed(),
              optimization.ordering.size());
  // The seed's trace ends with the kernels the execution launched.
  LogFusion(LogLevel::kFull,
            [&] { return fmt::format("    {} launch(es)", execution.launches()); });
  Drain(execution.num_executed(), handles);
}

void OperationQueue::RunStrategy(const ExecutionStrategy& strategy, OrderedExecution& execution,
                                 Context& context, HandleContainer& handles) {
  switch (strategy.kind) {
    case ExecutionStrategy::Kind::kOptimization:
      execution.ExecuteOptimization(*strategy.optimization, context, strategy.ordering);
      return;
    case ExecutionStrategy::Kind::kOperations:
      for (const size_t& position : strategy.ordering) {
        EMBER_CHECK(position < global_.size(), "position {} of {} queued ops", position,
                    global_.size());
        execution.ExecuteOperations(handles, std::span<const size_t>(&position, 1));
      }
      return;
    case ExecutionStrategy::Kind::kComposed:
      for (const ExecutionStrategy& child : strategy.children) {
        RunStrategy(child, execution, context, handles);
      }
      return;
  }
}

bool OperationQueue::ReferencesTensor(TensorId id) const {
  for (const OperationIr& op : global_) {
    if (op.References(id)) return true;
  }
  return false;
}

void OperationQueue::FlushDeferred(HandleContainer& handles) {
  if (deferred_frees_.empty()) return;
  std::vector<TensorIr> deferred = std::move(deferred_frees_);
  deferred_frees_.clear();
  for (TensorIr& t : deferred) {
    if (ReferencesTensor(t.id)) {
      deferred_frees_.push_back(std::move(t));
    } else {
      variables_.erase(t.id);
      handles.Free(t);
    }
  }
}

void OperationQueue::Drain(size_t count, HandleContainer& handles) {
  for (size_t i = 0; i < count; ++i) {
    for (const std::vector<TensorIr>* nodes : {&global_[i].inputs, &global_[i].outputs}) {
      for (const TensorIr& t : *nodes) {
        if (t.status == TensorStatus::kReadWrite) variables_.erase(t.id);
        handles.Free(t);
      }
    }
  }
  global_.erase(global_.begin(), global_.begin() + static_cast<std::ptrdiff_t>(count));
  ResetRelative();
  FlushDeferred(handles);
}

void OperationQueue::ResetRelative() {
  // Bounded, so one very long segment does not keep its storage for the process's lifetime.
  constexpr size_t kMaxSpare = 4096;
  while (!relative_.empty()) {
    if (spare_relative_.size() < kMaxSpare) spare_relative_.push_back(std::move(relative_.back()));
    relative_.pop_back();
  }
  shapes_assigned_.clear();
  converter_.Clear();
  for (const OperationIr& op : global_) AppendRelative(op);
}

}  // namespace ember

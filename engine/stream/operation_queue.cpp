#include "engine/stream/operation_queue.h"

#include <ember/error.h>
#include <fmt/format.h>

#include "engine/core/check.h"

namespace ember {

void OperationQueue::Add(OperationIr global) {
  for (const TensorIr& t : global.inputs) variables_[t.id] = t.status;
  for (const TensorIr& t : global.outputs) variables_[t.id] = t.status;
  relative_.push_back(converter_.ToRelative(global));
  shapes_assigned_.push_back(converter_.NumRelativeShapes());
  global_.push_back(std::move(global));
}

void OperationQueue::ExecuteUnfused(std::span<const size_t> ordering, Backend& backend,
                                    HandleContainer& handles) {
  EMBER_CHECK(ordering.size() <= global_.size(), "ordering of {} ops on a queue of {}",
              ordering.size(), global_.size());
  size_t done = 0;
  try {
    for (size_t position : ordering) {
      EMBER_CHECK(position < ordering.size(), "position {} outside the executed prefix of {}",
                  position, ordering.size());
      RequireInputs(global_[position], handles);
      backend.Execute(global_[position], handles);
      ++done;
    }
  } catch (const std::exception& e) {
    // The failing op may already have taken its last-use inputs, so it can never run again:
    // drop it together with the ops that ran, keeping the queue consistent with the handles.
    // Its output never gets a handle; reading it reports the failure (DeviceServer::Read).
    for (size_t i = 0; i <= done; ++i) {
      EMBER_CHECK(ordering[i] == i, "a failed execution must be in queue order");
    }
    const std::string name = OpName(global_[done]);
    Drain(done + 1, handles);
    throw Error(fmt::format("ember: {} failed: {}", name, e.what()));
  }
  Drain(ordering.size(), handles);
}

void OperationQueue::RequireInputs(const OperationIr& op, const HandleContainer& handles) {
  if (op.kind == OpKind::kDrop) return;  // freeing a tensor that never came to be is fine
  for (const TensorIr& t : op.inputs) {
    if (!handles.Has(t.id)) {
      throw Error(fmt::format("its input t{} was never computed (an op before it failed)", t.id));
    }
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
  relative_.clear();
  shapes_assigned_.clear();
  converter_.Clear();
  for (const OperationIr& op : global_) {
    relative_.push_back(converter_.ToRelative(op));
    shapes_assigned_.push_back(converter_.NumRelativeShapes());
  }
}

}  // namespace ember

#include "engine/stream/multi_stream.h"

#include <string_view>

#include <ember/error.h>
#include <fmt/format.h>

#include "engine/core/log.h"

namespace ember {
namespace {

// A stored plan whose execution failed keeps matching its segment; if it holds fused code,
// that code may fail every time (a kernel that does not build or launch), so from now on the
// plan runs its ops unfused. A purely unfused plan is left alone: its failure came from an op.
void DemoteToUnfused(PlanId id, ExecutionPlanStore& store, std::string_view why) {
  ExecutionPlan& plan = store.GetMut(id);
  if (!plan.optimization.strategy.HasOptimization()) return;  // nothing fused to blame
  plan.optimization = BlockOptimization::Unfused(plan.optimization.ordering.size());
  LogFusion(LogLevel::kBasic, [&] {
    return fmt::format("[plan] #{} failed ({}); it runs unfused from now on", id, why);
  });
}

// The processor's view of a real queue: relative ops, and execution on the device.
class QueueSegment final : public StreamSegment {
 public:
  QueueSegment(OperationQueue& queue, Backend& backend, HandleContainer& handles)
      : queue_(queue), backend_(backend), handles_(handles) {}

  std::span<const OperationIr> operations() const override { return queue_.relative(); }
  std::span<const int64_t> dims() const override {
    return queue_.converter().shapes_relative2global();
  }
  void Execute(PlanId id, ExecutionPlanStore& store) override {
    try {
      queue_.Execute(id, store, backend_, handles_);
    } catch (const Error& e) {
      DemoteToUnfused(id, store, e.what());
      throw;
    }
  }
  void ExecuteUnfused(BlockOptimization optimization) override {
    queue_.ExecuteOptimization(optimization, backend_, handles_);
  }

 private:
  OperationQueue& queue_;
  Backend& backend_;
  HandleContainer& handles_;
};

}  // namespace

MultiStream::Stream& MultiStream::GetOrCreate(StreamId stream) {
  auto it = streams_.find(stream);
  if (it == streams_.end()) {
    it = streams_.emplace(stream, Stream{OperationQueue(), Processor(fusers_(), settings_)}).first;
  }
  return it->second;
}

void MultiStream::Process(StreamId id, Stream& stream, HandleContainer& handles,
                          ExecutionMode mode) {
  backend_.SetStream(id);  // what the segment runs is queued on this stream's device queue
  QueueSegment segment(stream.queue, backend_, handles);
  stream.processor.Process(segment, store_, mode);
}

void MultiStream::Register(StreamId stream, OperationIr op, HandleContainer& handles) {
  // Once a Drop is queued no live tensor holds the id, so it can no longer be a share source.
  if (op.kind == OpKind::kDrop) shared_sources_.erase(op.inputs[0].id);
  Stream& s = GetOrCreate(stream);
  s.queue.Add(std::move(op));
  Process(stream, s, handles, ExecutionMode::kLazy);
}

void MultiStream::Drain(StreamId stream, HandleContainer& handles) {
  auto it = streams_.find(stream);
  if (it == streams_.end()) return;
  Stream& s = it->second;
  Process(stream, s, handles, ExecutionMode::kSync);
  // A drain is a boundary even when the queue was already empty.
  s.queue.FlushDeferred(handles);
}

void MultiStream::Close(StreamId stream, HandleContainer& handles) {
  Drain(stream, handles);
  RemoveIfIdle(stream);
}

void MultiStream::TagSharedView(StreamId src_stream, TensorId src, TensorId dst,
                                HandleContainer& handles) {
  if (!shared_sources_.count(src) && !handles.Has(src)) {
    shared_sources_.insert(src);
    Drain(src_stream, handles);
  }
  if (const TensorHandle* handle = handles.Peek(src)) {
    TensorHandle alias = *handle;  // shares the buffer; each id frees its own reference
    handles.Register(dst, std::move(alias));
  }
}

ReadPlan MultiStream::PlanRead(StreamId stream, const TensorIr& tensor,
                               const HandleContainer& handles) const {
  if (!handles.Has(tensor.id)) return ReadPlan::kDrain;
  if (tensor.status != TensorStatus::kReadWrite) return ReadPlan::kDirect;
  auto it = streams_.find(stream);
  if (it != streams_.end() && it->second.queue.ReferencesTensor(tensor.id)) {
    return ReadPlan::kDeferFree;
  }
  return ReadPlan::kDirect;
}

void MultiStream::DeferFree(StreamId stream, TensorIr tensor) {
  auto it = streams_.find(stream);
  if (it != streams_.end()) it->second.queue.DeferFree(std::move(tensor));
}

void MultiStream::MarkRead(StreamId stream, const TensorIr& tensor) {
  if (tensor.status != TensorStatus::kReadWrite) return;
  auto it = streams_.find(stream);
  if (it == streams_.end()) return;
  it->second.queue.variables().erase(tensor.id);
  RemoveIfIdle(stream);
}

bool MultiStream::ForeignDrop(StreamId stream, const TensorIr& tensor, HandleContainer& handles) {
  if (!handles.Has(tensor.id)) return false;
  shared_sources_.erase(tensor.id);
  auto it = streams_.find(stream);
  if (it == streams_.end()) {
    handles.Free(tensor);
    return true;
  }
  OperationQueue& queue = it->second.queue;
  if (queue.ReferencesTensor(tensor.id)) {
    queue.DeferFree(tensor);
    return true;
  }
  queue.variables().erase(tensor.id);
  handles.Free(tensor);
  RemoveIfIdle(stream);
  return true;
}

const OperationQueue* MultiStream::queue(StreamId stream) const {
  auto it = streams_.find(stream);
  return it == streams_.end() ? nullptr : &it->second.queue;
}

void MultiStream::RemoveIfIdle(StreamId stream) {
  auto it = streams_.find(stream);
  if (it == streams_.end() || !it->second.queue.variables().empty()) return;
  retired_.Add(it->second.processor.counters());
  retired_misses_.Merge(it->second.processor.recent_misses());
  const ExecutionCounters& e = it->second.queue.counters();
  retired_execution_.fused_executions += e.fused_executions;
  retired_execution_.unfused_operations += e.unfused_operations;
  retired_execution_.launches += e.launches;
  streams_.erase(it);
  backend_.ReleaseStream(stream);
}

ExecutionCounters MultiStream::execution_counters() const {
  ExecutionCounters total = retired_execution_;
  for (const auto& [id, stream] : streams_) {
    total.fused_executions += stream.queue.counters().fused_executions;
    total.unfused_operations += stream.queue.counters().unfused_operations;
    total.launches += stream.queue.counters().launches;
  }
  return total;
}

std::vector<std::string> MultiStream::recent_misses() const {
  MissHistory all = retired_misses_;
  for (const auto& [id, stream] : streams_) all.Merge(stream.processor.recent_misses());
  return all.lines();
}

ProcessorCounters MultiStream::counters() const {
  ProcessorCounters total = retired_;
  for (const auto& [id, stream] : streams_) total.Add(stream.processor.counters());
  return total;
}

}  // namespace ember

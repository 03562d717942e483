#include "engine/api/device_server.h"

#include <atomic>

#include <ember/error.h>
#include <fmt/format.h>

#include "engine/core/check.h"
#include "engine/ir/builders.h"

namespace ember {

DeviceServer::DeviceServer(Device device, std::unique_ptr<Backend> backend, FuserFactory fusers,
                           SearchSettings settings, std::unique_ptr<PlanBacking> backing,
                           StartBreakdown started)
    : device_(device),
      backend_(std::move(backend)),
      backing_(std::move(backing)),
      started_(started),
      streams_(*backend_, std::move(fusers), settings) {
  streams_.SetPlanBacking(backing_.get());
}

DeviceServer::~DeviceServer() = default;

TensorId DeviceServer::NewTensorId() {
  static std::atomic<TensorId> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

void DeviceServer::Register(StreamId stream, OperationIr op) {
  std::lock_guard lock(mu_);
  streams_.Register(stream, std::move(op), handles_);
}

void DeviceServer::RegisterInit(StreamId stream, OperationIr init,
                                std::span<const std::byte> bytes) {
  std::lock_guard lock(mu_);
  const TensorIr& out = init.outputs[0];
  backend_->SetStream(stream);
  handles_.Register(out.id, backend_->FromHost(bytes, out.shape, out.dtype));
  streams_.Register(stream, std::move(init), handles_);
}

void DeviceServer::RegisterBorrowed(StreamId stream, OperationIr init, void* data, size_t bytes,
                                    std::shared_ptr<const void> owner, TensorHandle view) {
  std::lock_guard lock(mu_);
  backend_->SetStream(stream);
  view.buffer = backend_->Borrow(data, bytes, std::move(owner));
  const TensorIr& out = init.outputs[0];
  handles_.Register(out.id, std::move(view));
  streams_.Register(stream, std::move(init), handles_);
}

uintptr_t DeviceServer::NativeStream(StreamId stream) {
  std::lock_guard lock(mu_);
  backend_->SetStream(stream);
  return backend_->NativeStream();
}

void DeviceServer::ForeignDrop(StreamId stream, TensorIr tensor) {
  std::lock_guard lock(mu_);
  if (streams_.ForeignDrop(stream, tensor, handles_)) return;
  streams_.Drain(stream, handles_);
  streams_.Register(stream, ir::Drop(std::move(tensor)), handles_);
}

void DeviceServer::TagSharedView(StreamId src_stream, TensorId src, TensorId dst) {
  std::lock_guard lock(mu_);
  streams_.TagSharedView(src_stream, src, dst, handles_);
}

void DeviceServer::Drain(StreamId stream) {
  {
    std::lock_guard lock(mu_);
    streams_.Drain(stream, handles_);
    backend_->SetStream(stream);
    backend_->Synchronize();
    ReleaseIfIdle(stream);
  }
  // ember::Sync makes the plans found so far durable too in a file (not every hit counter: that
  // would be a database commit per step; on a server, nothing: PlanBacking::FlushForSync); the
  // writer needs no server lock.
  if (backing_ != nullptr) backing_->FlushForSync();
}

void DeviceServer::CloseStream(StreamId stream) {
  std::lock_guard lock(mu_);
  streams_.Drain(stream, handles_);
  backend_->SetStream(stream);  // the drain may have run another stream's segment
  backend_->Synchronize();
  streams_.Close(stream, handles_);
  ReleaseIfIdle(stream);
}

std::vector<std::byte> DeviceServer::Read(StreamId stream, const TensorIr& tensor) {
  std::lock_guard lock(mu_);
  TensorIr ir = tensor;
  switch (streams_.PlanRead(stream, ir, handles_)) {
    case ReadPlan::kDrain: streams_.Drain(stream, handles_); break;
    case ReadPlan::kDirect: break;
    case ReadPlan::kDeferFree:
      streams_.DeferFree(stream, ir);
      ir.status = TensorStatus::kReadOnly;
      break;
  }
  TensorHandle handle = ComputedHandle("ToVector", ir);
  backend_->SetStream(stream);  // the copy waits for the stream that wrote the tensor
  backend_->Synchronize();
  EMBER_CHECK(handle.shape == tensor.shape && handle.dtype == tensor.dtype,
              "t{}: the handle does not match the tensor", ir.id);
  std::vector<std::byte> out(static_cast<size_t>(handle.NumElements()) *
                             static_cast<size_t>(DTypeSize(handle.dtype)));
  backend_->ToHost(handle, out);
  streams_.MarkRead(stream, ir);
  ReleaseIfIdle(stream);
  return out;
}

TensorHandle DeviceServer::Export(StreamId stream, const TensorIr& tensor) {
  std::lock_guard lock(mu_);
  EMBER_CHECK(tensor.status == TensorStatus::kReadOnly, "t{}: an export is never a last use",
              tensor.id);
  if (streams_.PlanRead(stream, tensor, handles_) == ReadPlan::kDrain) {
    streams_.Drain(stream, handles_);
  }
  TensorHandle handle = ComputedHandle("ExportMemory", tensor);
  backend_->SetStream(stream);  // the consumer reads it after the stream that wrote it
  backend_->Synchronize();
  ReleaseIfIdle(stream);
  return handle;
}

TensorHandle DeviceServer::ComputedHandle(const char* op, const TensorIr& tensor) {
  if (!handles_.Has(tensor.id)) {
    throw Error(
        fmt::format("ember: {}: t{} was never computed: an op queued before it failed "
                    "(see the error that op raised)",
                    op, tensor.id));
  }
  return handles_.Get(tensor);
}

void DeviceServer::ReleaseIfIdle(StreamId stream) {
  // A thread that only reads or syncs has no queue, and may never close its stream.
  if (streams_.queue(stream) == nullptr) backend_->ReleaseStream(stream);
}

void DeviceServer::Seed(StreamId stream, uint64_t seed) {
  std::lock_guard lock(mu_);
  streams_.Drain(stream, handles_);
  backend_->Seed(seed);
}

DeviceServer::QueueSnapshot DeviceServer::Snapshot(StreamId stream) {
  std::lock_guard lock(mu_);
  QueueSnapshot snap;
  if (const OperationQueue* q = streams_.queue(stream)) {
    snap.global = q->global();
    snap.relative = q->relative();
  }
  return snap;
}

size_t DeviceServer::NumHandles() {
  std::lock_guard lock(mu_);
  return handles_.size();
}

size_t DeviceServer::NumStreams() {
  std::lock_guard lock(mu_);
  return streams_.num_streams();
}

}  // namespace ember

namespace ember {

namespace {

MissCauses ToMissCauses(const MissCounts& counts) {
  const auto of = [&](MissCause cause) { return counts[static_cast<size_t>(cause)]; };
  return {.no_candidate = of(MissCause::kNoCandidate),
          .op_kind = of(MissCause::kOpKind),
          .dtype = of(MissCause::kDType),
          .status = of(MissCause::kStatus),
          .shape = of(MissCause::kShape),
          .data_flow = of(MissCause::kDataFlow),
          .attribute = of(MissCause::kAttribute),
          .op_count = of(MissCause::kOpCount),
          .trigger = of(MissCause::kTrigger),
          .environment = of(MissCause::kEnvironment)};
}

}  // namespace

std::vector<std::string> DeviceServer::RecentMisses() {
  std::lock_guard lock(mu_);
  return streams_.recent_misses();
}

Stats DeviceServer::GetStats() {
  std::lock_guard lock(mu_);
  const ProcessorCounters processors = streams_.counters();
  Stats stats;
  stats.explorations = processors.explorations;
  stats.cache_hits = processors.cache_hits;
  stats.misses = ToMissCauses(processors.misses);
  stats.plans = streams_.store().size();
  const ExecutionCounters executed = streams_.execution_counters();
  stats.fused_executions = executed.fused_executions;
  stats.unfused_operations = executed.unfused_operations;
  stats.launches = executed.launches;
  const KernelCounters kernels = backend_->kernel_counters();
  stats.kernels_compiled = kernels.compiled;
  stats.compile_ms = kernels.compile_ms;
  stats.kernels_loaded_from_db = kernels.loaded_from_sqlite;
  stats.kernels_loaded_from_shm = kernels.loaded_from_shm;
  stats.kernels_rebuilt = kernels.rebuilt;
  stats.kernels_register_capped = kernels.register_capped;
  stats.launch_record_hits = kernels.record_hits;
  stats.launch_record_misses = kernels.record_misses;
  stats.launch_record_evictions = kernels.record_evictions;
  const GraphCounters& g = kernels.graphs;
#define EMBER_FIELD(f) stats.graphs.f = g.f;
  EMBER_GRAPH_STATS_FIELDS(EMBER_FIELD)
#undef EMBER_FIELD
  stats.start = started_;
  stats.start.kernel_load_ms = kernels.kernel_load_ms;
  stats.start.kernel_source_ms = kernels.kernel_source_ms;
  stats.start.libraries_ms = kernels.libraries_ms;
  stats.start.first_op_ms = kernels.first_op_ms;
  if (backing_ != nullptr) {
    const BackingCounters stored = backing_->counters();
    stats.plans_loaded_from_db = stored.plans_loaded - stored.plans_loaded_from_shm;
    stats.plans_loaded_from_shm = stored.plans_loaded_from_shm;
    stats.plans_loaded_on_notify = stored.plans_loaded_on_notify;
    stats.shm_publish_skipped = stored.shm_publish_skipped;
    stats.cache_hits_from_shm = stored.hits_from_shm;
    stats.cache_hits_from_db = stored.hits_from_db;
    stats.plans_published = stored.plans_published;
    stats.rows_quarantined = stored.rows_quarantined;
    stats.plan_load_ms = static_cast<double>(stored.load_ns) / 1e6;
  }
  return stats;
}

}  // namespace ember

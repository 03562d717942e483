// DeviceServer: the engine state of one device (burn's FusionServer): its backend, its handle
// container and its streams. Every public method takes the server's lock, so the streams,
// queues and handles are mutated by one thread at a time (burn serializes them on a server
// thread; a lock gives the same guarantee without a hop).
//
// Servers are created on first use of a device and live in the process-wide registry until
// ReleaseDevice; tensors hold only weak references, so a released device is detected.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include <ember/device.h>
#include <ember/stats.h>

#include "engine/runtime/backend.h"
#include "engine/stream/multi_stream.h"
#include "engine/stream/plan_backing.h"

namespace ember {

class DeviceServer {
 public:
  // `backing`: the plan database behind the device's plans, or null (memory only).
  DeviceServer(Device device, std::unique_ptr<Backend> backend, FuserFactory fusers,
               SearchSettings settings, std::unique_ptr<PlanBacking> backing = nullptr,
               StartBreakdown started = {});
  ~DeviceServer();

  Device device() const { return device_; }

  // A fresh process-wide tensor id (unique across devices, never reused).
  static TensorId NewTensorId();

  // Queues `op` on `stream`.
  void Register(StreamId stream, OperationIr op);
  // Copies `bytes` (row-major elements of init's output) to the device, registers the handle
  // for the output of `init` (an Init op), then queues `init`.
  void RegisterInit(StreamId stream, OperationIr init, std::span<const std::byte> bytes);
  // Registers a handle over memory that belongs to someone else (ember::ImportMemory) for the
  // output of `init`, then queues `init`: the backend's borrowed buffer over `bytes` bytes at
  // `data`, kept alive by `owner` (Backend::Borrow), seen through `view`'s shape, strides,
  // offset and dtype (its buffer is ignored). Throws ember::Error when the backend cannot
  // borrow memory.
  void RegisterBorrowed(StreamId stream, OperationIr init, void* data, size_t bytes,
                        std::shared_ptr<const void> owner, TensorHandle view);
  // The native queue of `stream`'s work on this device (Backend::NativeStream).
  uintptr_t NativeStream(StreamId stream);
  // A drop of `tensor` (home `stream`) from another thread (burn's register_foreign_drop).
  void ForeignDrop(StreamId stream, TensorIr tensor);
  void TagSharedView(StreamId src_stream, TensorId src, TensorId dst);
  // Runs everything `stream` has queued and waits for the device.
  void Drain(StreamId stream);
  // The thread of `stream` exits: runs what it left queued and forgets the stream if no tensor
  // of it is left.
  void CloseStream(StreamId stream);
  // Row-major bytes of `tensor` (home `stream`), draining first when needed. A ReadWrite read
  // is the tensor's last use. Throws ember::Error when the op that should have produced the
  // tensor failed.
  std::vector<std::byte> Read(StreamId stream, const TensorIr& tensor);
  // The handle of `tensor` (home `stream`, read as ReadOnly: it stays registered), draining
  // first when needed and waiting for the device: ember::ExportMemory. Throws ember::Error when
  // the op that should have produced the tensor failed.
  TensorHandle Export(StreamId stream, const TensorIr& tensor);
  // Releases a buffer that ExportMemory handed out, under the server's lock: a device buffer
  // goes back to an allocator that one caller at a time may use. The caller may already hold
  // the lock (mu_ is recursive for this): ember's own exported device memory, imported back,
  // has the export as its owner, which the backend releases inside a call it makes under the
  // lock (Note [Borrowed device memory], engine/runtime/cuda/borrowed_owners.h).
  void DropExported(std::shared_ptr<Buffer> buffer) {
    std::lock_guard lock(mu_);
    buffer.reset();
  }
  // Drains `stream`, then reseeds the device's random generator.
  void Seed(StreamId stream, uint64_t seed);

  // Inspection for tests: copies of a stream's global and relative ops.
  struct QueueSnapshot {
    std::vector<OperationIr> global;
    std::vector<OperationIr> relative;
  };
  QueueSnapshot Snapshot(StreamId stream);
  size_t NumHandles();
  size_t NumStreams();
  Stats GetStats();
  std::vector<std::string> RecentMisses();
  // Waits until the plans found so far are in the plan database (no-op without one); the
  // writer needs no server lock (ember::FlushPlans).
  void FlushPlans() {
    if (backing_ != nullptr) backing_->Flush();
  }
  // At exit: FlushPlans, and leave the database file self-contained (PlanBacking::Close).
  // Under the server's lock, like every other use of the backing: a thread still running ops
  // at exit finishes its op first, and later ones find the backing closed.
  void ClosePlans() {
    std::lock_guard lock(mu_);
    if (backing_ != nullptr) backing_->Close();
  }

 private:
  // After a call for `stream`: when the streams hold nothing of it, the backend may recycle
  // what it kept for it (Backend::ReleaseStream).
  void ReleaseIfIdle(StreamId stream);
  // The handle of `tensor`, which a read (`op`) needs; throws ember::Error when an op queued
  // before it failed and left it uncomputed. REQUIRES: mu_ held.
  TensorHandle ComputedHandle(const char* op, const TensorIr& tensor);

  const Device device_;
  // Recursive for DropExported only (see there); nothing else takes it twice.
  std::recursive_mutex mu_;
  std::unique_ptr<Backend> backend_;
  // Declared before streams_: the plan store keeps a pointer to it until it is destroyed.
  std::unique_ptr<PlanBacking> backing_;
  const StartBreakdown started_;  // what the registry measured; the backend adds the rest
  HandleContainer handles_;
  MultiStream streams_;
};

// The server of `device`, created on first use. Throws ember::Error when the device cannot be
// used (see Device::Cuda).
std::shared_ptr<DeviceServer> ServerFor(Device device);

namespace internal {
// Replaces the fusers of device servers created from now on (tests: e.g. a fuser that keeps
// ops queued). An empty function restores the backend's own list.
void SetFuserFactoryForTesting(FuserFactory factory);
}  // namespace internal

}  // namespace ember

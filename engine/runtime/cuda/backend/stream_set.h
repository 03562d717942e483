// StreamSet: the CUDA streams of one CUDA backend, one per ember stream (engine/stream/
// stream_id.h: one per thread that queues ops on the device). Two threads' programs then run
// on the GPU side by side, as they are independent on the host: burn's MultiStream gives each
// thread its own queue for the same reason (engine/stream/multi_stream.h). What crosses from
// one stream to another (a tensor shared between threads, a freed block reused) is ordered by
// events (CudaBuffer::Use, DeviceAllocator), never by waiting on the host.
//
// Streams are created on an ember stream's first use and kept for the backend's lifetime: when
// an ember stream is forgotten (its thread is gone and no tensor of it is left), its CUDA
// stream goes to an idle list and serves the next new ember stream. A program that starts and
// ends threads all day therefore holds as many CUDA streams as it ever had threads at once.
// Buffers may still name a recycled stream as their last one; that stays right, since the
// stream still exists and keeps its order.
//
// Threading: one caller at a time (the backend's lock).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "engine/runtime/cuda/cuda_stream.h"

namespace ember::cuda {

class StreamSet {
 public:
  explicit StreamSet(std::shared_ptr<CudaDevice> device) : device_(std::move(device)) {}

  // The CUDA stream of ember stream `id`: its own since its first use, else an idle one, else
  // a new one. The reference stays valid for the set's lifetime.
  CudaStream& Get(uint64_t id);
  // Ember stream `id` is forgotten: its CUDA stream becomes idle (queued work keeps running).
  void Release(uint64_t id);
  // Waits for every stream; throws CudaError when queued work failed.
  void SynchronizeAll() const;

  size_t streams() const { return all_.size(); }  // created so far
  size_t in_use() const { return by_id_.size(); }

 private:
  std::shared_ptr<CudaDevice> device_;
  std::vector<std::unique_ptr<CudaStream>> all_;
  std::unordered_map<uint64_t, CudaStream*> by_id_;
  std::vector<CudaStream*> idle_;
};

}  // namespace ember::cuda

// CudaStream: one CUDA stream of a device, owned. The CUDA backend has one per ember stream
// (README.md beside this file, "One stream per ember stream").
//
// The stream is non-blocking: it does not wait for the legacy default stream, so work that
// another library queues there does not serialize with ember's.
// Deferred launches: the backend may hold back kernel launches meant for a stream, to submit
// them together as a CUDA graph (Note [Launch windows], backend/launch_graphs.h). Whatever
// queues other work on the stream must come after them, so get() and Synchronize() first
// submit what is held back (PendingWork::Submit); raw() names the stream without doing so, for
// callers that only compare streams or keep them for bookkeeping (the allocator's last-user
// stream, CudaBuffer::Use) and for the holder itself.
//
// Threading: one user at a time, like the backend that owns it.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <memory>

#include "engine/runtime/cuda/cuda_device.h"

namespace ember::cuda {

// What a caller of get() is about to do with the stream: counted by the holder of deferred
// launches as what ended its window (GraphStats' window_ends_*).
enum class StreamWork : uint8_t {
  kOther,   // a copy, an upload, an event, a library call other than a matmul
  kMatmul,  // a cuBLASLt matmul
  kWait,    // the host is about to wait for the stream (a sync, a read)
};

// Launches held back for a stream (see above).
class PendingWork {
 public:
  virtual ~PendingWork() = default;
  // Submits everything held back for the stream, in order, because of `why`; afterwards the
  // stream has none.
  virtual void Submit(StreamWork why) = 0;
};

class CudaStream {
 public:
  explicit CudaStream(std::shared_ptr<CudaDevice> device);
  ~CudaStream();
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  // The stream, for queuing work on it: what is held back for it is submitted first.
  CUstream get(StreamWork why = StreamWork::kOther) const {
    if (pending_ != nullptr) pending_->Submit(why);
    return stream_;
  }
  // The stream, for comparing or remembering it; queues nothing.
  CUstream raw() const { return stream_; }
  // Launches are held back for the stream by `pending` (null: none are) until it submits them.
  void set_pending(PendingWork* pending) { pending_ = pending; }
  bool has_pending() const { return pending_ != nullptr; }
  const std::shared_ptr<CudaDevice>& device() const { return device_; }
  // Waits for everything queued so far; throws CudaError when queued work failed.
  void Synchronize() const;

 private:
  std::shared_ptr<CudaDevice> device_;
  CUstream stream_ = nullptr;
  PendingWork* pending_ = nullptr;
};

}  // namespace ember::cuda

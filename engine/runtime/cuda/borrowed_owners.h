// BorrowedOwners: the keepers of borrowed device memory (ember::ImportMemory of a PyTorch or
// CuPy tensor's memory) waiting for the device to finish with it, one list per allocator.
//
// Note [Borrowed device memory]
// A borrowed CudaBuffer wraps memory that stays its producer's, kept alive by an owner (a
// DLPack deleter, a Py_DECREF, a caller's shared_ptr). These rules follow:
//  1. ember never writes it: Buffer::borrowed() is true, and every in-place decision asks
//     cpu::MayWriteInPlace, which refuses borrowed buffers (as for host memory, Note
//     [Borrowed host memory] in engine/runtime/cpu/cpu_buffer.h).
//  2. The producer's writes come first: the memory is imported on the importing thread's
//     stream (ember::NativeStream), which the producer orders its work before (DLPack's
//     `__dlpack__(stream=...)`: PyTorch records an event on its stream and makes ember's wait
//     for it), so ember's kernels read it after the producer is done, with no host wait.
//  3. The owner goes back only after the device has finished with the memory. When the last
//     handle drops the buffer, kernels queued on its last stream may still read it, and
//     releasing the owner then could let the producer reuse the memory under them (PyTorch's
//     caching allocator hands a freed block to the next tensor at once). So the buffer gives
//     its owner to this list with the stream; an event recorded there marks the work queued
//     so far, and the owner is released once the event has completed: checked when the
//     backend starts an op or a trace and at every Synchronize (Collect), so an idle program
//     gives memory back at its next sync. While the stream's launches are held back for a
//     CUDA graph (HoldFrees, Note [Launch windows] in backend/launch_graphs.h) a kernel that
//     reads the memory may not be on the stream yet, so the event is recorded only when the
//     hold ends (Unhold).
//  4. Only completion or a lost context (LosesContext: nothing runs any more) releases an
//     owner. Any other error of the event's record or query (a CUDA graph that another thread
//     captures in global mode refuses them, for one) keeps the owner and tries again at the
//     next Collect: an owner kept too long costs memory, one released too early costs
//     correctness. When the backend goes, it synchronizes and destroys its streams
//     (StreamsGone): the owners waiting then, or given later (an export still held), go at
//     once.
// Owners are released outside the list's lock, by the backend in an op, a trace or a sync,
// under the device server's lock (never on a thread of the backend's own, such as cuBLASLt's
// warm-up, which must take no lock the op thread holds): as for host memory, an owner's
// deleter must not call ember (the Python module defers its releases, Note [Deferred
// releases] in engine/python/deferred_release.h). The one owner that does is ember's own:
// device memory ExportMemory handed out and ImportMemory borrowed back is kept by the export,
// whose release gives the buffer back under the server's lock; that lock is recursive so that
// a collect under it can do so (DeviceServer::DropExported).
//
// Threading: every method may be called from any thread (a mutex guards the list).
#pragma once

#include <cuda.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/runtime/cuda/cuda_device.h"

namespace ember::cuda {

class BorrowedOwners {
 public:
  explicit BorrowedOwners(std::shared_ptr<CudaDevice> device) : device_(std::move(device)) {}
  // Waits for the device's work on every waiting owner's stream, then releases them all.
  ~BorrowedOwners();
  BorrowedOwners(const BorrowedOwners&) = delete;
  BorrowedOwners& operator=(const BorrowedOwners&) = delete;

  // Keeps `owner` until the work queued on `stream` so far has finished (rule 3 above), or,
  // while `stream` is held, until Unhold(stream) and then that. Never throws (a destructor
  // calls it): when no event can be recorded, the owner waits for a later Collect's record.
  void Add(CUstream stream, std::shared_ptr<const void> owner) noexcept;
  // Launches meant for `stream` are held back (the allocator's HoldFrees) / are on it now
  // (ReleaseFrees): the owners added meanwhile wait for what is queued on it from then.
  void Hold(CUstream stream);
  void Unhold(CUstream stream) noexcept;
  // The backend's streams are synchronized and destroyed: every owner may go, now and later.
  void StreamsGone() noexcept;
  // Releases the owners whose work has finished; returns how many still wait. Never throws.
  size_t Collect() noexcept;

 private:
  struct Waiting {
    CUstream stream = nullptr;
    CUevent done = nullptr;  // null while held, or until a record succeeds
    bool held = false;
    std::shared_ptr<const void> owner;
  };
  // Records `w.done` on its stream when it has none and is not held; true when the owner may
  // go at once (the context is lost). REQUIRES: mutex_ held; the context is current.
  static bool TryRecord(Waiting& w) noexcept;
  // Whether `w`'s work has finished, or can no longer run. REQUIRES: mutex_ held; the
  // context is current.
  static bool Finished(Waiting& w) noexcept;
  // Moves the owners that may go into `out` (their caller releases them outside the lock).
  // REQUIRES: mutex_ held.
  void Sweep(std::vector<std::shared_ptr<const void>>& out) noexcept;

  std::shared_ptr<CudaDevice> device_;
  std::mutex mutex_;
  std::vector<Waiting> waiting_;        // Guarded by mutex_.
  std::vector<CUstream> held_streams_;  // Guarded by mutex_.
  bool streams_gone_ = false;           // Guarded by mutex_.
};

}  // namespace ember::cuda

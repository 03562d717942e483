// DeviceAllocator: a caching allocator of device memory (plain cuMemAlloc, never managed
// memory). cuMemAlloc and cuMemFree are slow (a cuMemFree waits for the whole device), and a
// tensor program allocates and drops the same sizes over and over, so freed blocks are kept
// per size class and handed out again.
//
// Size classes: a request of up to 1 MiB is rounded up to a multiple of 512 B, a larger one
// to a multiple of 2 MiB. Small tensors (scalars, bias vectors, per-row statistics) are many
// and 512 B keeps their waste under 512 B each; large ones round to the 2 MiB pages the driver
// maps them with anyway, so a freed block fits every request within the same 2 MiB. A block
// serves only requests of its own class (no splitting or merging): the waste is bounded by
// the rounding, and the bookkeeping is a map from class to free list. Every block is at least
// 256-byte aligned (cuMemAlloc's guarantee; classes are multiples of 512 B), and a zero-byte
// request gets a 512 B block so that every pointer is valid and distinct.
//
// Stream order: a block is handed out for one CUDA stream (the ember stream that allocates,
// README.md beside this file, "One stream per ember stream") and remembers in
// DeviceBlock::stream the last stream that used it; its owner updates that field before it
// frees the block. A block freed on the host may still be read by a kernel queued earlier on
// that stream. Reused on the same stream, it needs no wait: whatever gets it next is queued
// after that kernel. Reused on another stream, that stream first waits for the work queued so
// far on the block's last one (StreamOrder, an event and no host wait). Allocate prefers a
// block last used on the requesting stream, so the wait happens only when no such block is
// cached.
//
// Held frees: while launches meant for a stream are held back (CUDA graphs of launch windows,
// Note [Launch windows], backend/launch_graphs.h), a block freed with that stream as its last
// user may still be used by a held launch that is not on the stream yet, so it must not be
// handed to another stream (whose wait would come before the launch) or given back to the
// driver. HoldFrees(stream) keeps such blocks aside, still counted as in use, until
// ReleaseFrees(stream), which the holder calls once what it held is on the stream. The buffers
// themselves are not kept alive for this: their owners' use counts, which decide in-place
// outputs (engine/runtime/cpu/fused_outputs.h), are those of a run without graphs.
//
// Out of memory: the cache is emptied (every cached block freed) and cuMemAlloc retried once;
// if that fails too, Allocate throws ember::Error with the free and total memory, and the
// allocator stays usable.
//
// Poison: with EMBER_CUDA_POISON=1 in the environment, every block handed out (new or reused)
// is filled with 0xFF bytes on the stream, which reads as NaN in every float dtype and -1 in
// every integer one, so a test that reads an output nobody wrote sees it.
//
// Threading: every method may be called from any thread (a mutex guards the cache), since the
// last handle of a buffer may be dropped anywhere.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "engine/runtime/cuda/borrowed_owners.h"
#include "engine/runtime/cuda/cuda_device.h"
#include "engine/runtime/cuda/stream_order.h"

namespace ember::cuda {

inline constexpr size_t kDeviceAlignment = 256;

struct DeviceBlock {
  CUdeviceptr ptr = 0;
  size_t size = 0;            // The size class, >= the bytes requested.
  CUstream stream = nullptr;  // The last stream that used it (see "Stream order").
};

class DeviceAllocator {
 public:
  struct Stats {
    uint64_t bytes_in_use = 0;         // Class sizes of the blocks handed out and not freed.
    uint64_t bytes_cached = 0;         // Class sizes of the freed blocks kept for reuse.
    uint64_t allocations = 0;          // Allocate calls that returned a block.
    uint64_t cache_hits = 0;           // ... of which were served from the cache.
    uint64_t driver_allocations = 0;   // Successful cuMemAlloc calls.
    uint64_t retries = 0;              // Times the cache was emptied after an out-of-memory.
    uint64_t cross_stream_reuses = 0;  // Cache hits of a block last used on another stream.
    uint64_t held_frees = 0;           // Frees kept aside while their stream was held.
  };

  // `poison`: fill every block handed out with 0xFF (the default reads EMBER_CUDA_POISON).
  explicit DeviceAllocator(std::shared_ptr<CudaDevice> device, bool poison = PoisonRequested());
  // Frees the cache. Blocks still handed out are not freed (their owners hold a shared_ptr to
  // the allocator, so there are none unless a caller kept a raw block).
  ~DeviceAllocator();
  DeviceAllocator(const DeviceAllocator&) = delete;
  DeviceAllocator& operator=(const DeviceAllocator&) = delete;

  // A block of at least `bytes` bytes, for use on `stream` (its poison fill, in poison mode,
  // is queued there). Throws ember::Error when the device is out of memory even after emptying
  // the cache.
  DeviceBlock Allocate(size_t bytes, CUstream stream);
  // Returns `block` to the cache; block.stream is the last stream that used it. REQUIRES: it
  // came from this allocator and is not freed yet.
  void Free(const DeviceBlock& block);
  // Waits for the device, then frees every cached block (cuMemFree).
  void EmptyCache();
  // See "Held frees" above. One hold per stream; ReleaseFrees of a stream not held does
  // nothing.
  void HoldFrees(CUstream stream);
  void ReleaseFrees(CUstream stream);
  // The keeper of borrowed memory last used on `stream` (a borrowed CudaBuffer's, when the
  // buffer goes): released once the device has finished the work queued on `stream`, held
  // launches included (Note [Borrowed device memory], borrowed_owners.h).
  // Never throws (a destructor calls it).
  void ReleaseBorrowed(CUstream stream, std::shared_ptr<const void> owner) noexcept;
  // Releases the borrowed memory's keepers whose work has finished; returns how many still
  // wait. The backend calls it when it starts an op or a trace and after every Synchronize,
  // under the device server's lock (borrowed_owners.h says why there only).
  size_t CollectBorrowed() { return borrowed_.Collect(); }
  // The backend has synchronized and destroyed its streams: borrowed memory's keepers go at
  // once from now on (BorrowedOwners::StreamsGone).
  void StreamsGone() { borrowed_.StreamsGone(); }

  Stats stats() const;
  bool poison() const { return poison_; }
  const std::shared_ptr<CudaDevice>& device() const { return device_; }

  // The size class of a request (see above).
  static size_t SizeClass(size_t bytes);
  // Whether EMBER_CUDA_POISON=1 is set.
  static bool PoisonRequested();

 private:
  // cuMemAlloc of one class, emptying the cache and retrying once on out-of-memory.
  CUdeviceptr AllocateFromDriver(size_t size, size_t requested);
  void EmptyCacheLocked();

  // A cached block of class `size` for `stream`, or 0 when none is cached.
  CUdeviceptr TakeCached(size_t size, CUstream stream);

  std::shared_ptr<CudaDevice> device_;
  const bool poison_;
  mutable std::mutex mutex_;
  StreamOrder order_;                                           // Guarded by mutex_.
  std::unordered_map<size_t, std::vector<DeviceBlock>> cache_;  // Guarded by mutex_.
  std::vector<CUstream> held_streams_;                          // Guarded by mutex_.
  std::vector<DeviceBlock> held_;                               // Guarded by mutex_.
  Stats stats_;                                                 // Guarded by mutex_.
  BorrowedOwners borrowed_{device_};                            // Its own lock.
};

}  // namespace ember::cuda

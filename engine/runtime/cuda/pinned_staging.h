// PinnedStaging: host<->device copies through page-locked host memory. A copy from pageable
// memory makes the driver stage it through its own small pinned buffer, synchronously and
// at a fraction of the bus speed; staging through a pinned buffer of our own lets the copy run
// as one DMA per chunk, and with two chunks in flight the host-side memcpy of one overlaps the
// transfer of the other.
//
// The buffer is two slots of up to `chunk_bytes` each (32 MiB by default, so at most 64 MiB
// pinned per staging), grown on demand from 1 MiB: pinned memory is a scarce system resource,
// and a program that only moves a few small tensors should not lock 64 MiB. Each slot has an
// event recorded after its copy; the slot is written again only after that event, so a slot
// is never overwritten while a transfer still reads or writes it.
//
// If cuMemHostAlloc fails (the system's locked-memory limit), the staging warns once and copies
// straight from and to pageable memory from then on: slower, same results.
//
// Threading: one caller at a time (the backend's lock); a mutex makes misuse safe, not fast.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <span>

#include "engine/runtime/cuda/cuda_device.h"

namespace ember::cuda {

class PinnedStaging {
 public:
  static constexpr size_t kDefaultChunkBytes = size_t{32} << 20;

  explicit PinnedStaging(std::shared_ptr<CudaDevice> device,
                         size_t chunk_bytes = kDefaultChunkBytes);
  // Waits for the copies still reading the pinned memory, then frees it.
  ~PinnedStaging();
  PinnedStaging(const PinnedStaging&) = delete;
  PinnedStaging& operator=(const PinnedStaging&) = delete;

  // Copies `src` to device address `dst`. Returns once `src` has been read (the caller may
  // reuse it); the device copy may still be queued on `stream`, and work queued on `stream`
  // afterwards sees the data. REQUIRES: `dst` has room for src.size() bytes.
  void Upload(std::span<const std::byte> src, CUdeviceptr dst, CUstream stream);

  // Copies dst.size() bytes from device address `src` to `dst`, after the work already queued
  // on `stream`. Returns once `dst` holds them.
  void Download(CUdeviceptr src, std::span<std::byte> dst, CUstream stream);

  // False once pinned allocation failed and copies go through pageable memory.
  bool pinned() const;
  // Bytes of each of the two slots now (0 before the first copy).
  size_t slot_bytes() const;

 private:
  struct Slot {
    std::byte* host = nullptr;
    CUevent done = nullptr;  // Recorded after the last copy that used `host`.
  };

  // Makes both slots hold min(bytes, chunk_bytes_); returns false when pinning failed.
  bool Reserve(size_t bytes);
  void ReleaseSlots();
  // Waits until `slot`'s last copy has finished.
  static void Wait(const Slot& slot);

  std::shared_ptr<CudaDevice> device_;
  const size_t chunk_bytes_;
  mutable std::mutex mutex_;
  Slot slots_[2];          // Guarded by mutex_.
  size_t slot_bytes_ = 0;  // Guarded by mutex_.
  bool pinned_ = true;     // Guarded by mutex_.
};

}  // namespace ember::cuda

#include "engine/runtime/cuda/pinned_staging.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "engine/core/check.h"
#include "engine/core/log.h"
#include "engine/runtime/cuda/driver_api.h"

namespace ember::cuda {
namespace {

constexpr size_t kMinSlotBytes = size_t{1} << 20;

}  // namespace

PinnedStaging::PinnedStaging(std::shared_ptr<CudaDevice> device, size_t chunk_bytes)
    : device_(std::move(device)), chunk_bytes_(std::max(chunk_bytes, kMinSlotBytes)) {
  ScopedContext scoped(*device_);
  for (Slot& slot : slots_) EMBER_CU(cuEventCreate, &slot.done, CU_EVENT_DISABLE_TIMING);
}

PinnedStaging::~PinnedStaging() {
  try {
    ScopedContext scoped(*device_);
    ReleaseSlots();
    for (Slot& slot : slots_) EMBER_CU_WARN(cuEventDestroy, slot.done);
  } catch (const Error&) {
    // The driver is gone (process exit), and the pinned memory with it.
  }
}

bool PinnedStaging::pinned() const {
  std::lock_guard lock(mutex_);
  return pinned_;
}

size_t PinnedStaging::slot_bytes() const {
  std::lock_guard lock(mutex_);
  return slot_bytes_;
}

void PinnedStaging::Wait(const Slot& slot) { EMBER_CU(cuEventSynchronize, slot.done); }

void PinnedStaging::ReleaseSlots() {
  for (Slot& slot : slots_) {
    if (slot.host == nullptr) continue;
    Wait(slot);
    EMBER_CU_WARN(cuMemFreeHost, slot.host);
    slot.host = nullptr;
  }
  slot_bytes_ = 0;
}

bool PinnedStaging::Reserve(size_t bytes) {
  if (!pinned_) return false;
  const size_t wanted = std::min(chunk_bytes_, std::max(bytes, kMinSlotBytes));
  if (wanted <= slot_bytes_) return true;
  // Grow geometrically, so a series of growing copies reallocates a few times only.
  const size_t size = std::min(chunk_bytes_, std::max(wanted, 2 * slot_bytes_));
  ReleaseSlots();
  for (Slot& slot : slots_) {
    void* host = nullptr;
    const CUresult result = Driver().cuMemHostAlloc(&host, size, 0);
    if (result != CUDA_SUCCESS) {
      ReleaseSlots();
      pinned_ = false;
      Warn("cuda-pinned-staging",
           fmt::format("could not pin {} bytes of host memory for device copies (cuMemHostAlloc: "
                       "{}); copying through pageable memory, which is slower",
                       size, CuResultText(result)));
      return false;
    }
    slot.host = static_cast<std::byte*>(host);
  }
  slot_bytes_ = size;
  return true;
}

void PinnedStaging::Upload(std::span<const std::byte> src, CUdeviceptr dst, CUstream stream) {
  if (src.empty()) return;
  std::lock_guard lock(mutex_);
  ScopedContext scoped(*device_);
  if (!Reserve(src.size())) {
    // From pageable memory the driver returns once it has staged `src`, so it may be reused.
    EMBER_CU(cuMemcpyHtoDAsync, dst, src.data(), src.size(), stream);
    return;
  }
  for (size_t offset = 0, i = 0; offset < src.size(); offset += slot_bytes_, ++i) {
    const size_t length = std::min(slot_bytes_, src.size() - offset);
    Slot& slot = slots_[i % 2];
    Wait(slot);
    std::memcpy(slot.host, src.data() + offset, length);
    EMBER_CU(cuMemcpyHtoDAsync, dst + offset, slot.host, length, stream);
    EMBER_CU(cuEventRecord, slot.done, stream);
  }
}

void PinnedStaging::Download(CUdeviceptr src, std::span<std::byte> dst, CUstream stream) {
  if (dst.empty()) return;
  std::lock_guard lock(mutex_);
  ScopedContext scoped(*device_);
  if (!Reserve(dst.size())) {
    EMBER_CU(cuMemcpyDtoHAsync, dst.data(), src, dst.size(), stream);
    EMBER_CU(cuStreamSynchronize, stream);
    return;
  }
  const size_t chunks = (dst.size() + slot_bytes_ - 1) / slot_bytes_;
  auto issue = [&](size_t i) {
    const size_t offset = i * slot_bytes_;
    const size_t length = std::min(slot_bytes_, dst.size() - offset);
    Slot& slot = slots_[i % 2];
    Wait(slot);
    EMBER_CU(cuMemcpyDtoHAsync, slot.host, src + offset, length, stream);
    EMBER_CU(cuEventRecord, slot.done, stream);
  };
  issue(0);
  for (size_t i = 0; i < chunks; ++i) {
    // The next chunk's transfer runs while this one is copied out of its slot.
    if (i + 1 < chunks) issue(i + 1);
    const size_t offset = i * slot_bytes_;
    const size_t length = std::min(slot_bytes_, dst.size() - offset);
    const Slot& slot = slots_[i % 2];
    Wait(slot);
    std::memcpy(dst.data() + offset, slot.host, length);
  }
}

}  // namespace ember::cuda

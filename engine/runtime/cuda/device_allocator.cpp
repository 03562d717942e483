#include "engine/runtime/cuda/device_allocator.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "engine/core/check.h"
#include "engine/runtime/cuda/driver_api.h"

namespace ember::cuda {
namespace {

constexpr size_t kSmallGranularity = 512;
constexpr size_t kSmallLimit = size_t{1} << 20;
constexpr size_t kLargeGranularity = size_t{2} << 20;

size_t RoundUp(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

[[noreturn]] void ThrowOutOfMemory(size_t requested) {
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  const CUresult info = Driver().cuMemGetInfo(&free_bytes, &total_bytes);
  if (info != CUDA_SUCCESS) {
    throw Error(fmt::format(
        "out of device memory: {} bytes requested (cache emptied and retried; cuMemGetInfo: {})",
        requested, CuResultText(info)));
  }
  throw Error(fmt::format(
      "out of device memory: {} bytes requested, {} free of {} (cache emptied and retried)",
      requested, free_bytes, total_bytes));
}

}  // namespace

DeviceAllocator::DeviceAllocator(std::shared_ptr<CudaDevice> device, bool poison)
    : device_(std::move(device)), poison_(poison), order_(device_) {}

DeviceAllocator::~DeviceAllocator() {
  try {
    // Frees still held (a holder gone without releasing them) go with the cache.
    while (!held_streams_.empty()) ReleaseFrees(held_streams_.back());
    EmptyCache();
  } catch (const Error&) {
    // The driver is gone (process exit) and the memory with it.
  }
}

size_t DeviceAllocator::SizeClass(size_t bytes) {
  if (bytes <= kSmallLimit) return RoundUp(bytes == 0 ? 1 : bytes, kSmallGranularity);
  return RoundUp(bytes, kLargeGranularity);
}

bool DeviceAllocator::PoisonRequested() {
  const char* value = std::getenv("EMBER_CUDA_POISON");
  return value != nullptr && std::strcmp(value, "1") == 0;
}

CUdeviceptr DeviceAllocator::TakeCached(size_t size, CUstream stream) {
  auto cached = cache_.find(size);
  if (cached == cache_.end() || cached->second.empty()) return 0;
  std::vector<DeviceBlock>& blocks = cached->second;
  // The block of the same stream (no wait) with the lowest address. Not the most recently
  // freed: which block a request gets then depends only on which blocks are free, not on the
  // order they were freed in, so a program that repeats a step gets the same addresses every
  // step once the cache has settled, and the CUDA graphs of its launch windows keep their
  // arguments instead of being updated node by node (Note [Launch windows],
  // backend/launch_graphs.h; docs/BENCHMARKS.md, issue 44: with the most recent block, 90% of
  // replayed nodes needed new addresses).
  auto it = blocks.end();
  for (auto b = blocks.begin(); b != blocks.end(); ++b) {
    if (b->stream == stream && (it == blocks.end() || b->ptr < it->ptr)) it = b;
  }
  if (it != blocks.end()) {
    ++it;  // one past the chosen block, as below
  } else {
    it = blocks.end();  // none of this stream: the most recent one, after a hand-off
    order_.After(stream, (it - 1)->stream);
    ++stats_.cross_stream_reuses;
  }
  const CUdeviceptr ptr = (it - 1)->ptr;
  blocks.erase(it - 1);
  stats_.bytes_cached -= size;
  ++stats_.cache_hits;
  return ptr;
}

DeviceBlock DeviceAllocator::Allocate(size_t bytes, CUstream stream) {
  // No class can hold it, and the rounding below would overflow.
  if (bytes > std::numeric_limits<size_t>::max() - kLargeGranularity) ThrowOutOfMemory(bytes);
  const size_t size = SizeClass(bytes);

  std::lock_guard lock(mutex_);
  ScopedContext scoped(*device());
  CUdeviceptr ptr = TakeCached(size, stream);
  if (ptr == 0) ptr = AllocateFromDriver(size, bytes);
  EMBER_CHECK(ptr % kDeviceAlignment == 0, "cuMemAlloc returned a misaligned block");
  if (poison_) EMBER_CU(cuMemsetD8Async, ptr, 0xFF, size, stream);
  stats_.bytes_in_use += size;
  ++stats_.allocations;
  return {.ptr = ptr, .size = size, .stream = stream};
}

CUdeviceptr DeviceAllocator::AllocateFromDriver(size_t size, size_t requested) {
  CUdeviceptr ptr = 0;
  CUresult result = Driver().cuMemAlloc(&ptr, size);
  if (result == CUDA_ERROR_OUT_OF_MEMORY) {
    ++stats_.retries;
    EmptyCacheLocked();
    result = Driver().cuMemAlloc(&ptr, size);
    if (result == CUDA_ERROR_OUT_OF_MEMORY) ThrowOutOfMemory(requested);
  }
  CheckCu(result, "cuMemAlloc");
  ++stats_.driver_allocations;
  return ptr;
}

void DeviceAllocator::Free(const DeviceBlock& block) {
  EMBER_DCHECK(block.ptr != 0 && block.size == SizeClass(block.size), "not an allocator block");
  std::lock_guard lock(mutex_);
  EMBER_CHECK(stats_.bytes_in_use >= block.size, "freeing more device memory than is in use");
  if (std::find(held_streams_.begin(), held_streams_.end(), block.stream) != held_streams_.end()) {
    held_.push_back(block);  // still in use until ReleaseFrees
    ++stats_.held_frees;
    return;
  }
  cache_[block.size].push_back(block);
  stats_.bytes_in_use -= block.size;
  stats_.bytes_cached += block.size;
}

void DeviceAllocator::HoldFrees(CUstream stream) {
  {
    std::lock_guard lock(mutex_);
    if (std::find(held_streams_.begin(), held_streams_.end(), stream) == held_streams_.end()) {
      held_streams_.push_back(stream);
    }
  }
  borrowed_.Hold(stream);
}

void DeviceAllocator::ReleaseFrees(CUstream stream) {
  {
    std::lock_guard lock(mutex_);
    std::erase(held_streams_, stream);
    std::erase_if(held_, [&](const DeviceBlock& block) {
      if (block.stream != stream) return false;
      cache_[block.size].push_back(block);
      stats_.bytes_in_use -= block.size;
      stats_.bytes_cached += block.size;
      return true;
    });
  }
  borrowed_.Unhold(stream);
}

void DeviceAllocator::ReleaseBorrowed(CUstream stream, std::shared_ptr<const void> owner) noexcept {
  borrowed_.Add(stream, std::move(owner));
}

void DeviceAllocator::EmptyCache() {
  std::lock_guard lock(mutex_);
  ScopedContext scoped(*device());
  EmptyCacheLocked();
}

void DeviceAllocator::EmptyCacheLocked() {
  if (stats_.bytes_cached == 0) return;
  // A cached block may still be read by a kernel queued before it was freed, on any stream.
  EMBER_CU(cuCtxSynchronize);
  // One block at a time, so that the stats stay true if a cuMemFree throws.
  for (auto& [size, blocks] : cache_) {
    while (!blocks.empty()) {
      EMBER_CU(cuMemFree, blocks.back().ptr);
      blocks.pop_back();
      stats_.bytes_cached -= size;
    }
  }
}

DeviceAllocator::Stats DeviceAllocator::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace ember::cuda

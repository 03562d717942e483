// The caching allocator: size classes (no GPU needed), then reuse, stream order, stats,
// out-of-memory and poison on a GPU.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/runtime/cuda/cuda_buffer.h"
#include "engine/runtime/cuda/device_allocator.h"
#include "engine/runtime/cuda/driver_api.h"
#include "tests/runtime/cuda/cuda_test_util.h"

namespace ember::cuda {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr size_t kMiB = size_t{1} << 20;

TEST(DeviceAllocatorSizeClass, SmallRoundTo512AndLargeTo2MiB) {
  EXPECT_EQ(DeviceAllocator::SizeClass(0), 512u);
  EXPECT_EQ(DeviceAllocator::SizeClass(1), 512u);
  EXPECT_EQ(DeviceAllocator::SizeClass(512), 512u);
  EXPECT_EQ(DeviceAllocator::SizeClass(513), 1024u);
  EXPECT_EQ(DeviceAllocator::SizeClass(kMiB), kMiB);
  EXPECT_EQ(DeviceAllocator::SizeClass(kMiB + 1), 2 * kMiB);
  EXPECT_EQ(DeviceAllocator::SizeClass(5 * kMiB), 6 * kMiB);
  for (size_t bytes : {size_t{3}, size_t{777}, size_t{100000}, 3 * kMiB + 5}) {
    EXPECT_EQ(DeviceAllocator::SizeClass(bytes) % kDeviceAlignment, 0u) << bytes;
  }
}

class DeviceAllocatorTest : public testing::CudaTest {};

TEST_F(DeviceAllocatorTest, FreedBlocksAreReusedByTheirSizeClass) {
  const DeviceBlock first = allocator_->Allocate(1000, stream_->get());
  EXPECT_EQ(first.size, 1024u);
  EXPECT_EQ(first.ptr % kDeviceAlignment, 0u);
  allocator_->Free(first);
  EXPECT_EQ(allocator_->stats().bytes_cached, 1024u);

  // Same class: the same block comes back from the cache.
  const DeviceBlock again = allocator_->Allocate(1023, stream_->get());
  EXPECT_EQ(again.ptr, first.ptr);
  // Another class: a new block.
  const DeviceBlock large = allocator_->Allocate(3 * kMiB, stream_->get());
  EXPECT_NE(large.ptr, first.ptr);

  DeviceAllocator::Stats stats = allocator_->stats();
  EXPECT_EQ(stats.allocations, 3u);
  EXPECT_EQ(stats.cache_hits, 1u);
  EXPECT_EQ(stats.driver_allocations, 2u);
  EXPECT_EQ(stats.bytes_in_use, 1024u + 4 * kMiB);
  EXPECT_EQ(stats.bytes_cached, 0u);
  EXPECT_EQ(stats.retries, 0u);

  allocator_->Free(again);
  allocator_->Free(large);
  stats = allocator_->stats();
  EXPECT_EQ(stats.bytes_in_use, 0u);
  EXPECT_EQ(stats.bytes_cached, 1024u + 4 * kMiB);
  allocator_->EmptyCache();
  EXPECT_EQ(allocator_->stats().bytes_cached, 0u);
}

// Stream order ("Stream order", device_allocator.h): a block freed on one stream and handed
// out on another is written there only after the first stream's queued work. The first stream
// queues long fills of the whole block; if the second stream's fill did not wait, one of them
// would land after it and the tail would read the first stream's value.
TEST_F(DeviceAllocatorTest, ABlockReusedOnAnotherStreamWaitsForItsLastStream) {
  CudaStream other(device_);
  const size_t bytes = 256 * kMiB;
  const DeviceBlock block = allocator_->Allocate(bytes, stream_->get());
  ScopedContext scoped(*device_);
  for (int i = 0; i < 8; ++i) {
    EMBER_CU(cuMemsetD32Async, block.ptr, 0x11111111u, bytes / 4, stream_->get());
  }
  allocator_->Free(block);

  const DeviceBlock again = allocator_->Allocate(bytes, other.get());
  EXPECT_EQ(again.ptr, block.ptr);
  EXPECT_EQ(again.stream, other.get());
  EXPECT_EQ(allocator_->stats().cross_stream_reuses, 1u);
  EMBER_CU(cuMemsetD32Async, again.ptr, 0x22222222u, bytes / 4, other.get());
  std::vector<uint32_t> tail(1024);
  EMBER_CU(cuMemcpyDtoHAsync, tail.data(), again.ptr + bytes - 4096, 4096, other.get());
  other.Synchronize();
  for (uint32_t word : tail) ASSERT_EQ(word, 0x22222222u);
  allocator_->Free(again);
  stream_->Synchronize();
}

TEST_F(DeviceAllocatorTest, ReusePrefersABlockLastUsedOnTheSameStream) {
  CudaStream other(device_);
  const DeviceBlock mine = allocator_->Allocate(1000, stream_->get());
  const DeviceBlock theirs = allocator_->Allocate(1000, other.get());
  allocator_->Free(mine);
  allocator_->Free(theirs);  // the most recently freed, but of the other stream
  const DeviceBlock again = allocator_->Allocate(1000, stream_->get());
  EXPECT_EQ(again.ptr, mine.ptr);
  EXPECT_EQ(allocator_->stats().cross_stream_reuses, 0u);
  allocator_->Free(again);
  other.Synchronize();
}

// A repeated step gets the same blocks whatever order its buffers were freed in: the lowest
// address of the stream's free blocks of a class, so the CUDA graphs of its launch windows keep
// their arguments (Note [Launch windows], backend/launch_graphs.h).
TEST_F(DeviceAllocatorTest, ReuseTakesTheLowestAddressWhateverTheOrderOfFrees) {
  std::vector<DeviceBlock> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(allocator_->Allocate(1000, stream_->get()));
  std::vector<CUdeviceptr> sorted;
  for (const DeviceBlock& b : blocks) sorted.push_back(b.ptr);
  std::sort(sorted.begin(), sorted.end());
  for (const std::vector<int>& order : {std::vector{2, 0, 3, 1}, std::vector{3, 2, 1, 0}}) {
    for (int i : order) allocator_->Free(blocks[static_cast<size_t>(i)]);
    for (size_t i = 0; i < blocks.size(); ++i) {
      blocks[i] = allocator_->Allocate(1000, stream_->get());
      EXPECT_EQ(blocks[i].ptr, sorted[i]) << "request " << i;
    }
  }
  for (const DeviceBlock& b : blocks) allocator_->Free(b);
}

// Held frees (launch windows held for a CUDA graph): a block freed on the held stream is not
// handed out again, to that stream or another, until the hold ends; other streams' frees are
// not held.
TEST_F(DeviceAllocatorTest, FreesOnAHeldStreamWaitForItsRelease) {
  CudaStream other(device_);
  const DeviceBlock held = allocator_->Allocate(1000, stream_->get());
  const DeviceBlock free = allocator_->Allocate(1000, other.get());
  allocator_->HoldFrees(stream_->get());
  allocator_->Free(held);
  allocator_->Free(free);
  EXPECT_EQ(allocator_->stats().held_frees, 1u);
  EXPECT_EQ(allocator_->stats().bytes_in_use, 1024u) << "a held free is still in use";
  const DeviceBlock a = allocator_->Allocate(1000, stream_->get());
  EXPECT_EQ(a.ptr, free.ptr) << "only the other stream's block is cached";
  const DeviceBlock b = allocator_->Allocate(1000, other.get());
  EXPECT_NE(b.ptr, held.ptr);
  allocator_->ReleaseFrees(stream_->get());
  EXPECT_EQ(allocator_->stats().bytes_cached, 1024u);
  const DeviceBlock c = allocator_->Allocate(1000, stream_->get());
  EXPECT_EQ(c.ptr, held.ptr) << "released: cached again";
  for (const DeviceBlock& block : {a, b, c}) allocator_->Free(block);
  EXPECT_EQ(allocator_->stats().held_frees, 1u);
  other.Synchronize();
}

TEST_F(DeviceAllocatorTest, OutOfMemoryEmptiesTheCacheRetriesAndStaysUsable) {
  allocator_->Free(allocator_->Allocate(kMiB, stream_->get()));
  ASSERT_EQ(allocator_->stats().bytes_cached, kMiB);

  const size_t one_pib = size_t{1} << 50;
  try {
    allocator_->Allocate(one_pib, stream_->get());
    FAIL() << "a petabyte was allocated";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(),
                StartsWith("out of device memory: 1125899906842624 bytes requested, "));
    EXPECT_THAT(error.what(), HasSubstr(" free of "));
    EXPECT_THAT(error.what(), HasSubstr("(cache emptied and retried)"));
  }
  DeviceAllocator::Stats stats = allocator_->stats();
  EXPECT_EQ(stats.retries, 1u);
  EXPECT_EQ(stats.bytes_cached, 0u);

  const DeviceBlock block = allocator_->Allocate(4096, stream_->get());
  EXPECT_NE(block.ptr, 0u);
  allocator_->Free(block);
}

TEST_F(DeviceAllocatorTest, PoisonFillsEveryBlockHandedOutWithFF) {
  DeviceAllocator poisoned(device_, /*poison=*/true);
  const DeviceBlock block = poisoned.Allocate(3000, stream_->get());
  for (std::byte b : Read(block.ptr, block.size)) ASSERT_EQ(b, std::byte{0xFF});

  // Overwritten, freed and handed out again: poisoned again.
  {
    ScopedContext scoped(*device_);
    EMBER_CU(cuMemsetD8Async, block.ptr, 0, block.size, stream_->get());
  }
  poisoned.Free(block);
  const DeviceBlock reused = poisoned.Allocate(3000, stream_->get());
  ASSERT_EQ(reused.ptr, block.ptr);
  const std::vector<std::byte> bytes = Read(reused.ptr, reused.size);
  for (std::byte b : bytes) ASSERT_EQ(b, std::byte{0xFF});
  float as_float = 0;
  std::memcpy(&as_float, bytes.data(), sizeof(float));
  EXPECT_TRUE(std::isnan(as_float));
  poisoned.Free(reused);
}

TEST_F(DeviceAllocatorTest, CudaBufferReturnsItsBlockAndOutlivesNothing) {
  {
    TensorHandle handle = NewCudaHandle(allocator_, stream_->get(), Shape{3, 5}, DType::kF32);
    EXPECT_EQ(handle.buffer->backend(), "cuda");
    EXPECT_EQ(handle.buffer->size(), 60u);
    EXPECT_TRUE(handle.IsContiguous());
    EXPECT_EQ(DeviceElementData(handle), static_cast<CudaBuffer*>(handle.buffer.get())->data());
    EXPECT_EQ(allocator_->stats().bytes_in_use, 512u);
  }
  EXPECT_EQ(allocator_->stats().bytes_in_use, 0u);
  EXPECT_EQ(allocator_->stats().bytes_cached, 512u);

  // A buffer keeps its allocator alive after everyone else dropped it.
  std::weak_ptr<DeviceAllocator> weak = allocator_;
  auto buffer = std::make_shared<CudaBuffer>(std::move(allocator_), 100, stream_->get());
  EXPECT_FALSE(weak.expired());
  buffer.reset();
  EXPECT_TRUE(weak.expired());
}

}  // namespace
}  // namespace ember::cuda

// Host<->device copies through pinned staging: every size around the chunk boundaries comes
// back byte for byte.
#include <gtest/gtest.h>

#include <numeric>

#include "engine/runtime/cuda/pinned_staging.h"
#include "tests/runtime/cuda/cuda_test_util.h"

namespace ember::cuda {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

std::vector<std::byte> Pattern(size_t size, uint32_t seed) {
  std::vector<std::byte> bytes(size);
  uint32_t x = seed * 2654435761u + 1;
  for (std::byte& b : bytes) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<std::byte>(x >> 24);
  }
  return bytes;
}

class PinnedStagingTest : public testing::CudaTest {};

TEST_F(PinnedStagingTest, RoundTripsSizesAroundTheChunk) {
  // 1 MiB chunks (the smallest), so a few MiB crosses several chunks and both slots.
  PinnedStaging staging(device_, kMiB);
  for (size_t size : {size_t{1}, size_t{1000}, kMiB - 1, kMiB, kMiB + 1, 3 * kMiB + 12345}) {
    SCOPED_TRACE(size);
    const std::vector<std::byte> source = Pattern(size, static_cast<uint32_t>(size));
    const DeviceBlock block = allocator_->Allocate(size, stream_->get());
    staging.Upload(source, block.ptr, stream_->get());
    std::vector<std::byte> back(size);
    staging.Download(block.ptr, back, stream_->get());
    EXPECT_EQ(back, source);
    // The device really holds it (not only the staging buffer).
    EXPECT_EQ(Read(block.ptr, size), source);
    allocator_->Free(block);
  }
  EXPECT_TRUE(staging.pinned());
  EXPECT_EQ(staging.slot_bytes(), kMiB);
}

TEST_F(PinnedStagingTest, UploadsQueuedBackToBackKeepTheirOwnBytes) {
  // Upload returns before the device copy ends; the next upload must not overwrite a slot that
  // is still being read.
  PinnedStaging staging(device_, kMiB);
  std::vector<DeviceBlock> blocks;
  std::vector<std::vector<std::byte>> sources;
  for (uint32_t i = 0; i < 5; ++i) {
    sources.push_back(Pattern(kMiB + 7, 100 + i));
    blocks.push_back(allocator_->Allocate(sources.back().size(), stream_->get()));
    staging.Upload(sources.back(), blocks.back().ptr, stream_->get());
  }
  for (size_t i = 0; i < blocks.size(); ++i) {
    EXPECT_EQ(Read(blocks[i].ptr, sources[i].size()), sources[i]) << i;
    allocator_->Free(blocks[i]);
  }
}

TEST_F(PinnedStagingTest, DefaultChunkCopiesALargeBuffer) {
  PinnedStaging staging(device_);
  const size_t size = 2 * PinnedStaging::kDefaultChunkBytes + 4099;
  const std::vector<std::byte> source = Pattern(size, 7);
  const DeviceBlock block = allocator_->Allocate(size, stream_->get());
  staging.Upload(source, block.ptr, stream_->get());
  std::vector<std::byte> back(size);
  staging.Download(block.ptr, back, stream_->get());
  EXPECT_EQ(back, source);
  allocator_->Free(block);
}

}  // namespace
}  // namespace ember::cuda

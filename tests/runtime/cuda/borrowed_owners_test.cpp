// Borrowed device memory (Note [Borrowed device memory], engine/runtime/cuda/borrowed_owners.h)
// on a GPU: a borrowed CudaBuffer reads the lender's address, is never an allocator block, and
// its owner waits until the device has finished the stream's queued work, or, while the
// stream's launches are held back for a graph, until the hold ends and then that work; once
// the backend's streams are gone, owners go at once.
#include <atomic>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "engine/runtime/cpu/cpu_buffer.h"
#include "engine/runtime/cuda/cuda_buffer.h"
#include "engine/runtime/cuda/device_allocator.h"
#include "engine/runtime/cuda/driver_api.h"
#include "tests/runtime/cuda/cuda_test_util.h"

namespace ember::cuda {
namespace {

class BorrowedOwnersTest : public testing::CudaTest {
 protected:
  // An owner that counts its releases in `releases_`.
  std::shared_ptr<const void> Owner() {
    return std::shared_ptr<const void>(
        &releases_, [](const void* p) { ++*static_cast<std::atomic<int>*>(const_cast<void*>(p)); });
  }
  // Keeps `stream_` busy for a while: a host wait the device must reach first.
  void QueueWork(size_t bytes) {
    ScopedContext scoped(*device_);
    const DeviceBlock block = allocator_->Allocate(bytes, stream_->get());
    for (int i = 0; i < 8; ++i) {
      EMBER_CU(cuMemsetD8Async, block.ptr, static_cast<unsigned char>(i), bytes, stream_->get());
    }
    allocator_->Free(block);
  }

  std::atomic<int> releases_{0};
};

TEST_F(BorrowedOwnersTest, ABorrowedBufferReadsTheLendersAddressAndIsNoBlock) {
  const DeviceBlock lent = allocator_->Allocate(4096, stream_->get());
  const DeviceAllocator::Stats before = allocator_->stats();
  {
    auto buffer = std::make_shared<CudaBuffer>(allocator_, lent.ptr, 1000, stream_->get(), Owner());
    EXPECT_TRUE(buffer->borrowed());
    EXPECT_EQ(buffer->data(), lent.ptr);
    EXPECT_EQ(buffer->size(), 1000u);
    TensorHandle handle{.buffer = buffer, .shape = {250}};
    EXPECT_FALSE(cpu::MayWriteInPlace(handle)) << "the only handle, yet not ember's memory";
  }
  stream_->Synchronize();
  EXPECT_EQ(allocator_->CollectBorrowed(), 0u);
  EXPECT_EQ(releases_, 1);
  const DeviceAllocator::Stats after = allocator_->stats();
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use) << "the lent memory went to no cache";
  EXPECT_EQ(after.bytes_cached, before.bytes_cached);
  allocator_->Free(lent);
}

TEST_F(BorrowedOwnersTest, TheOwnerWaitsForTheStreamsQueuedWork) {
  const DeviceBlock lent = allocator_->Allocate(512, stream_->get());
  QueueWork(size_t{1} << 30);  // about a millisecond of memsets
  allocator_->ReleaseBorrowed(stream_->get(), Owner());
  // The device may not have reached the event yet; either way the owner goes only after it.
  const size_t waiting = allocator_->CollectBorrowed();
  EXPECT_EQ(releases_ + static_cast<int>(waiting), 1);
  stream_->Synchronize();
  EXPECT_EQ(allocator_->CollectBorrowed(), 0u);
  EXPECT_EQ(releases_, 1);
  allocator_->Free(lent);
}

TEST_F(BorrowedOwnersTest, AHeldStreamKeepsTheOwnerUntilTheHoldEnds) {
  allocator_->HoldFrees(stream_->get());
  allocator_->ReleaseBorrowed(stream_->get(), Owner());
  stream_->Synchronize();
  EXPECT_EQ(allocator_->CollectBorrowed(), 1u) << "a held launch may still read the memory";
  EXPECT_EQ(releases_, 0);
  allocator_->ReleaseFrees(stream_->get());
  stream_->Synchronize();
  EXPECT_EQ(allocator_->CollectBorrowed(), 0u);
  EXPECT_EQ(releases_, 1);
}

TEST_F(BorrowedOwnersTest, TheAllocatorWaitsForItsOwnersWhenItGoes) {
  allocator_->HoldFrees(stream_->get());
  allocator_->ReleaseBorrowed(stream_->get(), Owner());
  QueueWork(size_t{1} << 28);
  allocator_->ReleaseBorrowed(stream_->get(), Owner());
  allocator_.reset();
  EXPECT_EQ(releases_, 2);
}

TEST_F(BorrowedOwnersTest, OnceTheStreamsAreGoneOwnersGoAtOnce) {
  allocator_->HoldFrees(stream_->get());
  allocator_->ReleaseBorrowed(stream_->get(), Owner());
  stream_->Synchronize();
  allocator_->StreamsGone();  // what the backend says as it destroys its streams
  EXPECT_EQ(releases_, 1) << "a waiting owner went with the streams";
  allocator_->ReleaseBorrowed(stream_->get(), Owner());
  EXPECT_EQ(releases_, 2) << "a later one goes at once";
  EXPECT_EQ(allocator_->CollectBorrowed(), 0u);
  allocator_->ReleaseFrees(stream_->get());
}

}  // namespace
}  // namespace ember::cuda

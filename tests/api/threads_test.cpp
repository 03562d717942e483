// Tensors passed between threads (burn's MultiStream, burn-fusion's stream/multi.rs; docs/API.md,
// "Threads"): every thread queues on its own stream; a tensor used on another thread becomes a
// shared view there; drops and reads from other threads never alter the home thread's pending ops
// unless the tensor is not materialized yet. A thread that exits leaves no stream and no handle
// behind, and what it handed out is still computed.
#include <gtest/gtest.h>

#include <thread>

#include "engine/stream/stream_id.h"
#include "tests/api/api_test_util.h"

namespace ember {
namespace {

using testing::CurrentQueue;
using testing::OnFreshStream;

TEST(Threads, StreamIdsAreStablePerThreadAndDistinctAcrossThreads) {
  const StreamId here = CurrentStreamId();
  EXPECT_EQ(here, CurrentStreamId());
  StreamId there = 0;
  std::thread([&] { there = CurrentStreamId(); }).join();
  EXPECT_NE(here, there);
}

TEST(Threads, UnmaterializedTensorUsedOnAnotherThreadDrainsItsHomeStream) {
  OnFreshStream([] {
    Tensor a = Tensor::FromVector<float>({1, 2, 3}, {3}) * 2.0;  // pending on this stream
    ASSERT_FALSE(CurrentQueue().global.empty());
    std::vector<float> result;
    std::thread([&] {
      Tensor b = a + 1.0;  // a's producer must run first: its stream drains
      // This thread's queue holds only its own ops, on a fresh alias id of `a`.
      auto q = CurrentQueue();
      ASSERT_EQ(q.global.size(), 1u);
      EXPECT_NE(q.global[0].inputs[0].id, a.node()->id);
      EXPECT_EQ(q.relative[0].inputs[0].id, 0u);
      result = b.ToVector<float>();
    }).join();
    EXPECT_EQ(result, (std::vector<float>{3, 5, 7}));
    EXPECT_EQ(a.ToVector<float>(), (std::vector<float>{2, 4, 6}));
  });
}

TEST(Threads, MaterializedTensorUsedOnAnotherThreadLeavesTheHomeQueueAlone) {
  OnFreshStream([] {
    Tensor a = Tensor::FromVector<float>({1, 2}, {2});
    Sync();
    Tensor pending = a * 10.0;  // the home thread's pending segment
    const auto before = CurrentQueue().global;
    std::vector<float> result;
    std::thread([&] { result = (a - 1.0).ToVector<float>(); }).join();
    EXPECT_EQ(result, (std::vector<float>{0, 1}));
    EXPECT_EQ(CurrentQueue().global, before) << "a foreign use changed the home queue";
    EXPECT_EQ(pending.ToVector<float>(), (std::vector<float>{10, 20}));
  });
}

TEST(Threads, ForeignDropOfAMaterializedTensorDoesNotTouchTheHomeQueue) {
  OnFreshStream([] {
    Tensor a = Tensor::FromVector<float>({4, 5}, {2});
    Sync();
    Tensor pending = Tensor::Ones({2}, DType::kF32) + 1.0;
    const auto before = CurrentQueue().global;
    std::thread([moved = std::move(a)]() mutable { moved = Tensor(); }).join();
    EXPECT_EQ(CurrentQueue().global, before);
    EXPECT_EQ(pending.ToVector<float>(), (std::vector<float>{2, 2}));
  });
}

TEST(Threads, ForeignDropOfAnUnmaterializedTensorDrainsThenQueuesTheDrop) {
  OnFreshStream([] {
    Tensor a = Tensor::FromVector<float>({4, 5}, {2}) * 2.0;
    Tensor keep = a + 0.0;
    std::thread([moved = std::move(a)]() mutable { moved = Tensor(); }).join();
    auto q = CurrentQueue();
    ASSERT_EQ(q.global.size(), 1u);
    EXPECT_EQ(q.global[0].kind, OpKind::kDrop);
    EXPECT_EQ(keep.ToVector<float>(), (std::vector<float>{8, 10}));
  });
}

TEST(Threads, ManyThreadsComputeIndependently) {
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  std::vector<float> results(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &results] {
      Tensor x = Tensor::Full({16, 16}, static_cast<double>(t), DType::kF32);
      for (int i = 0; i < 50; ++i) x = x + 1.0;
      results[static_cast<size_t>(t)] = x.Sum().ToVector<float>()[0];
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_FLOAT_EQ(results[static_cast<size_t>(t)], 256.0f * static_cast<float>(t + 50));
  }
}

TEST(Threads, HandOffThroughAChainOfThreads) {
  Tensor x = Tensor::FromVector<float>({1, 2, 3, 4}, {2, 2});
  for (int hop = 0; hop < 4; ++hop) {
    std::thread([&x] { x = x.Matmul(Tensor::Ones({2, 2}, DType::kF32)); }).join();
  }
  // [[1,2],[3,4]] x ones -> rows sum duplicated; each hop multiplies the row sums by 2.
  EXPECT_EQ(x.ToVector<float>(), (std::vector<float>{24, 24, 56, 56}));
}

TEST(ThreadExit, ExitedThreadsLeaveNoStreamsOrHandles) {
  auto server = ServerFor(Device::Cpu());
  OnFreshStream([] {});  // settle anything a previous test left on its own exited thread
  const size_t streams = server->NumStreams();
  const size_t handles = server->NumHandles();
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([] {
      Tensor x = Tensor::Full({32, 32}, 1.0, DType::kF32);
      for (int i = 0; i < 10; ++i) x = std::move(x) * 2.0;
      Tensor unused = x.Sum();  // never read: still queued when the thread ends
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(server->NumStreams(), streams);
  EXPECT_EQ(server->NumHandles(), handles);
}

TEST(ThreadExit, ResultHandedToAnotherThreadIsStillComputed) {
  Tensor y;
  std::thread([&y] { y = Tensor::Full({4}, 3.0, DType::kF32) * 2.0; }).join();
  EXPECT_EQ(y.ToVector<float>(), (std::vector<float>{6, 6, 6, 6}));
}

TEST(ForeignCopy, CopyOnAnotherThreadIsASharedViewThere) {
  OnFreshStream([] {
    Tensor a = Tensor::FromVector<float>({1, 2}, {2});
    Sync();
    Tensor pending = a * 5.0;
    const auto before = CurrentQueue().global;
    std::thread([&a] {
      Tensor local = a;  // a copy made here lives here
      EXPECT_NE(local.node()->id, a.node()->id);
      EXPECT_EQ(std::move(local).Exp().ToVector<float>()[0], std::exp(1.0f));
    }).join();
    EXPECT_EQ(CurrentQueue().global, before) << "the foreign copy touched the home queue";
    EXPECT_EQ(pending.ToVector<float>(), (std::vector<float>{5, 10}));
  });
}

}  // namespace
}  // namespace ember

// Behaviours that are easy to get wrong at the API edge: operands kept alive until their op is
// queued, seed ordering, exited threads leaving nothing behind, composite operators rejected
// as a whole, consuming reads, copies on other threads, failures while running queued ops.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "tests/api/api_test_util.h"

namespace ember {
namespace {

using ::testing::HasSubstr;
using testing::CurrentQueue;
using testing::OnFreshStream;

TEST(Operands, ReadOnlyOperandDroppedConcurrentlyIsFreedAfterItsOp) {
  // Thread A consumes x while thread B drops its own reference at the same moment. Whatever
  // the interleaving, x must be freed after the Exp that reads it, never before.
  for (int round = 0; round < 200; ++round) {
    OnFreshStream([] {
      Tensor x = Tensor::Full({64}, 1.0, DType::kF32);
      Sync();
      Tensor copy = x;
      std::thread other([c = std::move(copy)]() mutable { c = Tensor(); });
      Tensor y = std::move(x).Exp();
      other.join();
      EXPECT_FLOAT_EQ(y.ToVector<float>()[63], std::exp(1.0f));
    });
  }
}

TEST(Seed, SeedOrdersWithQueuedRandomOps) {
  OnFreshStream([] {
    Seed(Device::Cpu(), 7);
    Tensor a = Tensor::RandomUniform({256}, DType::kF32);
    Seed(Device::Cpu(), 7);  // a was queued under seed 7 and must run with it
    Tensor b = Tensor::RandomUniform({256}, DType::kF32);
    EXPECT_EQ(a.ToVector<float>(), b.ToVector<float>());
    Seed(Device::Cpu(), 8);
    Tensor c = Tensor::RandomUniform({256}, DType::kF32);
    EXPECT_NE(a.ToVector<float>(), c.ToVector<float>());
  });
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

TEST(CompositeOperators, RejectedScalarOnTheLeftQueuesNothing) {
  OnFreshStream([] {
    Tensor i = Tensor::Ones({2}, DType::kI32);
    Tensor b = Tensor::Ones({2}, DType::kBool);
    const size_t before = CurrentQueue().global.size();
    EXPECT_THROW((void)(0.5 - i), Error);
    EXPECT_THROW((void)(1.0 / b), Error);
    EXPECT_THROW((void)(2.5 / i), Error);
    EXPECT_EQ(CurrentQueue().global.size(), before);
    EXPECT_EQ((3.0 - i).ToVector<int32_t>(), (std::vector<int32_t>{2, 2}));
  });
}

TEST(ConsumingRead, TemporaryIsFreedByItsReadAndQueuesNoDrop) {
  OnFreshStream([] {
    Tensor a = Tensor::Full({3}, 2.0, DType::kF32);
    EXPECT_EQ((a * 3.0).ToVector<float>(), (std::vector<float>{6, 6, 6}));
    EXPECT_TRUE(CurrentQueue().global.empty()) << "the read consumed it: no Drop to run";
    Tensor kept = a * 4.0;
    EXPECT_EQ(kept.ToVector<float>(), (std::vector<float>{8, 8, 8}));
    EXPECT_EQ(std::move(kept).ToVector<float>(), (std::vector<float>{8, 8, 8}));
  });
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

TEST(SliceValues, NegativeStepThatDoesNotDivideTheRange) {
  Tensor a = Tensor::FromVector<float>({0, 1, 2, 3, 4}, {5});
  EXPECT_EQ(a.Slice({Slice{0, 3, -2}}).ToVector<float>(), (std::vector<float>{2, 0}));
  EXPECT_EQ(a.Slice({Slice{-4, std::nullopt, -3}}).ToVector<float>(),
            (std::vector<float>{4, 1}));
}

TEST(ReleasedDevice, MixingEnginesOfOneDeviceIsAnError) {
  OnFreshStream([] {
    Tensor old_engine = Tensor::Ones({2}, DType::kF32);
    ReleaseDevice(Device::Cpu());
    Tensor new_engine = Tensor::Ones({2}, DType::kF32);
    try {
      (void)(new_engine + new_engine);
      (void)(old_engine + new_engine);
      ADD_FAILURE() << "expected ember::Error";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("released"));
    }
  });
}

bool OvercommitRefusesHugeAllocations() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return false;  // sanitizer allocators abort on such requests instead of throwing
#else
  std::ifstream f("/proc/sys/vm/overcommit_memory");
  int mode = -1;
  f >> mode;
  return mode == 0 || mode == 2;
#endif
}

TEST(FailedOp, AllocationFailureIsAnErrorAndTheStreamStaysUsable) {
  if (!OvercommitRefusesHugeAllocations()) GTEST_SKIP() << "cannot fail an allocation safely";
  OnFreshStream([] {
    Tensor ok = Tensor::Full({2}, 1.0, DType::kF32) + 1.0;
    Tensor huge = Tensor::Zeros({int64_t{1} << 20, int64_t{1} << 20}, DType::kF32);  // 4 TiB
    try {
      Sync();
      ADD_FAILURE() << "expected ember::Error";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("BaseFloat::Zeros failed"));
    }
    EXPECT_EQ(ok.ToVector<float>(), (std::vector<float>{2, 2}));
    EXPECT_THROW((void)huge.Sum().ToVector<float>(), Error);
    EXPECT_EQ((ok * 2.0).ToVector<float>(), (std::vector<float>{4, 4}));
  });
}

}  // namespace
}  // namespace ember

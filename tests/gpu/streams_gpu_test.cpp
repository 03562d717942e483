// Threads on one GPU (engine/runtime/cuda/backend/stream_set.h): each thread's ops run on its
// own CUDA stream, and a tensor handed from one thread to another is ordered on the device by
// an event (CudaBuffer::Use). The programs are long elementwise chains over large tensors, so
// that a consumer that did not wait would start while its input is still being written; the
// allocator poisons every block (EMBER_CUDA_POISON=1: NaN for floats), so such a read shows.
// Values are compared with the CPU backend under Note [GPU tolerances] (gpu_test_util.h).
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>

#include "tests/gpu/gpu_test_util.h"

namespace ember::gpu {
namespace {

constexpr int64_t kElements = int64_t{1} << 22;

class StreamsGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("EMBER_CUDA_POISON", "1", 1);
    UseFusion(true);  // a fresh CUDA engine, whose allocator reads EMBER_CUDA_POISON
  }
  void TearDown() override {
    unsetenv("EMBER_CUDA_POISON");
    UseFusion(true);
  }
};

// 24 ops that keep values in [-1, 1]: several microseconds of GPU time per element block.
Tensor Chain(Tensor x) {
  for (int i = 0; i < 6; ++i) x = (x * 1.3 + 0.2).Sin().Tanh();
  return x;
}

struct HandOff {
  ProgramOutput y, z, y2;
};

// The main thread queues y = Chain(x) and hands y to a second thread, which computes z from it
// while the main thread computes y2 from it too; both read their results.
HandOff RunHandOff(Device device, const std::vector<float>& values) {
  HandOff out;
  Tensor x = Make(values, {kElements}, DType::kF32, device);
  Tensor y = Chain(x);
  std::thread consumer([&out, y] { out.z = Read(((y * 2.0 + 1.0).Tanh() - y).Sin(), "z"); });
  out.y2 = Read((y - 0.5).Sin() * y, "y2");
  consumer.join();
  out.y = Read(y, "y");
  return out;
}

TEST_F(StreamsGpu, ATensorHandedToAnotherThreadIsReadAfterItIsWritten) {
  EMBER_CUDA_OR_SKIP(cuda);
  HostData data(301);
  for (int round = 0; round < 3; ++round) {
    const std::vector<float> values = data.Uniform(kElements, -2.0f, 2.0f);
    const HandOff want = RunHandOff(Device::Cpu(), values);
    const HandOff got = RunHandOff(cuda, values);
    EXPECT_EQ(Compare(want.y, got.y), "") << "round " << round;
    EXPECT_EQ(Compare(want.z, got.z), "") << "round " << round;
    EXPECT_EQ(Compare(want.y2, got.y2), "") << "round " << round;
  }
}

// Eight threads at once, each with its own program and inputs, twice (the second time the
// first threads are gone and their streams serve the new ones); then one thread reads every
// result, which crosses from each stream to its own.
TEST_F(StreamsGpu, ManyThreadsRunSideBySideAndOneReadsAll) {
  EMBER_CUDA_OR_SKIP(cuda);
  constexpr int kThreads = 8;
  constexpr int64_t kEach = int64_t{1} << 18;
  HostData data(302);
  for (int round = 0; round < 2; ++round) {
    std::vector<std::vector<float>> inputs;
    for (int t = 0; t < kThreads; ++t) inputs.push_back(data.Uniform(kEach, -2.0f, 2.0f));
    std::vector<Tensor> results(kThreads, Tensor());
    std::vector<ProgramOutput> want(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        results[t] = Chain(Make(inputs[t], {kEach}, DType::kF32, cuda) * (1.0 + 0.1 * t));
        want[t] =
            Read(Chain(Make(inputs[t], {kEach}, DType::kF32, Device::Cpu()) * (1.0 + 0.1 * t)),
                 "result " + std::to_string(t));
      });
    }
    for (std::thread& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) {
      EXPECT_EQ(Compare(want[t], Read(results[t], want[t].name)), "") << "round " << round;
    }
  }
}

}  // namespace
}  // namespace ember::gpu

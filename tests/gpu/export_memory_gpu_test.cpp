// ember::ExportMemory on CUDA, which the Python module's DLPack export of device memory
// (engine/python/exchange_bindings.cpp) stands on: the module itself cannot run on the GPU
// machine, whose Python is another version than the one it is built for here (issue 48). The
// exported pointer is device memory of the tensor's device holding its values, a view keeps
// its strides, and the owner keeps the buffer alive past the tensor and away from in-place
// reuse, as tests/api/memory_test.cpp checks on the CPU. Values are read back with the
// driver's own copy in the pointer's context (DeviceBytes), not through ember.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/memory.h>

#include "tests/gpu/device_memory_util.h"
#include "tests/gpu/gpu_test_util.h"

namespace ember::gpu {
namespace {

class ExportMemoryGpu : public ::testing::Test {
 protected:
  void SetUp() override { UseFusion(true); }
};

TEST_F(ExportMemoryGpu, TheComputedDeviceBufferWithItsValues) {
  EMBER_CUDA_OR_SKIP(cuda);
  Tensor a = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}, cuda);
  Tensor y = a * 2.0 + 1.0;  // queued: the export runs it and waits for the device
  const TensorMemory m = ExportMemory(y);
  EXPECT_EQ(m.device, cuda);
  EXPECT_EQ(m.dtype, DType::kF32);
  EXPECT_EQ(m.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(m.strides, (std::vector<int64_t>{3, 1}));
  ASSERT_NE(m.data, nullptr);
  EXPECT_EQ(Floats(m, 6), (std::vector<float>{3, 5, 7, 9, 11, 13}));
  EXPECT_EQ(ExportMemory(y).data, m.data) << "a second export copied";
}

TEST_F(ExportMemoryGpu, AViewKeepsItsStrides) {
  EMBER_CUDA_OR_SKIP(cuda);
  Tensor a = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}, cuda);
  const TensorMemory m = ExportMemory(a.Permute({1, 0}));
  ASSERT_EQ(m.shape, (std::vector<int64_t>{3, 2}));
  // The view's elements span the whole [2, 3] buffer from element [0, 0].
  int64_t extent = 1;
  for (size_t d = 0; d < m.shape.size(); ++d) extent += (m.shape[d] - 1) * m.strides[d];
  ASSERT_GT(extent, 0);
  const std::vector<float> values = Floats(m, static_cast<size_t>(extent));
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 2; ++j) {
      EXPECT_EQ(values[i * m.strides[0] + j * m.strides[1]], static_cast<float>(j * 3 + i + 1));
    }
  }
}

TEST_F(ExportMemoryGpu, AHeldBufferIsNeverReusedInPlace) {
  EMBER_CUDA_OR_SKIP(cuda);
  Tensor a = Tensor::FromVector<float>({1, 2, 3, 4}, {4}, cuda);
  const TensorMemory m = ExportMemory(a);
  // The last use of `a`: without the export its buffer would take the result in place.
  Tensor b = (std::move(a) + 10.0).Exp();
  EXPECT_NEAR(b.ToVector<float>()[0], std::exp(11.0f), 1e-1);
  EXPECT_EQ(Floats(m, 4), (std::vector<float>{1, 2, 3, 4}));
}

TEST_F(ExportMemoryGpu, TheOwnerOutlivesTheTensor) {
  EMBER_CUDA_OR_SKIP(cuda);
  TensorMemory m;
  {
    Tensor a = Tensor::Full({4096}, 3.0, DType::kF32, cuda);
    m = ExportMemory(a);
  }  // a's Drop is queued: the buffer stays with the owner
  Sync(cuda);
  // New buffers of the same size must not land on the exported one.
  Tensor c = Tensor::Full({4096}, 9.0, DType::kF32, cuda) + 1.0;
  EXPECT_EQ(c.ToVector<float>()[0], 10.0f);
  EXPECT_EQ(Floats(m, 4096), std::vector<float>(4096, 3.0f));
  m.owner.reset();
}

}  // namespace
}  // namespace ember::gpu

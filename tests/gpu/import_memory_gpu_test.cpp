// ember::ImportMemory of device memory (Note [Borrowed device memory],
// engine/runtime/cuda/borrowed_owners.h), which the Python module's from_dlpack of PyTorch and
// CuPy device tensors stands on. The memory lent here is ember's own, exported (ExportMemory
// hands out a device address and an owner), so the test needs no allocator of its own: the
// import must read that address in place, never write it (not even for a last use that could
// take an input's buffer), keep the owner until the kernels that read it have finished, copy
// to another device through the host, and refuse device memory that is not element-aligned.
// The export as owner is also the one owner that calls ember when it goes (it gives its buffer
// back under the device server's lock, which the backend may hold while it collects owners):
// each test releasing it checks that this does not deadlock.
// Run on the CPU (EMBER_GPU_SUITE_ON_CPU=1) the same checks cover host memory.
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/memory.h>

#include "tests/gpu/device_memory_util.h"
#include "tests/gpu/gpu_test_util.h"

namespace ember::gpu {
namespace {

class ImportMemoryGpu : public ::testing::Test {
 protected:
  void SetUp() override { UseFusion(true); }
};

// `m` with its owner wrapped in one that counts its releases in `releases`.
TensorMemory Counted(TensorMemory m, std::shared_ptr<std::atomic<int>> releases) {
  std::shared_ptr<const void> inner = std::move(m.owner);
  m.owner = std::shared_ptr<const void>(m.data, [inner, releases](const void*) mutable {
    inner.reset();
    ++*releases;
  });
  return m;
}

TEST_F(ImportMemoryGpu, BorrowsDeviceMemoryWithoutACopy) {
  EMBER_CUDA_OR_SKIP(cuda);
  Tensor a = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}, cuda) * 2.0;
  const TensorMemory m = ExportMemory(a);
  EXPECT_EQ(ImportCopyReason(m, {.device = cuda}), "");
  Tensor t = ImportMemory(m, {.device = cuda});
  EXPECT_EQ(t.device(), cuda);
  EXPECT_EQ(ExportMemory(t).data, m.data) << "the import copied";
  EXPECT_EQ((t + 1.0).ToVector<float>(), (std::vector<float>{3, 5, 7, 9, 11, 13}));
  EXPECT_EQ(t.SumDim(1).ToVector<float>(), (std::vector<float>{12, 30}));
}

TEST_F(ImportMemoryGpu, ALastUseNeverWritesTheProducersMemory) {
  EMBER_CUDA_OR_SKIP(cuda);
  Tensor a = Tensor::FromVector<float>({1, 2, 3, 4}, {4}, cuda) + 0.5;
  const TensorMemory m = ExportMemory(a);
  a = Tensor();  // the export's owner is now the buffer's only keeper besides the import
  Tensor t = ImportMemory(m, {.device = cuda});
  // The last use of `t`: with ember's own memory its buffer would take the result in place.
  Tensor b = (std::move(t) + 10.0).Exp();
  EXPECT_NEAR(b.ToVector<float>()[0], std::exp(11.5f), 1e-1);
  EXPECT_EQ(Floats(m, 4), (std::vector<float>{1.5f, 2.5f, 3.5f, 4.5f}));
}

TEST_F(ImportMemoryGpu, TheOwnerGoesOnceTheKernelsThatReadItAreDone) {
  EMBER_CUDA_OR_SKIP(cuda);
  auto releases = std::make_shared<std::atomic<int>>(0);
  Tensor y;
  {
    Tensor a = Tensor::Full({1 << 20}, 2.0, DType::kF32, cuda) + 0.0;
    TensorMemory m = Counted(ExportMemory(a), releases);
    Tensor t = ImportMemory(std::move(m), {.device = cuda});
    // A chain long enough to keep the device busy after its launch returns.
    y = std::move(t).Exp();
    for (int i = 0; i < 8; ++i) y = std::move(y).Sqrt() + 1.0;
  }
  EXPECT_EQ(*releases, 0) << "released while a queued op still reads the memory";
  Sync(cuda);
  EXPECT_EQ(*releases, 1) << "not released after the device finished";
  std::vector<float> want(1, std::exp(2.0f));
  for (int i = 0; i < 8; ++i) want[0] = std::sqrt(want[0]) + 1.0f;
  EXPECT_NEAR(y.ToVector<float>()[12345], want[0], 1e-5);
}

TEST_F(ImportMemoryGpu, AViewIsBorrowedWithItsStrides) {
  EMBER_CUDA_OR_SKIP(cuda);
  Tensor a = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}, cuda) * 1.0;
  const TensorMemory m = ExportMemory(a.Permute({1, 0}));
  ASSERT_EQ(m.shape, (std::vector<int64_t>{3, 2}));
  Tensor t = ImportMemory(m, {.device = cuda});
  EXPECT_EQ((t * 10.0).ToVector<float>(), (std::vector<float>{10, 40, 20, 50, 30, 60}));
}

TEST_F(ImportMemoryGpu, CopiesToTheHostAndReleasesTheOwnerAtOnce) {
  EMBER_CUDA_OR_SKIP(cuda);
  if (SuiteOnCpu()) GTEST_SKIP() << "host memory on the CPU is borrowed, not copied";
  auto releases = std::make_shared<std::atomic<int>>(0);
  Tensor a = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}, cuda) - 1.0;
  TensorMemory m = Counted(ExportMemory(a.Permute({1, 0})), releases);
  EXPECT_NE(ImportCopyReason(m, {.device = Device::Cpu()}).find("goes to cpu"), std::string::npos);
  Tensor h = ImportMemory(std::move(m), {.device = Device::Cpu()});
  EXPECT_EQ(*releases, 1) << "a copy keeps no owner";
  EXPECT_EQ(h.device(), Device::Cpu());
  EXPECT_EQ(h.ToVector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  // copy=true on the memory's own device: a copy too, through the host.
  Tensor c = ImportMemory(ExportMemory(a), {.device = cuda, .copy = true});
  EXPECT_NE(ExportMemory(c).data, ExportMemory(a).data);
  EXPECT_EQ(c.ToVector<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

TEST_F(ImportMemoryGpu, RefusesDeviceMemoryNotAlignedToItsElements) {
  EMBER_CUDA_OR_SKIP(cuda);
  if (SuiteOnCpu()) GTEST_SKIP() << "host memory that is not aligned is copied";
  Tensor a = Tensor::FromVector<float>({1, 2, 3, 4}, {4}, cuda) + 1.0;
  TensorMemory m = ExportMemory(a);
  m.data = static_cast<std::byte*>(m.data) + 2;
  m.shape = {3};
  EXPECT_THROW(ImportMemory(m, {.device = cuda}), Error);
}

TEST_F(ImportMemoryGpu, EachThreadHasItsOwnNativeStream) {
  EMBER_CUDA_OR_SKIP(cuda);
  if (SuiteOnCpu()) {
    EXPECT_EQ(NativeStream(cuda), 0u);
    return;
  }
  const uintptr_t here = NativeStream(cuda);
  EXPECT_NE(here, 0u);
  EXPECT_EQ(NativeStream(cuda), here);
  uintptr_t there = 0;
  std::thread([&] { there = NativeStream(cuda); }).join();
  EXPECT_NE(there, 0u);
  EXPECT_NE(there, here);
  EXPECT_EQ(NativeStream(Device::Cpu()), 0u);
}

}  // namespace
}  // namespace ember::gpu

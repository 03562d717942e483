// The kernel cache on a GPU: compile, load and launch; memory hits; a store that is saved to,
// then loaded from by a fresh cache; a store's bad cubin is recompiled.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "engine/runtime/cuda/kernel_cache.h"
#include "engine/runtime/cuda/nvrtc_api.h"
#include "tests/runtime/cuda/cuda_test_util.h"

namespace ember::cuda {
namespace {

const KernelSource kFill = {.name = "ember_test_fill", .source = R"(
extern "C" __global__ void ember_test_fill(float* out, float value, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value + i;
}
)"};

// A KernelStore in memory, counting its calls.
class FakeStore final : public KernelStore {
 public:
  std::optional<std::vector<char>> Load(const KernelKey& key) override {
    ++loads;
    auto it = cubins.find(key.hash);
    if (it == cubins.end() || it->second.first != key) return std::nullopt;
    return it->second.second;
  }
  void Save(const KernelKey& key, std::span<const char> cubin,
            const KernelSource& kernel) override {
    ++saves;
    saved_names.push_back(kernel.name);
    cubins[key.hash] = {key, std::vector<char>(cubin.begin(), cubin.end())};
  }

  std::map<uint64_t, std::pair<KernelKey, std::vector<char>>> cubins;
  std::vector<std::string> saved_names;
  int loads = 0;
  int saves = 0;
};

class KernelCacheTest : public testing::CudaTest {
 protected:
  // Runs ember_test_fill over n floats and returns them.
  std::vector<float> Fill(CUfunction function, float value, int n) {
    ScopedContext scoped(*device_);
    const DeviceBlock block = allocator_->Allocate(n * sizeof(float), stream_->get());
    CUdeviceptr out = block.ptr;
    void* args[] = {&out, &value, &n};
    EMBER_CU(cuLaunchKernel, function, (n + 127) / 128, 1, 1, 128, 1, 1, 0, stream_->get(), args,
             nullptr);
    std::vector<std::byte> bytes = Read(block.ptr, n * sizeof(float));
    allocator_->Free(block);
    std::vector<float> values(n);
    std::memcpy(values.data(), bytes.data(), bytes.size());
    return values;
  }
};

TEST_F(KernelCacheTest, CompilesLaunchesAndHitsMemoryTheSecondTime) {
  KernelCache cache(device_);
  const CUfunction function = cache.Get(kFill);
  const std::vector<float> values = Fill(function, 10.0f, 1000);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(values[i], 10.0f + i) << i;

  EXPECT_EQ(cache.Get(kFill), function);
  const KernelCache::Stats stats = cache.stats();
  EXPECT_EQ(stats.compiled, 1u);
  EXPECT_EQ(stats.memory_hits, 1u);
  EXPECT_EQ(stats.loaded_from_store, 0u);
  EXPECT_GT(stats.compile_ms, 0.0);
}

TEST_F(KernelCacheTest, StoreIsSavedToThenLoadedFromByAFreshCache) {
  FakeStore store;
  {
    KernelCache cache(device_, &store);
    cache.Get(kFill);
    EXPECT_EQ(store.loads, 1);  // Asked first, found nothing.
    EXPECT_EQ(store.saves, 1);
    EXPECT_EQ(store.saved_names, std::vector<std::string>{"ember_test_fill"});
  }
  KernelCache fresh(device_, &store);
  const CUfunction function = fresh.Get(kFill);
  EXPECT_EQ(store.loads, 2);
  EXPECT_EQ(store.saves, 1);
  const KernelCache::Stats stats = fresh.stats();
  EXPECT_EQ(stats.loaded_from_store, 1u);
  EXPECT_EQ(stats.compiled, 0u);
  EXPECT_EQ(Fill(function, -1.0f, 5), (std::vector<float>{-1, 0, 1, 2, 3}));
}

TEST_F(KernelCacheTest, BadCubinFromTheStoreIsRecompiledAndSavedAgain) {
  FakeStore store;
  KernelCache cache(device_, &store);
  const KernelKey key = cache.KeyOf(kFill);
  store.cubins[key.hash] = {key, std::vector<char>(256, 'x')};
  const CUfunction function = cache.Get(kFill);
  const KernelCache::Stats stats = cache.stats();
  EXPECT_EQ(stats.store_rejected, 1u);
  EXPECT_EQ(stats.compiled, 1u);
  EXPECT_EQ(store.saves, 1);
  EXPECT_EQ(Fill(function, 0.5f, 3), (std::vector<float>{0.5f, 1.5f, 2.5f}));
}

TEST_F(KernelCacheTest, MissingFunctionNameThrows) {
  KernelCache cache(device_);
  const KernelSource wrong = {.name = "not_there", .source = kFill.source};
  try {
    cache.Get(wrong);
    FAIL() << "a function that is not in the module was returned";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), ::testing::HasSubstr("cuModuleGetFunction(not_there)"));
  }
}

TEST_F(KernelCacheTest, DifferentSourcesUnderOneNameAreDifferentKernels) {
  KernelCache cache(device_);
  KernelSource doubled = kFill;
  doubled.source.replace(doubled.source.find("value + i"), 9, "value * 2");
  const CUfunction a = cache.Get(kFill);
  const CUfunction b = cache.Get(doubled);
  EXPECT_NE(a, b);
  EXPECT_EQ(Fill(b, 3.0f, 2), (std::vector<float>{6.0f, 6.0f}));
}

}  // namespace
}  // namespace ember::cuda

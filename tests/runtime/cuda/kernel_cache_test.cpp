// The kernel cache on a GPU: compile, load and launch; memory hits; a store that is saved to,
// then loaded from by a fresh cache; a store's bad cubin is recompiled.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "engine/core/log.h"
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
  Lookup Load(const KernelBinaryKey& key) override {
    ++loads;
    if (damaged) return {.outcome = Lookup::Outcome::kDamaged};
    auto it = cubins.find(key.hash);
    if (it == cubins.end() || it->second.first != key) return {};
    return {.outcome = Lookup::Outcome::kFound, .tier = tier, .binary = it->second.second};
  }
  void Save(const KernelBinaryKey& key, std::span<const char> cubin, const KernelSource& kernel,
            std::string_view options, bool replace) override {
    ++saves;
    saved_names.push_back(kernel.name);
    saved_options = std::string(options);
    last_replace = replace;
    cubins[key.hash] = {key, std::vector<char>(cubin.begin(), cubin.end())};
  }
  void Abandon(const KernelBinaryKey&) override { ++abandoned; }
  void Used(const KernelBinaryKey&) override { ++used; }

  std::map<uint64_t, std::pair<KernelBinaryKey, std::vector<char>>> cubins;
  std::vector<std::string> saved_names;
  std::string saved_options;
  Tier tier = Tier::kSqlite;
  bool damaged = false;
  bool last_replace = false;
  int loads = 0;
  int used = 0;
  int saves = 0;
  int abandoned = 0;
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
  EXPECT_EQ(stats.loaded_from_sqlite + stats.loaded_from_shm, 0u);
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
    EXPECT_EQ(store.used, 0);  // a compile is a Save, not a use
    cache.Get(kFill);
    EXPECT_EQ(store.used, 1);  // a memory hit is a use (Note [Kernel links])
    EXPECT_EQ(store.loads, 1);
  }
  KernelCache fresh(device_, &store);
  const CUfunction function = fresh.Get(kFill);
  EXPECT_EQ(store.loads, 2);
  EXPECT_EQ(store.saves, 1);
  EXPECT_EQ(store.used, 2);  // a load from the store is a use too
  const KernelCache::Stats stats = fresh.stats();
  EXPECT_EQ(stats.loaded_from_sqlite, 1u);
  EXPECT_EQ(stats.compiled, 0u);
  EXPECT_EQ(Fill(function, -1.0f, 5), (std::vector<float>{-1, 0, 1, 2, 3}));
  EXPECT_EQ(store.saved_options, fresh.options_text());

  store.tier = KernelStore::Tier::kShm;
  KernelCache from_shm(device_, &store);
  from_shm.Get(kFill);
  EXPECT_EQ(from_shm.stats().loaded_from_shm, 1u);
  EXPECT_EQ(from_shm.stats().compiled, 0u);
}

TEST_F(KernelCacheTest, BadCubinFromTheStoreIsRecompiledAndReplaced) {
  FakeStore store;
  KernelCache cache(device_, &store);
  const KernelBinaryKey key = cache.KeyOf(kFill);
  store.cubins[key.hash] = {key, std::vector<char>(256, 'x')};
  const CUfunction function = cache.Get(kFill);
  const KernelCache::Stats stats = cache.stats();
  EXPECT_EQ(stats.rebuilt, 1u);
  EXPECT_EQ(stats.compiled, 1u);
  EXPECT_EQ(store.saves, 1);
  EXPECT_TRUE(store.last_replace);
  EXPECT_EQ(Fill(function, 0.5f, 3), (std::vector<float>{0.5f, 1.5f, 2.5f}));
}

// A real cubin for another GPU under this device's key (a database copied from another
// machine, a mislabelled row) is never handed to the driver: it is compiled again.
TEST_F(KernelCacheTest, ACubinForAnotherArchitectureIsNeverLoaded) {
  FakeStore store;
  KernelCache cache(device_, &store);
  const KernelBinaryKey key = cache.KeyOf(kFill);
  const std::string other = device_->arch() == "sm_80" ? "sm_90" : "sm_80";
  store.cubins[key.hash] = {key, CompileToCubin(kFill.source, "fill.cu", other, {})};
  ScopedLogCapture log(LogLevel::kBasic);
  const CUfunction function = cache.Get(kFill);
  EXPECT_EQ(cache.stats().rebuilt, 1u);
  EXPECT_EQ(cache.stats().loaded_from_sqlite, 0u);
  EXPECT_TRUE(store.last_replace);
  ASSERT_FALSE(log.messages().empty());
  EXPECT_THAT(log.messages()[0], ::testing::HasSubstr("built for " + other));
  EXPECT_EQ(Fill(function, 1.0f, 2), (std::vector<float>{1.0f, 2.0f}));
}

TEST_F(KernelCacheTest, ADamagedStoredBinaryIsCountedAndCompiledAgain) {
  FakeStore store;
  store.damaged = true;
  KernelCache cache(device_, &store);
  cache.Get(kFill);
  EXPECT_EQ(cache.stats().rebuilt, 1u);
  EXPECT_EQ(cache.stats().compiled, 1u);
  EXPECT_FALSE(store.last_replace);  // The damaged row is already gone.
}

TEST_F(KernelCacheTest, AKernelThatDoesNotCompileIsAbandonedInTheStore) {
  FakeStore store;
  KernelCache cache(device_, &store);
  EXPECT_THROW(cache.Get({.name = "broken", .source = "this is not CUDA"}), Error);
  EXPECT_EQ(store.abandoned, 1);
  EXPECT_EQ(store.saves, 0);
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

// The pieces of a GPU start that issue 43 moved off the op thread or out of the way: NVRTC found
// without loading it, one context per device, cuBLASLt readied on a thread of its own, and
// matmul epilogue choices kept as device facts. What needs no GPU runs everywhere.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "engine/runtime/cuda/backend/blas_warm_up.h"
#include "engine/runtime/cuda/backend/epilogue_choice_facts.h"
#include "engine/runtime/cuda/dynamic_library.h"
#include "engine/runtime/cuda/nvrtc_api.h"
#include "tests/runtime/cuda/cuda_test_util.h"

namespace ember::cuda {
namespace {

namespace fs = std::filesystem;

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

fs::path TempDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / (name + "-" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir;
}

TEST(LibraryFileFound, APathIsTheFileItself) {
  const fs::path dir = TempDir("ember-libfound");
  const fs::path lib = dir / "libember_probe.so.1";
  std::ofstream(lib) << "not really a library";
  EXPECT_TRUE(LibraryFileFound(lib.string()));
  EXPECT_FALSE(LibraryFileFound((dir / "libember_absent.so.1").string()));
  fs::remove_all(dir);
}

TEST(LibraryFileFound, ABareNameIsLookedForInLdLibraryPath) {
  const fs::path dir = TempDir("ember-libpath");
  std::ofstream(dir / "libember_probe_bare.so.7") << "x";
  EXPECT_FALSE(LibraryFileFound("libember_probe_bare.so.7"));
  {
    ScopedEnv path("LD_LIBRARY_PATH", "/nonexistent:" + dir.string());
    EXPECT_TRUE(LibraryFileFound("libember_probe_bare.so.7"));
    EXPECT_FALSE(LibraryFileFound("libember_probe_other.so.7"));
  }
  fs::remove_all(dir);
}

TEST(LibraryFileFound, TheSystemsOwnLibrariesAreFound) {
  // libc is in the linker's cache or a default folder on every Linux machine.
  EXPECT_TRUE(LibraryFileFound("libc.so.6"));
}

TEST(NvrtcMissing, AgreesWithLoadingIt) {
  std::string loaded_error;
  try {
    Nvrtc();
  } catch (const Error& e) {
    loaded_error = e.what();
  }
  if (loaded_error.empty()) {
    EXPECT_EQ(NvrtcMissing(), "") << "NVRTC loads from " << Nvrtc().library_path;
  } else if (!NvrtcMissing().empty()) {
    EXPECT_EQ(NvrtcMissing().rfind("NVRTC not found: looked for ", 0), 0u) << NvrtcMissing();
  }
}

TEST(NvrtcMissing, SaysWhereItLookedWhenNothingIsThere) {
  const fs::path empty = TempDir("ember-no-cuda");
  ScopedEnv home("CUDA_HOME", empty.string());
  // Whatever else is installed, the names it looked for are listed, the new root first.
  const std::string missing = NvrtcMissing();
  if (missing.empty()) GTEST_SKIP() << "NVRTC is installed elsewhere on this machine";
  EXPECT_NE(missing.find((empty / "lib64" / "libnvrtc.so").string()), std::string::npos) << missing;
  fs::remove_all(empty);
}

// A DeviceFactStore in memory that counts what it was asked.
class CountingFacts final : public DeviceFactStore {
 public:
  std::optional<std::string> Find(std::string_view name) override {
    ++finds;
    auto it = facts.find(std::string(name));
    if (it == facts.end()) return std::nullopt;
    return it->second;
  }
  void Remember(std::string_view name, std::string_view value) override {
    ++remembers;
    facts[std::string(name)] = std::string(value);
  }
  std::map<std::string, std::string> facts;
  int finds = 0;
  int remembers = 0;
};

EpilogueShapeClass SomeClass() {
  return {.device = "NVIDIA H100/sm_90/cublasLt-13.1.0",
          .dtype = DType::kF32,
          .kind = codegen::BlasEpilogueKind::kBiasRelu,
          .alpha = false,
          .m_log2 = 13,
          .n_log2 = 12,
          .k_log2 = 12,
          .batch_log2 = 0};
}

TEST(EpilogueChoiceFacts, EncodeAndDecodeRoundTrip) {
  const EpilogueChoice choice{
      .variant = EpilogueVariant::kCublasLt, .cublaslt_ms = 0.0125, .kernel_ms = 0.5};
  const std::optional<EpilogueChoice> back =
      FactEpilogueChoiceStore::Decode(FactEpilogueChoiceStore::Encode(choice));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->variant, EpilogueVariant::kCublasLt);
  EXPECT_DOUBLE_EQ(back->cublaslt_ms, 0.0125);
  EXPECT_DOUBLE_EQ(back->kernel_ms, 0.5);
  EXPECT_EQ(FactEpilogueChoiceStore::Decode("kernel 0 0")->variant, EpilogueVariant::kKernel);
}

TEST(EpilogueChoiceFacts, AValueThatDoesNotParseIsNothing) {
  for (const char* value : {"", "cublaslt", "cublaslt 1", "cublaslt 1 2 3", "fastest 1 2",
                            "cublaslt -1 2", "cublaslt nan 2", "cublaslt inf 2", "cublaslt 1x 2",
                            "kernel  1 2", "CUBLASLT 1 2", "cublaslt 1 2 "}) {
    EXPECT_FALSE(FactEpilogueChoiceStore::Decode(value).has_value()) << '"' << value << '"';
  }
}

TEST(EpilogueChoiceFacts, AChoiceIsRememberedAsAFactAndFoundByTheNextProcess) {
  CountingFacts facts;
  {
    FactEpilogueChoiceStore first;
    first.UseFacts(&facts);
    EXPECT_FALSE(first.Find(SomeClass()).has_value());
    first.Remember(SomeClass(), {.variant = EpilogueVariant::kCublasLt, .cublaslt_ms = 0.01});
  }
  ASSERT_EQ(facts.facts.size(), 1u);
  EXPECT_EQ(facts.facts.begin()->first,
            "matmul-epilogue NVIDIA H100/sm_90/cublasLt-13.1.0 f32 bias+relu m<=2^13 n<=2^12 "
            "k<=2^12 batch<=2^0");
  FactEpilogueChoiceStore second;  // another process: nothing in memory
  second.UseFacts(&facts);
  const int finds_before = facts.finds;
  ASSERT_TRUE(second.Find(SomeClass()).has_value());
  EXPECT_EQ(second.Find(SomeClass())->variant, EpilogueVariant::kCublasLt);
  EXPECT_EQ(facts.finds, finds_before + 1) << "the second Find is answered from memory";
}

TEST(EpilogueChoiceFacts, ADamagedFactIsMeasuredAgainAndReplaced) {
  CountingFacts facts;
  FactEpilogueChoiceStore store;
  store.UseFacts(&facts);
  facts.facts[FactEpilogueChoiceStore::FactName(SomeClass())] = "cublaslt fast";
  EXPECT_FALSE(store.Find(SomeClass()).has_value());
  store.Remember(SomeClass(), {.variant = EpilogueVariant::kKernel, .kernel_ms = 0.2});
  EXPECT_EQ(facts.facts[FactEpilogueChoiceStore::FactName(SomeClass())], "kernel 0 0.2");
}

TEST(EpilogueChoiceFacts, OtherClassesAreOtherFacts) {
  EpilogueShapeClass other = SomeClass();
  other.alpha = true;
  EXPECT_NE(FactEpilogueChoiceStore::FactName(SomeClass()),
            FactEpilogueChoiceStore::FactName(other));
  other = SomeClass();
  other.device = "NVIDIA H200/sm_90/cublasLt-13.1.0";
  EXPECT_NE(FactEpilogueChoiceStore::FactName(SomeClass()),
            FactEpilogueChoiceStore::FactName(other));
}

TEST(BlasWarmUp, ADeviceThatNeverOpensCancelsItCleanly) {
  // The backend's constructor throws before Begin when the device cannot be opened: the thread
  // (loading cuBLASLt, or waiting for Begin) must end and be joined, with nothing taken.
  for (int i = 0; i < 3; ++i) {
    BlasWarmUp warm_up;
  }
  BlasWarmUp warm_up;
  // Never begun: the probe's readings are not waited for (a relu epilogue asked for now runs
  // the generated kernel instead).
  if (!warm_up.done()) {
    EXPECT_FALSE(warm_up.Relu().has_value());
  }
}

class StartPathGpuTest : public testing::CudaTest {};

TEST_F(StartPathGpuTest, OpenHandsOutTheDeviceThatIsOpen) {
  const std::shared_ptr<CudaDevice> again = CudaDevice::Open(0);
  EXPECT_EQ(again.get(), device_.get());
  EXPECT_EQ(again->context(), device_->context());
  const CudaDevice::Identity identity = CudaDevice::Identify(0);
  EXPECT_EQ(identity.name, device_->name());
  EXPECT_EQ(identity.capability, device_->compute_capability());
}

TEST_F(StartPathGpuTest, TheWarmUpHandsOverAHandleAndTheReluProbe) {
  BlasWarmUp warm_up;
  warm_up.Begin(allocator_, stream_->get());
  std::unique_ptr<BlasLt> blas = warm_up.TakeBlas();  // the handle, before the probe ends
  ASSERT_NE(blas, nullptr);
  warm_up.Wait();
  ASSERT_TRUE(warm_up.done());
  const std::optional<ReluProbeReadings> relu = warm_up.Relu();
  ASSERT_TRUE(relu.has_value());
  EXPECT_EQ(relu->two, 2.0f);
  EXPECT_EQ(relu->minus_three, 0.0f);
  EXPECT_EQ(relu->minus_zero, 0.0f);
  EXPECT_EQ(warm_up.TakeBlas(), nullptr) << "taken once";
  EXPECT_GT(warm_up.work_ms(), 0.0);
  // The handle works on the caller's thread.
  const ReluProbeReadings again = ProbeBlasRelu(*blas, *allocator_, stream_->get());
  EXPECT_EQ(again.two, 2.0f);
}

}  // namespace
}  // namespace ember::cuda

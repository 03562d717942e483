// The driver and device layer: what a machine without a driver or a GPU is told, and the
// error texts every CUDA failure is reported with.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/runtime/cuda/cuda_device.h"
#include "engine/runtime/cuda/driver_api.h"
#include "engine/runtime/cuda/dynamic_library.h"
#include "tests/runtime/cuda/cuda_test_util.h"

namespace ember::cuda {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// The reason the driver cannot be loaded here, or "" when it can.
std::string DriverProblem() {
  try {
    Driver();
    return "";
  } catch (const Error& error) {
    return error.what();
  }
}

TEST(CudaDriver, MissingDriverIsReportedWithTheDlopenError) {
  const std::string problem = DriverProblem();
  if (problem.empty()) {
    GTEST_SKIP() << "a CUDA driver is installed (" << Driver().library_path
                 << "): the no-driver message cannot be seen here";
  }
  EXPECT_THAT(problem, StartsWith("no CUDA driver on this machine (dlopen libcuda.so.1: "));
  EXPECT_THAT(problem, HasSubstr("libcuda.so.1"));
  // Every later call says the same.
  EXPECT_EQ(DriverProblem(), problem);
}

TEST(CudaDriver, LoadedDriverHasEveryFunction) {
  if (!DriverProblem().empty()) GTEST_SKIP() << "no CUDA driver: " << DriverProblem();
  const DriverApi& api = Driver();
  EXPECT_NE(api.cuMemAlloc, nullptr);
  EXPECT_NE(api.cuLaunchKernel, nullptr);
  EXPECT_GE(api.version, 13000);
}

TEST(CudaDriver, CudaErrorNamesTheCallAndTheResult) {
  const CudaError error(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc");
  EXPECT_EQ(error.result(), CUDA_ERROR_OUT_OF_MEMORY);
  if (DriverProblem().empty()) {
    EXPECT_STREQ(error.what(), "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)");
  } else {
    // Without a driver nothing can name the code; the number still says which it was.
    EXPECT_STREQ(error.what(), "cuMemAlloc: CUresult 2");
  }
  EXPECT_NO_THROW(CheckCu(CUDA_SUCCESS, "cuInit"));
  EXPECT_THROW(CheckCu(CUDA_ERROR_INVALID_VALUE, "cuInit"), CudaError);
}

TEST(CudaDevice, OpenSaysWhyTheDeviceIsUnusable) {
  const std::string probe = CudaDevice::Probe(0);
  const std::string driver_problem = DriverProblem();
  if (!driver_problem.empty()) {
    EXPECT_EQ(probe, driver_problem);
    try {
      CudaDevice::Open(0);
      FAIL() << "Open(0) succeeded without a driver";
    } catch (const Error& error) {
      EXPECT_EQ(error.what(), driver_problem);
    }
    return;
  }
  if (!probe.empty()) {
    // A driver but no usable device: cuInit's failure, said plainly.
    EXPECT_THAT(probe, ::testing::AnyOf(StartsWith("no CUDA device on this machine"),
                                        HasSubstr("failed to initialize")));
    return;
  }
  GTEST_SKIP() << "cuda:0 is usable; CudaDevice.OutOfRangeOrdinalNamesTheDevices checks the "
                  "errors here";
}

TEST(CudaDevice, OutOfRangeOrdinalNamesTheDevices) {
  std::string why;
  if (testing::TestDevice(&why) == nullptr) GTEST_SKIP() << "needs a CUDA device: " << why;
  const int count = CudaDevice::Count();
  const std::string devices =
      count == 1 ? "1 CUDA device (cuda:0)"
                 : std::to_string(count) +
                       " CUDA devices (cuda:0 to cuda:" + std::to_string(count - 1) + ")";
  EXPECT_EQ(CudaDevice::Probe(count),
            "cuda:" + std::to_string(count) + " requested but this machine has " + devices);
  EXPECT_THROW(CudaDevice::Open(-1), Error);
}

TEST(CudaDevice, AccessorsDescribeTheDevice) {
  std::string why;
  const std::shared_ptr<CudaDevice> device = testing::TestDevice(&why);
  if (device == nullptr) GTEST_SKIP() << "needs a CUDA device: " << why;
  EXPECT_FALSE(device->name().empty());
  const ComputeCapability cc = device->compute_capability();
  EXPECT_EQ(device->arch(), "sm_" + std::to_string(cc.major) + std::to_string(cc.minor));
  EXPECT_GT(device->multiprocessors(), 0);
  EXPECT_GE(device->max_shared_memory_per_block_optin(), device->max_shared_memory_per_block());
  EXPECT_GT(device->total_memory(), size_t{1} << 30);
  EXPECT_THAT(device->Describe(), StartsWith("cuda:0 (" + device->name() + ", "));
}

TEST(CudaDevice, ScopedContextRestoresThePreviousContext) {
  std::string why;
  const std::shared_ptr<CudaDevice> device = testing::TestDevice(&why);
  if (device == nullptr) GTEST_SKIP() << "needs a CUDA device: " << why;
  EMBER_CU(cuCtxSetCurrent, nullptr);
  {
    ScopedContext scoped(*device);
    CUcontext current = nullptr;
    EMBER_CU(cuCtxGetCurrent, &current);
    EXPECT_EQ(current, device->context());
  }
  CUcontext after = nullptr;
  EMBER_CU(cuCtxGetCurrent, &after);
  EXPECT_EQ(after, nullptr);
}

TEST(DynamicLibrary, FailureListsEveryCandidate) {
  const std::string candidates[] = {"libember-absent-1.so", "/nonexistent/libember-absent-2.so"};
  std::string why;
  EXPECT_FALSE(DynamicLibrary::Open(candidates, &why).has_value());
  EXPECT_THAT(why, HasSubstr("libember-absent-1.so"));
  EXPECT_THAT(why, HasSubstr("/nonexistent/libember-absent-2.so"));
}

TEST(DynamicLibrary, CudaHomeIsSearchedBeforeTheSystem) {
  const std::filesystem::path home =
      std::filesystem::temp_directory_path() / ("ember-cuda-home-" + std::to_string(getpid()));
  std::filesystem::create_directories(home);
  const char* previous = std::getenv("CUDA_HOME");
  const std::string saved = previous != nullptr ? previous : "";
  setenv("CUDA_HOME", home.c_str(), 1);
  const std::vector<std::string> candidates = ToolkitLibraryCandidates("libx.so.1", "libx.so");
  if (previous != nullptr) {
    setenv("CUDA_HOME", saved.c_str(), 1);
  } else {
    unsetenv("CUDA_HOME");
  }
  std::filesystem::remove_all(home);

  ASSERT_GE(candidates.size(), 6u);
  EXPECT_EQ(candidates[0], home.string() + "/lib64/libx.so.1");
  EXPECT_EQ(candidates[1], home.string() + "/lib64/libx.so");
  EXPECT_EQ(candidates[2], home.string() + "/lib/libx.so.1");
  EXPECT_EQ(candidates[4], "libx.so.1");
  EXPECT_EQ(candidates[5], "libx.so");
}

}  // namespace
}  // namespace ember::cuda

// Note [Lost context] (engine/runtime/cuda/backend/cuda_backend.cpp): after a kernel faults,
// the CUDA context is gone for good. The engine must say so, naming the first error, on every
// later operation of the device, and never hand back values from dead memory. The fault is a
// kernel that traps, launched in the device's primary context (the one the backend and every
// other CUDA user of the process share), in a child process: the context of the process that
// runs it is lost for the rest of its life, so the tests' own process must not be the one.
#include <cstdio>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "engine/runtime/cuda/cuda_device.h"
#include "engine/runtime/cuda/driver_api.h"
#include "engine/runtime/cuda/kernel_cache.h"
#include "tests/common/process.h"
#include "tests/common/temp_dir.h"
#include "tests/gpu/gpu_test_util.h"

namespace ember::gpu {
namespace {

using ::testing::HasSubstr;

// Faults the primary context of cuda:0 from outside the engine and waits for the fault.
void TrapOnTheDevice() {
  const std::shared_ptr<cuda::CudaDevice> device = cuda::CudaDevice::Open(0);
  cuda::ScopedContext scoped(*device);
  cuda::KernelCache kernels(device);
  const CUfunction trap = kernels.Get({.name = "ember_test_trap",
                                       .source = "extern \"C\" __global__ void "
                                                 "ember_test_trap() { __trap(); }"});
  ASSERT_EQ(cuda::Driver().cuLaunchKernel(trap, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr),
            CUDA_SUCCESS);
  const CUresult synced = cuda::Driver().cuCtxSynchronize();
  ASSERT_TRUE(cuda::LosesContext(synced)) << cuda::CuResultText(synced);
}

// The child: a tensor computed before the fault, then ops after it. Each failure must be the
// engine's error naming the lost device, the same for every later op; nothing may read back.
TEST(LostContextGpu, DISABLED_Child) {
  Device cuda = Device::Cpu();
  ASSERT_FALSE(CudaUnavailable(&cuda).has_value());
  Tensor x = Tensor::FromVector(std::vector<float>{1, 2, 3, 4}, {4}, DType::kF32, cuda);
  EXPECT_EQ((x * 2.0).ToVector<float>(), (std::vector<float>{2, 4, 6, 8}));
  TrapOnTheDevice();

  std::vector<std::string> errors;
  for (int i = 0; i < 3; ++i) {
    try {
      std::vector<float> values = ((x + 1.0) * static_cast<double>(i)).Exp().ToVector<float>();
      ADD_FAILURE() << "op " << i << " after the fault returned " << values.size() << " values";
    } catch (const Error& e) {
      errors.push_back(e.what());
    }
  }
  ASSERT_EQ(errors.size(), 3u);
  for (const std::string& error : errors) {
    EXPECT_THAT(error, HasSubstr("cuda:0 is lost"));
    EXPECT_THAT(error, HasSubstr("restart the process"));
  }
  // The first error is the one every later op reports (not a new driver error per op).
  const size_t lost = errors[0].find("cuda:0 is lost");
  ASSERT_NE(lost, std::string::npos) << errors[0];
  EXPECT_THAT(errors[2], HasSubstr(errors[0].substr(lost)));
  std::printf("[lost-context] %s\n", errors[0].c_str());
}

TEST(LostContextGpu, EveryOpAfterAFaultNamesTheLostDevice) {
  EMBER_CUDA_OR_SKIP(cuda);
  if (SuiteOnCpu()) GTEST_SKIP() << "faults a CUDA context; nothing to check on the CPU";
  test::TempDir dir;
  const std::string out = dir.File("child.out");
  const pid_t child = test::SpawnTestChild("LostContextGpu.DISABLED_Child", {"EMBER_PLAN_DB=off"},
                                           {.out_file = out, .err_file = dir.File("child.err")});
  ASSERT_GT(child, 0);
  const int code = test::WaitChild(child);
  const std::string text = test::ReadFile(out);
  EXPECT_EQ(code, 0) << text << test::ReadFile(dir.File("child.err"));
  EXPECT_THAT(text, HasSubstr("[lost-context] "));
  EXPECT_THAT(text, HasSubstr("cuda:0 is lost: "));
}

}  // namespace
}  // namespace ember::gpu

// Helpers for the CUDA runtime tests. Tests that need a GPU call RequireDevice() first and are
// skipped, with the reason shown, on a machine without one (the CI machines): they run on a
// GPU machine. Tests of what needs no GPU (NVRTC, keys, error texts) run everywhere.
#pragma once

#include <cuda.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/runtime/cuda/cuda_device.h"
#include "engine/runtime/cuda/cuda_stream.h"
#include "engine/runtime/cuda/device_allocator.h"
#include "engine/runtime/cuda/driver_api.h"

namespace ember::cuda::testing {

// cuda:0, opened once for the whole binary (so its context is created once), or nullptr with
// the reason in `*why`.
inline std::shared_ptr<CudaDevice> TestDevice(std::string* why) {
  static const std::string reason = CudaDevice::Probe(0);
  static const std::shared_ptr<CudaDevice> device = reason.empty() ? CudaDevice::Open(0) : nullptr;
  *why = reason;
  return device;
}

// A test that needs a GPU: a device, a stream and an allocator on it (poison off unless asked).
class CudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    device_ = TestDevice(&why);
    if (device_ == nullptr) GTEST_SKIP() << "needs a CUDA device: " << why;
    stream_ = std::make_shared<CudaStream>(device_);
    allocator_ = std::make_shared<DeviceAllocator>(device_, /*poison=*/false);
  }

  // Reads `bytes` bytes at `ptr` synchronously (no staging: the tests check staging itself).
  std::vector<std::byte> Read(CUdeviceptr ptr, size_t bytes) const {
    ScopedContext scoped(*device_);
    std::vector<std::byte> host(bytes);
    EMBER_CU(cuMemcpyDtoHAsync, host.data(), ptr, bytes, stream_->get());
    stream_->Synchronize();
    return host;
  }

  std::shared_ptr<CudaDevice> device_;
  std::shared_ptr<CudaStream> stream_;
  std::shared_ptr<DeviceAllocator> allocator_;
};

}  // namespace ember::cuda::testing

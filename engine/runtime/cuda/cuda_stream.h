// CudaStream: one CUDA stream of a device, owned. The CUDA backend has one per ember stream
// (README.md beside this file, "One stream per ember stream").
//
// The stream is non-blocking: it does not wait for the legacy default stream, so work that
// another library queues there does not serialize with ember's.
// Threading: one user at a time, like the backend that owns it.
#pragma once

#include <cuda.h>

#include <memory>

#include "engine/runtime/cuda/cuda_device.h"

namespace ember::cuda {

class CudaStream {
 public:
  explicit CudaStream(std::shared_ptr<CudaDevice> device);
  ~CudaStream();
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  CUstream get() const { return stream_; }
  const std::shared_ptr<CudaDevice>& device() const { return device_; }
  // Waits for everything queued so far; throws CudaError when queued work failed.
  void Synchronize() const;

 private:
  std::shared_ptr<CudaDevice> device_;
  CUstream stream_ = nullptr;
};

}  // namespace ember::cuda

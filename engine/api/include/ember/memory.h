// Tensor memory for zero-copy exchange (DLPack, NumPy, PyTorch). Part of the public API.
//
// ExportMemory hands out the computed buffer of a tensor instead of a copy (ToVector): a
// pointer, the shape and strides, and an owner that keeps the buffer alive. While any copy of
// the owner is held, ember never writes that buffer in place (an op reuses a last-use input's
// buffer only when nothing else shares it), so the memory reads the tensor's values until the
// owner goes. Writing through the pointer is the caller's business: ember assumes it does not.
//
// Threads: callable from any thread, like ToVector; the owner may be released on any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <ember/device.h>
#include <ember/dtype.h>
#include <ember/tensor.h>

namespace ember {

struct TensorMemory {
  // Element [0, …, 0]: a host pointer on the CPU, a device pointer (CUdeviceptr) on CUDA.
  void* data = nullptr;
  std::vector<int64_t> shape;
  // In elements, not bytes; 0 for a broadcast dim; row-major strides for a contiguous tensor.
  std::vector<int64_t> strides;
  DType dtype = DType::kF32;
  Device device = Device::Cpu();
  // Keeps the buffer alive; releasing the last copy gives it back to the device's engine.
  std::shared_ptr<const void> owner;
};

// The computed memory of `t`. A sync point, exactly as ToVector: the calling thread's pending
// ops that produce `t` run first, and the device has finished writing it when this returns.
// Throws ember::Error for an empty tensor, a released device, or a tensor whose op failed.
TensorMemory ExportMemory(const Tensor& t);

}  // namespace ember

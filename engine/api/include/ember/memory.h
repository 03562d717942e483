// Tensor memory for zero-copy exchange (DLPack, NumPy, PyTorch). Part of the public API.
//
// ExportMemory hands out the computed buffer of a tensor instead of a copy (ToVector): a
// pointer, the shape and strides, and an owner that keeps the buffer alive. While any copy of
// the owner is held, ember never writes that buffer in place (an op reuses a last-use input's
// buffer only when nothing else shares it), so the memory reads the tensor's values until the
// owner goes. Writing through the pointer is the caller's business: ember assumes it does not.
//
// ImportMemory is the other way: a tensor over someone else's host or device memory, borrowed
// without a copy where ember can read it as it is (ImportCopyReason says when not, and then it
// copies).
// A borrowed tensor aliases the memory: ember reads it when the ops that read the tensor run
// (they are lazy), so a write by the producer before then is seen by them; ember itself never
// writes borrowed memory, not even for the in-place reuse of a last use.
//
// Threads: callable from any thread, like ToVector; an exported owner may be released on any
// thread. An imported owner is released by ember on any thread (see ImportMemory).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
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
  // Keeps the memory alive. Exported: releasing the last copy gives the buffer back to the
  // device's engine. Imported: ember holds it while a tensor borrows the memory.
  std::shared_ptr<const void> owner;
};

// The computed memory of `t`. A sync point, exactly as ToVector: the calling thread's pending
// ops that produce `t` run first, and the device has finished writing it when this returns.
// Throws ember::Error for an empty tensor, a released device, or a tensor whose op failed.
TensorMemory ExportMemory(const Tensor& t);

// How ImportMemory takes memory.
struct ImportMemoryOptions {
  // The tensor's device: only the CPU borrows host memory, only memory's own CUDA device
  // borrows device memory.
  Device device = Device::Cpu();
  bool copy = false;  // copy even memory that could be borrowed
};

// Why ImportMemory(memory, options) would copy `memory` rather than borrow it ("" when it
// borrows): a copy was asked for, the tensor goes to another device than the memory's, or host
// data (element [0, …, 0]) is not aligned to the element size. Any strides are borrowed,
// negative, zero (broadcast) or with gaps; the kernels need no more alignment than the
// element's.
std::string ImportCopyReason(const TensorMemory& memory, const ImportMemoryOptions& options = {});

// A tensor of `memory`'s elements (empty strides mean row-major) on options.device, borrowed
// where ImportCopyReason is "" and copied otherwise. memory.data is a host pointer when
// memory.device is the CPU, and a device address (CUdeviceptr) in the device's primary
// context, the one ember, PyTorch and CuPy share, when it is a CUDA device.
//  - Borrowed: the tensor reads the memory itself, and ember keeps memory.owner until the
//    last tensor, view or export that reads the memory is gone and, for device memory, the
//    device has finished the kernels that read it (Note [Borrowed device memory],
//    engine/runtime/cuda/borrowed_owners.h). The memory must stay valid and must not be freed
//    while the owner is held; writing it meanwhile changes what the tensor's later reads see.
//    ember releases the owner on whichever thread drops the last reference or collects it,
//    possibly an ember worker thread that holds the device's internal lock: the owner's
//    deleter must not call ember, nor wait for a thread that may be calling it (the Python
//    module defers its releases to a thread holding the GIL for that reason).
//  - Device memory must be ready for the calling thread's work on its device: the producer's
//    writes are complete, or ordered before NativeStream(memory.device) (DLPack's
//    `__dlpack__(stream=...)` does that).
//  - Copied: the elements are read (in their strided order) before this returns, and the
//    owner is released on the calling thread before it returns. Device memory is read through
//    the host (a sync point of the calling thread's stream on that device, as ToVector).
// A host bool element must be the byte 0 or 1. Throws ember::Error for a null pointer, device
// memory not aligned to its element size, a shape with a zero dim or more than 2^40 elements,
// strides that do not match the shape's rank or whose extent overflows, a host bool byte
// other than 0 or 1, or an unusable memory.device or options.device. Callable from any
// thread, like Tensor::FromBytes.
Tensor ImportMemory(TensorMemory memory, const ImportMemoryOptions& options = {});

// The native queue that the calling thread's work on `device` runs on, as an integer: its
// CUstream on a CUDA device (one per thread, created on first use), 0 on the CPU. A producer
// of device memory orders its writes before it (an event recorded on its own stream and
// cuStreamWaitEvent on this one) before ImportMemory borrows the memory, without a host wait.
// Throws ember::Error for an unusable device.
uintptr_t NativeStream(Device device);

}  // namespace ember

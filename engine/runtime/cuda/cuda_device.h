// CudaDevice: one GPU, opened through the driver (driver_api.h), holding its primary context
// for as long as the object lives. What the code generator and the allocator need to know
// about the device is read once at Open.
//
// Contexts: the primary context is the one every library in the process shares (cuBLASLt,
// other frameworks), so ember retains it instead of creating its own. A context is current
// per thread, and backends are called from arbitrary threads (one at a time), so every entry
// point that calls the driver makes it current first with a ScopedContext.
//
// Threading: the accessors are const and may be called from any thread.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <memory>
#include <string>

namespace ember::cuda {

struct ComputeCapability {
  int major = 0;
  int minor = 0;
  bool operator==(const ComputeCapability&) const = default;
};

class CudaDevice {
 public:
  // Opens cuda:<ordinal> and retains its primary context. Throws ember::Error saying why it
  // cannot: no driver, the driver failed to initialize ("no CUDA device on this machine" for
  // CUDA_ERROR_NO_DEVICE), or the ordinal is out of range ("cuda:3 requested but this machine
  // has 1 CUDA device (cuda:0)"). While an opened device is alive, Open(ordinal) returns that
  // one (Note [One context per device], cuda_device.cpp).
  static std::shared_ptr<CudaDevice> Open(int ordinal);

  // Why cuda:<ordinal> cannot be opened, or "" when it can; never throws. Cheaper than Open (no
  // context is created), for `--device auto` to fall back to the CPU and say why.
  static std::string Probe(int ordinal);

  // What cuda:<ordinal> is (name and compute capability), read from the driver without
  // creating a context (what the plan database's environment needs, so that opening the
  // database does not wait for the context). Throws like Open.
  struct Identity {
    std::string name;
    ComputeCapability capability;
  };
  static Identity Identify(int ordinal);

  // The number of devices the driver sees. Throws like Open when there is no usable driver.
  static int Count();

  ~CudaDevice();
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  int ordinal() const { return ordinal_; }
  CUdevice device() const { return device_; }
  CUcontext context() const { return context_; }
  // "NVIDIA H200".
  const std::string& name() const { return name_; }
  ComputeCapability compute_capability() const { return capability_; }
  // The NVRTC target for real machine code: "sm_90".
  std::string arch() const;
  int multiprocessors() const { return multiprocessors_; }
  // Shared memory per block without opting in (48 KiB), and the most a kernel may opt into
  // with cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES).
  size_t max_shared_memory_per_block() const { return shared_per_block_; }
  size_t max_shared_memory_per_block_optin() const { return shared_per_block_optin_; }
  size_t total_memory() const { return total_memory_; }
  // A multiprocessor's register file (32-bit registers) and the most threads and blocks it
  // holds.
  int registers_per_multiprocessor() const { return registers_per_sm_; }
  int threads_per_multiprocessor() const { return threads_per_sm_; }
  int blocks_per_multiprocessor() const { return blocks_per_sm_; }
  // "cuda:0 (NVIDIA H200, sm_90, 132 SMs, 139.8 GiB)", for logs and tool output.
  std::string Describe() const;

  // Makes this device's context current on the calling thread (and leaves it so).
  void MakeCurrent() const;

 private:
  CudaDevice() = default;
  static std::shared_ptr<CudaDevice> OpenNew(int ordinal);
  static Identity IdentityOf(CUdevice device);

  int ordinal_ = 0;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  std::string name_;
  ComputeCapability capability_;
  int multiprocessors_ = 0;
  size_t shared_per_block_ = 0;
  size_t shared_per_block_optin_ = 0;
  size_t total_memory_ = 0;
  int registers_per_sm_ = 0;
  int threads_per_sm_ = 0;
  int blocks_per_sm_ = 0;
};

// Makes `device`'s context current on this thread for the scope, then restores whichever
// context was current before (often none), so ember leaves a caller's thread as it found it.
class ScopedContext {
 public:
  explicit ScopedContext(const CudaDevice& device);
  ~ScopedContext();
  ScopedContext(const ScopedContext&) = delete;
  ScopedContext& operator=(const ScopedContext&) = delete;

 private:
  CUcontext previous_ = nullptr;
  bool switched_ = false;
};

}  // namespace ember::cuda

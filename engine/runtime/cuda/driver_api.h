// DriverApi: the CUDA driver's functions, loaded from libcuda.so.1 with dlopen on first use.
// ember never links libcuda (README.md beside this file, "The dlopen rule"), so a binary built
// with EMBER_WITH_CUDA runs on a machine without a GPU or a driver and says why CUDA is
// unavailable instead of failing to start.
//
// Each field is named after the function in cuda.h and has its type. cuda.h #defines many names
// to versioned ones (cuMemAlloc is cuMemAlloc_v2); the field's name goes through the same macro,
// so `Driver().cuMemAlloc(...)` calls the symbol the header means, which is the one loaded.
//
// Threading: Driver() may be called from any thread; the first call loads, the others wait for
// it. The table never changes afterwards and is never unloaded.
#pragma once

#include <cuda.h>

#include <string>
#include <string_view>

#include "ember/error.h"

namespace ember::cuda {

// X(name) for each driver function ember calls. A function added here is loaded and checked
// at the first Driver() call: a driver that lacks it is reported as too old.
#define EMBER_CUDA_DRIVER_FUNCTIONS(X)           \
  X(cuInit)                                      \
  X(cuDriverGetVersion)                          \
  X(cuGetErrorName)                              \
  X(cuGetErrorString)                            \
  X(cuDeviceGetCount)                            \
  X(cuDeviceGet)                                 \
  X(cuDeviceGetName)                             \
  X(cuDeviceGetAttribute)                        \
  X(cuDeviceTotalMem)                            \
  X(cuDevicePrimaryCtxRetain)                    \
  X(cuDevicePrimaryCtxRelease)                   \
  X(cuCtxSetCurrent)                             \
  X(cuCtxGetCurrent)                             \
  X(cuCtxSynchronize)                            \
  X(cuStreamCreate)                              \
  X(cuStreamDestroy)                             \
  X(cuStreamSynchronize)                         \
  X(cuStreamQuery)                               \
  X(cuStreamWaitEvent)                           \
  X(cuEventCreate)                               \
  X(cuEventRecord)                               \
  X(cuEventQuery)                                \
  X(cuEventSynchronize)                          \
  X(cuEventElapsedTime)                          \
  X(cuEventDestroy)                              \
  X(cuMemAlloc)                                  \
  X(cuMemFree)                                   \
  X(cuMemGetInfo)                                \
  X(cuMemcpyHtoDAsync)                           \
  X(cuMemcpyDtoHAsync)                           \
  X(cuMemcpyDtoDAsync)                           \
  X(cuMemsetD8Async)                             \
  X(cuMemsetD16Async)                            \
  X(cuMemsetD32Async)                            \
  X(cuMemHostAlloc)                              \
  X(cuMemFreeHost)                               \
  X(cuModuleLoadData)                            \
  X(cuModuleUnload)                              \
  X(cuModuleGetFunction)                         \
  X(cuFuncSetAttribute)                          \
  X(cuFuncGetAttribute)                          \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor) \
  X(cuLaunchKernel)                              \
  X(cuGraphCreate)                               \
  X(cuGraphDestroy)                              \
  X(cuGraphAddKernelNode)                        \
  X(cuGraphInstantiate)                          \
  X(cuGraphExecDestroy)                          \
  X(cuGraphExecKernelNodeSetParams)              \
  X(cuGraphLaunch)

struct DriverApi {
#define EMBER_CUDA_DECLARE_FIELD(name) decltype(&::name) name = nullptr;
  EMBER_CUDA_DRIVER_FUNCTIONS(EMBER_CUDA_DECLARE_FIELD)
#undef EMBER_CUDA_DECLARE_FIELD

  // The file that was opened, and cuDriverGetVersion's value (13000 for CUDA 13.0).
  std::string library_path;
  int version = 0;
};

// The driver's table, loaded on the first call. Throws ember::Error when there is no driver
// ("no CUDA driver on this machine (dlopen libcuda.so.1: ...)") or it lacks a function ember
// needs (the driver is older than the headers ember was built with); every later call throws
// the same message.
const DriverApi& Driver();

// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)", or "CUresult 12345" when the driver cannot name it.
std::string CuResultText(CUresult result);

// A driver call that failed: the message names the call and the result, and result() keeps it
// for callers that react to one (out of memory, no device).
class CudaError : public Error {
 public:
  CudaError(CUresult result, std::string_view call);
  CUresult result() const { return result_; }

 private:
  CUresult result_;
};

// Whether `result` is one of the errors after which the context is unusable ("sticky": a kernel
// faulted, trapped or timed out, or the hardware failed): every later call in the context
// returns an error, and only destroying the context (and all memory in it) recovers. The list
// is cuda.h's documentation of each code ("the context cannot be used ... must terminate").
bool LosesContext(CUresult result);

// Throws CudaError("<call>: <CuResultText>") unless `result` is CUDA_SUCCESS.
inline void CheckCu(CUresult result, std::string_view call) {
  if (result != CUDA_SUCCESS) [[unlikely]] {
    throw CudaError(result, call);
  }
}

// For destructors, which must not throw: a failure is written once per call site as a warning
// (ember::Warn), except CUDA_ERROR_DEINITIALIZED, which only means the process is exiting and
// the driver has already released everything.
void WarnCu(CUresult result, std::string_view call);

}  // namespace ember::cuda

// EMBER_CU(cuMemAlloc, &ptr, bytes): calls Driver().cuMemAlloc(&ptr, bytes) and throws a
// CudaError naming "cuMemAlloc" when it fails. EMBER_CU_WARN is the same for destructors.
#define EMBER_CU(function, ...) \
  ::ember::cuda::CheckCu(::ember::cuda::Driver().function(__VA_ARGS__), #function)
#define EMBER_CU_WARN(function, ...) \
  ::ember::cuda::WarnCu(::ember::cuda::Driver().function(__VA_ARGS__), #function)

// ember-floor-probe: the floor under every GPU first-result figure (issue 43). What any CUDA
// program pays before its first result, with nothing of ember in it: the driver loaded, cuInit,
// the primary context retained and made current, and one empty kernel (the PTX below, compiled
// by the driver's JIT) loaded, launched and synchronized. bench/gpu/first-result.sh runs it
// before and after the first-result runs of ember and torch, so that "floor + N ms" is measured
// in one call, on one machine.
//
//   ember-floor-probe
//
// Prints one JSON line: main_unix_ns (the system clock at the top of main, from which the
// script subtracts its own clock taken just before exec), device (the name of device 0), and
// milliseconds from the top of main (steady clock) when each stage is done: driver_loaded_ms
// (dlopen and dlsym), cu_init_ms, context_ms, module_ms (the PTX loaded), kernel_ms (launched
// and synchronized). Without a driver or a device it says so on stderr and exits with 1.
//
// Nothing CUDA is linked: libcuda.so.1 is opened with dlopen, as engine/runtime/cuda/
// driver_api.cpp does; cuda.h gives the types and the versioned symbol names only.
#include <cuda.h>
#include <dlfcn.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

// The symbol a name in cuda.h stands for: the argument is macro-expanded before it reaches the
// inner #, so PROBE_SYMBOL(cuDevicePrimaryCtxRelease) is "cuDevicePrimaryCtxRelease_v2".
#define PROBE_SYMBOL_TEXT(symbol) #symbol
#define PROBE_SYMBOL(name) PROBE_SYMBOL_TEXT(name)

#define PROBE_DRIVER_FUNCTIONS(X) \
  X(cuInit)                       \
  X(cuDeviceGet)                  \
  X(cuDeviceGetName)              \
  X(cuDevicePrimaryCtxRetain)     \
  X(cuCtxSetCurrent)              \
  X(cuModuleLoadData)             \
  X(cuModuleGetFunction)          \
  X(cuLaunchKernel)               \
  X(cuCtxSynchronize)             \
  X(cuDevicePrimaryCtxRelease)    \
  X(cuGetErrorString)

namespace {

using Clock = std::chrono::steady_clock;

// An empty kernel: the least a first result can need. PTX ISA 7.0 (CUDA 11.0) for sm_50, which
// every driver since 450 compiles for any later GPU.
constexpr const char kPtx[] = R"(
.version 7.0
.target sm_50
.address_size 64
.visible .entry ember_floor_probe()
{
  ret;
}
)";

struct Driver {
#define PROBE_FIELD(name) decltype(&::name) name = nullptr;
  PROBE_DRIVER_FUNCTIONS(PROBE_FIELD)
#undef PROBE_FIELD
};

[[noreturn]] void Fail(const std::string& message) {
  std::fprintf(stderr, "ember-floor-probe: %s\n", message.c_str());
  std::exit(1);
}

Driver LoadDriver() {
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    Fail(std::string("no CUDA driver on this machine: dlopen libcuda.so.1: ") +
         (why != nullptr ? why : "unknown error"));
  }
  Driver d;
  std::string missing;
#define PROBE_LOAD(name)                                                          \
  d.name = reinterpret_cast<decltype(d.name)>(dlsym(handle, PROBE_SYMBOL(name))); \
  if (d.name == nullptr) missing += std::string(missing.empty() ? "" : ", ") + PROBE_SYMBOL(name);
  PROBE_DRIVER_FUNCTIONS(PROBE_LOAD)
#undef PROBE_LOAD
  if (!missing.empty()) Fail("the CUDA driver (libcuda.so.1) lacks " + missing);
  return d;
}

void Check(const Driver& d, CUresult result, const char* call) {
  if (result == CUDA_SUCCESS) return;
  const char* text = nullptr;
  if (d.cuGetErrorString(result, &text) != CUDA_SUCCESS || text == nullptr) text = "unknown";
  const std::string what = std::string(call) + ": " + text + " (CUresult " +
                           std::to_string(static_cast<int>(result)) + ")";
  if (result == CUDA_ERROR_NO_DEVICE) Fail("no CUDA device on this machine: " + what);
  Fail(what);
}

}  // namespace

int main() {
  const Clock::time_point origin = Clock::now();
  const int64_t main_unix_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count();
  const auto since_main = [origin] {
    return std::chrono::duration<double, std::milli>(Clock::now() - origin).count();
  };

  const Driver d = LoadDriver();
  const double driver_loaded_ms = since_main();
  Check(d, d.cuInit(0), "cuInit");
  const double cu_init_ms = since_main();

  CUdevice device = 0;
  Check(d, d.cuDeviceGet(&device, 0), "cuDeviceGet");
  char name[256] = {};
  Check(d, d.cuDeviceGetName(name, sizeof(name) - 1, device), "cuDeviceGetName");
  CUcontext context = nullptr;
  Check(d, d.cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  Check(d, d.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  const double context_ms = since_main();

  CUmodule module = nullptr;
  Check(d, d.cuModuleLoadData(&module, kPtx), "cuModuleLoadData");
  CUfunction function = nullptr;
  Check(d, d.cuModuleGetFunction(&function, module, "ember_floor_probe"), "cuModuleGetFunction");
  const double module_ms = since_main();
  Check(d, d.cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr),
        "cuLaunchKernel");
  Check(d, d.cuCtxSynchronize(), "cuCtxSynchronize");
  const double kernel_ms = since_main();

  Check(d, d.cuDevicePrimaryCtxRelease(device), "cuDevicePrimaryCtxRelease");
  const nlohmann::ordered_json out = {{"main_unix_ns", main_unix_ns},
                                      {"device", name},
                                      {"driver_loaded_ms", driver_loaded_ms},
                                      {"cu_init_ms", cu_init_ms},
                                      {"context_ms", context_ms},
                                      {"module_ms", module_ms},
                                      {"kernel_ms", kernel_ms}};
  std::printf("%s\n", out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  return 0;
}

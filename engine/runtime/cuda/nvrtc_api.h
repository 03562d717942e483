// NVRTC, the CUDA runtime compiler, loaded with dlopen on first use (README.md beside this
// file, "The dlopen rule"): libnvrtc.so.<major of the headers>, then libnvrtc.so, under
// $CUDA_HOME or $CUDA_PATH when set, then by name, then under the build's toolkit and
// /usr/local/cuda (ToolkitLibraryCandidates, dynamic_library.h). NVRTC needs no GPU: kernels
// compile to cubins on any machine that has it.
//
// Options: CompileOptions is the exact list that decides the cubin, and CompileOptionsText its
// one-line form, which the kernel cache hashes (kernel_cache.h). Results must be IEEE, so
// --use_fast_math is never passed. The -I of the toolkit's headers (cuda_fp16.h, cuda_bf16.h:
// NVRTC 13.0 has no built-in copy of them) is added at compile time but is not part of the
// options text: it is a path on this machine, while the headers' contents are fixed by the NVRTC
// version, which the cache key holds.
//
// Threading: every function may be called from any thread; compiles of different programs
// may run concurrently.
#pragma once

#include <nvrtc.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ember/error.h"
namespace ember::cuda {

#define EMBER_NVRTC_FUNCTIONS(X) \
  X(nvrtcGetErrorString)         \
  X(nvrtcVersion)                \
  X(nvrtcGetNumSupportedArchs)   \
  X(nvrtcGetSupportedArchs)      \
  X(nvrtcCreateProgram)          \
  X(nvrtcDestroyProgram)         \
  X(nvrtcCompileProgram)         \
  X(nvrtcGetProgramLogSize)      \
  X(nvrtcGetProgramLog)          \
  X(nvrtcGetCUBINSize)           \
  X(nvrtcGetCUBIN)

struct NvrtcApi {
#define EMBER_NVRTC_DECLARE_FIELD(name) decltype(&::name) name = nullptr;
  EMBER_NVRTC_FUNCTIONS(EMBER_NVRTC_DECLARE_FIELD)
#undef EMBER_NVRTC_DECLARE_FIELD

  std::string library_path;  // The file that was opened.
  // A folder holding cuda_fp16.h and cuda_bf16.h, or "" when none was found: beside the
  // library first (<lib>/../include, the headers made for this NVRTC), then each toolkit root.
  std::string include_dir;
};

// Loaded on the first call. Throws ember::Error "NVRTC not found: <each place tried>" when
// absent, or naming the missing functions of a too-old NVRTC; later calls throw the same.
const NvrtcApi& Nvrtc();

// Why NVRTC cannot be found, without loading it: "NVRTC not found: looked for <names>", or ""
// when a file that Nvrtc() would try exists (LibraryFileFound, dynamic_library.h). What
// Device::Cuda checks, so that a missing compiler is said at once while loading it (5-7 ms)
// waits for the plan database's environment, which runs beside the context's creation.
std::string NvrtcMissing();

// "13.0".
std::string NvrtcVersion();
// The compiler part of a kernel cache key: "nvrtc-13.0".
std::string NvrtcCompilerId();
// The real architectures this NVRTC can build for: "sm_75", ..., "sm_90", ...
std::vector<std::string> NvrtcSupportedArchs();

// The options that decide the cubin, in order: --gpu-architecture=<arch>, -std=c++17,
// -default-device, then `extra`.
std::vector<std::string> CompileOptions(std::string_view arch,
                                        std::span<const std::string> extra = {});
// The same, joined by single spaces.
std::string CompileOptionsText(std::string_view arch, std::span<const std::string> extra = {});

// Compiles `source` (CUDA C++) for `arch` ("sm_90") and returns the cubin. `program_name`
// names the source in NVRTC's log ("ember_fused_17.cu"). Throws ember::Error naming the
// program and the arch, with NVRTC's error string and the full compile log.
std::vector<char> CompileToCubin(std::string_view source, std::string_view program_name,
                                 std::string_view arch, std::span<const std::string> extra = {});

}  // namespace ember::cuda

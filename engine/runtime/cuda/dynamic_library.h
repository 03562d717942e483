// DynamicLibrary: a shared library opened with dlopen, and where the CUDA toolkit's libraries
// are looked for. Nothing in ember links a CUDA library (README.md beside this file, "The dlopen
// rule"); the driver, NVRTC and cuBLASLt are opened through this, once per process each.
//
// A library is never closed: its functions are reachable from static objects (a cached kernel
// module, a cuBLASLt handle) whose destructors may run at exit after a dlclose would have
// unmapped them. Threading: Open and Symbol may be called from any thread.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace ember::cuda {

class DynamicLibrary {
 public:
  // Opens the first of `candidates` that dlopen accepts (RTLD_NOW | RTLD_LOCAL). When none
  // does, returns nothing and sets `*why` to each candidate with its dlerror, "; "-separated.
  static std::optional<DynamicLibrary> Open(std::span<const std::string> candidates,
                                            std::string* why);

  // The symbol's address, or nullptr when the library lacks it.
  void* Symbol(const char* name) const;
  // The file that was opened, as the dynamic linker resolved it (an absolute path).
  const std::string& path() const { return path_; }

 private:
  DynamicLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}

  void* handle_;
  std::string path_;
};

// The CUDA toolkit roots to search, most specific first: $CUDA_HOME, $CUDA_PATH, then the
// toolkit ember was built against (usually /usr/local/cuda), then /usr/local/cuda. Only roots
// that exist, each once.
std::vector<std::string> ToolkitRoots();

// dlopen candidates for a toolkit library: `versioned` ("libnvrtc.so.13") and `plain`
// ("libnvrtc.so") by name first, so LD_LIBRARY_PATH and the system's search decide, then
// `<root>/lib64/` and `<root>/lib/` of each ToolkitRoots() entry.
std::vector<std::string> ToolkitLibraryCandidates(const std::string& versioned,
                                                  const std::string& plain);

}  // namespace ember::cuda

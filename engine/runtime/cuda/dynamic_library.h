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

// Whether dlopen(candidate) would find a file, without loading it (loading a toolkit library
// costs milliseconds; finding one, microseconds): a path names the file itself; a bare name is
// looked for as the dynamic linker would, in LD_LIBRARY_PATH's folders, its cache
// (/etc/ld.so.cache, by the name's presence) and the default folders. A file that is found
// may still fail to load (damaged, another architecture): Open says so.
bool LibraryFileFound(const std::string& candidate);

// The CUDA toolkit roots named by the environment, $CUDA_HOME then $CUDA_PATH, and then the
// fixed ones: the toolkit ember was built against (usually /usr/local/cuda) and
// /usr/local/cuda. Only roots that exist, each once.
struct ToolkitRootList {
  std::vector<std::string> from_environment;
  std::vector<std::string> fixed;
};
ToolkitRootList ToolkitRoots();

// dlopen candidates for a toolkit library, `versioned` ("libnvrtc.so.13") before `plain`
// ("libnvrtc.so") at each place: the lib64/ and lib/ folders of the roots the environment
// names (a user who sets CUDA_HOME means that toolkit), then the bare names (LD_LIBRARY_PATH and
// the system's search), then lib64/ and lib/ of the fixed roots.
std::vector<std::string> ToolkitLibraryCandidates(const std::string& versioned,
                                                  const std::string& plain);

}  // namespace ember::cuda

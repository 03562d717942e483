#include "engine/runtime/cuda/dynamic_library.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace ember::cuda {

std::optional<DynamicLibrary> DynamicLibrary::Open(std::span<const std::string> candidates,
                                                   std::string* why) {
  std::string errors;
  for (const std::string& name : candidates) {
    void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* error = dlerror();
      if (!errors.empty()) errors += "; ";
      errors += error != nullptr ? error : name + ": unknown dlopen error";
      continue;
    }
    // The resolved file, so that callers can look beside it (NVRTC's headers) and report it.
    std::string path = name;
    link_map* map = nullptr;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
        map->l_name[0] != '\0') {
      path = map->l_name;
    }
    return DynamicLibrary(handle, std::move(path));
  }
  if (why != nullptr) *why = std::move(errors);
  return std::nullopt;
}

void* DynamicLibrary::Symbol(const char* name) const { return dlsym(handle_, name); }

std::vector<std::string> ToolkitRoots() {
  std::vector<std::string> wanted;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* value = std::getenv(var);
    if (value != nullptr && value[0] != '\0') wanted.emplace_back(value);
  }
#ifdef EMBER_CUDA_BUILD_TOOLKIT_ROOT
  wanted.emplace_back(EMBER_CUDA_BUILD_TOOLKIT_ROOT);
#endif
  wanted.emplace_back("/usr/local/cuda");

  std::vector<std::string> roots;
  for (const std::string& root : wanted) {
    std::error_code ec;
    if (!std::filesystem::is_directory(root, ec)) continue;
    if (std::find(roots.begin(), roots.end(), root) != roots.end()) continue;
    roots.push_back(root);
  }
  return roots;
}

std::vector<std::string> ToolkitLibraryCandidates(const std::string& versioned,
                                                  const std::string& plain) {
  std::vector<std::string> candidates = {versioned, plain};
  for (const std::string& root : ToolkitRoots()) {
    for (const char* dir : {"/lib64/", "/lib/"}) {
      candidates.push_back(root + dir + versioned);
      candidates.push_back(root + dir + plain);
    }
  }
  return candidates;
}

}  // namespace ember::cuda

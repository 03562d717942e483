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

ToolkitRootList ToolkitRoots() {
  std::vector<std::string> seen;
  auto keep = [&](const std::string& root, std::vector<std::string>& into) {
    std::error_code ec;
    if (root.empty() || !std::filesystem::is_directory(root, ec)) return;
    if (std::find(seen.begin(), seen.end(), root) != seen.end()) return;
    seen.push_back(root);
    into.push_back(root);
  };
  ToolkitRootList roots;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* value = std::getenv(var);
    if (value != nullptr) keep(value, roots.from_environment);
  }
#ifdef EMBER_CUDA_BUILD_TOOLKIT_ROOT
  keep(EMBER_CUDA_BUILD_TOOLKIT_ROOT, roots.fixed);
#endif
  keep("/usr/local/cuda", roots.fixed);
  return roots;
}

std::vector<std::string> ToolkitLibraryCandidates(const std::string& versioned,
                                                  const std::string& plain) {
  std::vector<std::string> candidates;
  auto under = [&](const std::vector<std::string>& roots) {
    for (const std::string& root : roots) {
      for (const char* dir : {"/lib64/", "/lib/"}) {
        candidates.push_back(root + dir + versioned);
        candidates.push_back(root + dir + plain);
      }
    }
  };
  const ToolkitRootList roots = ToolkitRoots();
  under(roots.from_environment);
  candidates.push_back(versioned);
  candidates.push_back(plain);
  under(roots.fixed);
  return candidates;
}

}  // namespace ember::cuda

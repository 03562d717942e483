#include "engine/runtime/cuda/dynamic_library.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

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

bool LibraryFileFound(const std::string& candidate) {
  std::error_code ec;
  if (candidate.find('/') != std::string::npos) {
    return std::filesystem::is_regular_file(candidate, ec);
  }
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("LD_LIBRARY_PATH"); path != nullptr) {
    std::string list = path;
    for (size_t start = 0; start <= list.size();) {
      const size_t end = std::min(list.find(':', start), list.size());
      if (end > start) dirs.push_back(list.substr(start, end - start));
      start = end + 1;
    }
  }
  for (const std::string& dir : dirs) {
    if (std::filesystem::is_regular_file(std::filesystem::path(dir) / candidate, ec)) return true;
  }
  // The cache lists every library it knows by name, NUL-terminated.
  if (std::ifstream cache("/etc/ld.so.cache", std::ios::binary); cache) {
    const std::string text((std::istreambuf_iterator<char>(cache)), {});
    const std::string needle = std::string(1, '\0') + candidate + std::string(1, '\0');
    const std::string bare = candidate + std::string(1, '\0');
    if (text.find(needle) != std::string::npos || text.find("/" + bare) != std::string::npos) {
      return true;
    }
  }
  for (const char* dir :
       {"/lib", "/usr/lib", "/lib64", "/usr/lib64", "/lib/x86_64-linux-gnu",
        "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu"}) {
    if (std::filesystem::is_regular_file(std::filesystem::path(dir) / candidate, ec)) return true;
  }
  return false;
}

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

#include "engine/runtime/cuda/nvrtc_api.h"

#include <cuda.h>

#include <filesystem>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/error.h"
#include "engine/runtime/cuda/dynamic_library.h"

namespace ember::cuda {
namespace {

struct LoadedNvrtc {
  std::optional<NvrtcApi> api;
  std::string error;  // Why `api` is empty.
};

bool HasHalfHeaders(const std::filesystem::path& dir) {
  std::error_code ec;
  return std::filesystem::is_regular_file(dir / "cuda_fp16.h", ec) &&
         std::filesystem::is_regular_file(dir / "cuda_bf16.h", ec);
}

std::string FindIncludeDir(const std::string& library_path) {
  std::vector<std::filesystem::path> candidates;
  const std::filesystem::path library(library_path);
  if (library.is_absolute()) candidates.push_back(library.parent_path().parent_path() / "include");
  const ToolkitRootList roots = ToolkitRoots();
  for (const auto* list : {&roots.from_environment, &roots.fixed}) {
    for (const std::string& root : *list)
      candidates.push_back(std::filesystem::path(root) / "include");
  }
  for (const std::filesystem::path& dir : candidates) {
    if (HasHalfHeaders(dir)) return std::filesystem::weakly_canonical(dir).string();
  }
  return "";
}

std::vector<std::string> NvrtcCandidates() {
  const std::string major = std::to_string(CUDA_VERSION / 1000);
  return ToolkitLibraryCandidates("libnvrtc.so." + major, "libnvrtc.so");
}

LoadedNvrtc LoadNvrtc() {
  const std::vector<std::string> candidates = NvrtcCandidates();
  std::string why;
  std::optional<DynamicLibrary> library = DynamicLibrary::Open(candidates, &why);
  if (!library) return {.error = fmt::format("NVRTC not found: {}", why)};

  NvrtcApi api;
  api.library_path = library->path();
  std::string missing;
#define EMBER_NVRTC_LOAD_FIELD(name)                                       \
  api.name = reinterpret_cast<decltype(api.name)>(library->Symbol(#name)); \
  if (api.name == nullptr) missing += std::string(missing.empty() ? "" : ", ") + #name;
  EMBER_NVRTC_FUNCTIONS(EMBER_NVRTC_LOAD_FIELD)
#undef EMBER_NVRTC_LOAD_FIELD
  if (!missing.empty()) {
    return {.error = fmt::format("NVRTC at {} lacks {}", api.library_path, missing)};
  }
  api.include_dir = FindIncludeDir(api.library_path);
  return {.api = api};
}

// Destroys the program on every path out of CompileToCubin.
struct ProgramGuard {
  const NvrtcApi& api;
  nvrtcProgram program = nullptr;
  ~ProgramGuard() {
    if (program != nullptr) api.nvrtcDestroyProgram(&program);
  }
};

std::string ProgramLog(const NvrtcApi& api, nvrtcProgram program) {
  size_t size = 0;
  if (api.nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1) return "";
  std::string log(size, '\0');
  if (api.nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS) return "";
  log.resize(size - 1);  // The terminating NUL.
  return log;
}

}  // namespace

const NvrtcApi& Nvrtc() {
  static const LoadedNvrtc loaded = LoadNvrtc();
  if (!loaded.api) throw Error(loaded.error);
  return *loaded.api;
}

std::string NvrtcMissing() {
  const std::vector<std::string> candidates = NvrtcCandidates();
  for (const std::string& candidate : candidates) {
    if (LibraryFileFound(candidate)) return "";
  }
  return fmt::format("NVRTC not found: looked for {}", fmt::join(candidates, ", "));
}

std::string NvrtcVersion() {
  int major = 0;
  int minor = 0;
  Nvrtc().nvrtcVersion(&major, &minor);
  return fmt::format("{}.{}", major, minor);
}

std::string NvrtcCompilerId() { return "nvrtc-" + NvrtcVersion(); }

std::vector<std::string> NvrtcSupportedArchs() {
  const NvrtcApi& api = Nvrtc();
  int count = 0;
  if (api.nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) return {};
  std::vector<int> numbers(static_cast<size_t>(count));
  if (api.nvrtcGetSupportedArchs(numbers.data()) != NVRTC_SUCCESS) return {};
  std::vector<std::string> archs;
  for (int number : numbers) archs.push_back(fmt::format("sm_{}", number));
  return archs;
}

std::vector<std::string> CompileOptions(std::string_view arch, std::span<const std::string> extra) {
  std::vector<std::string> options = {fmt::format("--gpu-architecture={}", arch), "-std=c++17",
                                      "-default-device"};
  options.insert(options.end(), extra.begin(), extra.end());
  return options;
}

std::string CompileOptionsText(std::string_view arch, std::span<const std::string> extra) {
  return fmt::format("{}", fmt::join(CompileOptions(arch, extra), " "));
}

std::vector<char> CompileToCubin(std::string_view source, std::string_view program_name,
                                 std::string_view arch, std::span<const std::string> extra) {
  const NvrtcApi& api = Nvrtc();
  std::vector<std::string> options = CompileOptions(arch, extra);
  if (!api.include_dir.empty()) options.push_back("-I" + api.include_dir);
  std::vector<const char*> option_pointers;
  for (const std::string& option : options) option_pointers.push_back(option.c_str());

  const std::string source_text(source);
  const std::string name(program_name);
  ProgramGuard guard{.api = api};
  nvrtcResult result = api.nvrtcCreateProgram(&guard.program, source_text.c_str(), name.c_str(), 0,
                                              nullptr, nullptr);
  if (result != NVRTC_SUCCESS) {
    throw Error(fmt::format("NVRTC could not create program {}: {}", name,
                            api.nvrtcGetErrorString(result)));
  }
  result = api.nvrtcCompileProgram(guard.program, static_cast<int>(option_pointers.size()),
                                   option_pointers.data());
  if (result != NVRTC_SUCCESS) {
    const std::string hint =
        api.include_dir.empty()
            ? " (no folder with cuda_fp16.h and cuda_bf16.h was found beside NVRTC or under a "
              "CUDA toolkit root: set CUDA_HOME)"
            : "";
    throw Error(fmt::format("NVRTC could not compile {} for {}: {}{}\noptions: {}\n{}", name, arch,
                            api.nvrtcGetErrorString(result), hint, fmt::join(options, " "),
                            ProgramLog(api, guard.program)));
  }
  size_t size = 0;
  result = api.nvrtcGetCUBINSize(guard.program, &size);
  std::vector<char> cubin(size);
  if (result == NVRTC_SUCCESS && size > 0) result = api.nvrtcGetCUBIN(guard.program, cubin.data());
  if (result != NVRTC_SUCCESS || size == 0) {
    throw Error(fmt::format("NVRTC compiled {} but returned no cubin for {}: {}", name, arch,
                            result == NVRTC_SUCCESS ? "empty" : api.nvrtcGetErrorString(result)));
  }
  return cubin;
}

}  // namespace ember::cuda

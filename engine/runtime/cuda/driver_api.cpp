#include "engine/runtime/cuda/driver_api.h"

#include <optional>
#include <string>

#include <fmt/format.h>

#include "engine/core/log.h"
#include "engine/runtime/cuda/dynamic_library.h"

// The symbol a name in cuda.h stands for: the argument is macro-expanded before it reaches
// the inner #, so EMBER_CUDA_SYMBOL(cuMemAlloc) is "cuMemAlloc_v2".
#define EMBER_CUDA_SYMBOL_TEXT(symbol) #symbol
#define EMBER_CUDA_SYMBOL(name) EMBER_CUDA_SYMBOL_TEXT(name)

namespace ember::cuda {
namespace {

constexpr const char* kDriverLibrary = "libcuda.so.1";

struct LoadedDriver {
  std::optional<DriverApi> api;
  std::string error;  // Why `api` is empty.
};

LoadedDriver LoadDriver() {
  // Only the driver's soname: libcuda.so (no version) is the toolkit's link stub, which
  // fails every call, and the driver is installed system-wide, never inside the toolkit.
  const std::string candidates[] = {kDriverLibrary};
  std::string why;
  std::optional<DynamicLibrary> library = DynamicLibrary::Open(candidates, &why);
  if (!library) {
    return {.error =
                fmt::format("no CUDA driver on this machine (dlopen {}: {})", kDriverLibrary, why)};
  }
  DriverApi api;
  api.library_path = library->path();
  std::string missing;
#define EMBER_CUDA_LOAD_FIELD(name)                                                          \
  api.name = reinterpret_cast<decltype(api.name)>(library->Symbol(EMBER_CUDA_SYMBOL(name))); \
  if (api.name == nullptr)                                                                   \
    missing += std::string(missing.empty() ? "" : ", ") + EMBER_CUDA_SYMBOL(name);
  EMBER_CUDA_DRIVER_FUNCTIONS(EMBER_CUDA_LOAD_FIELD)
#undef EMBER_CUDA_LOAD_FIELD
  if (api.cuDriverGetVersion != nullptr) api.cuDriverGetVersion(&api.version);
  if (!missing.empty()) {
    return {.error = fmt::format(
                "the CUDA driver at {} (CUDA {}.{}) lacks {}: ember was built with the CUDA {}.{} "
                "headers and needs a driver at least that new",
                api.library_path, api.version / 1000, api.version % 1000 / 10, missing,
                CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10)};
  }
  return {.api = api};
}

}  // namespace

const DriverApi& Driver() {
  static const LoadedDriver loaded = LoadDriver();
  if (!loaded.api) throw Error(loaded.error);
  return *loaded.api;
}

bool LosesContext(CUresult result) {
  switch (result) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED: return true;
    default: return false;
  }
}

std::string CuResultText(CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  // A CUresult only exists once the driver loaded, but be safe for codes made up by callers.
  try {
    const DriverApi& api = Driver();
    api.cuGetErrorName(result, &name);
    api.cuGetErrorString(result, &text);
  } catch (const Error&) {
  }
  if (name == nullptr) return fmt::format("CUresult {}", static_cast<int>(result));
  if (text == nullptr) return name;
  return fmt::format("{} ({})", name, text);
}

CudaError::CudaError(CUresult result, std::string_view call)
    : Error(fmt::format("{}: {}", call, CuResultText(result))), result_(result) {}

void WarnCu(CUresult result, std::string_view call) {
  if (result == CUDA_SUCCESS || result == CUDA_ERROR_DEINITIALIZED) return;
  Warn(fmt::format("cuda-cleanup:{}", call),
       fmt::format("releasing CUDA resources failed: {}: {}", call, CuResultText(result)));
}

}  // namespace ember::cuda

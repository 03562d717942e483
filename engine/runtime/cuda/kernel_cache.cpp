#include "engine/runtime/cuda/kernel_cache.h"

#include <chrono>

#include <fmt/format.h>

#include "ember/error.h"
#include "engine/core/elapsed.h"
#include "engine/core/log.h"
#include "engine/runtime/cuda/cubin_header.h"
#include "engine/runtime/cuda/driver_api.h"
#include "engine/runtime/cuda/nvrtc_api.h"

namespace ember::cuda {

KernelCache::KernelCache(std::shared_ptr<CudaDevice> device, KernelStore* store,
                         std::vector<std::string> extra_options)
    : device_(std::move(device)),
      store_(store),
      extra_options_(std::move(extra_options)),
      arch_(device_->arch()),
      sm_(ArchSmVersion(arch_)),
      compiler_(NvrtcCompilerId()),
      options_text_(CompileOptionsText(arch_, extra_options_)) {}

KernelCache::~KernelCache() {
  try {
    ScopedContext scoped(*device_);
    for (auto& [hash, entries] : entries_) {
      for (Entry& entry : entries) EMBER_CU_WARN(cuModuleUnload, entry.module);
    }
  } catch (const Error&) {
    // The driver is gone (process exit), and the modules with it.
  }
}

void KernelCache::SetStore(KernelStore* store) {
  std::lock_guard lock(mutex_);
  store_ = store;
}

KernelBinaryKey KernelCache::KeyOf(const KernelSource& kernel) const {
  return MakeKernelKey(kernel, options_text_, arch_, compiler_);
}

KernelCache::Stats KernelCache::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

std::optional<KernelCache::Entry> KernelCache::TryLoad(const KernelSource& kernel,
                                                       std::span<const char> cubin,
                                                       std::string* why) const {
  Entry entry{.kernel = kernel};
  CUresult result = Driver().cuModuleLoadData(&entry.module, cubin.data());
  // A lost context (an earlier kernel faulted) is not this image's fault: it is thrown as the
  // driver's error, so the backend sees the loss (Note [Lost context], cuda_backend.cpp).
  if (LosesContext(result)) CheckCu(result, "cuModuleLoadData");
  if (result != CUDA_SUCCESS) {
    *why = fmt::format("cuModuleLoadData: {}", CuResultText(result));
    return std::nullopt;
  }
  result = Driver().cuModuleGetFunction(&entry.function, entry.module, kernel.name.c_str());
  if (result != CUDA_SUCCESS) {
    *why = fmt::format("cuModuleGetFunction({}): {}", kernel.name, CuResultText(result));
    EMBER_CU_WARN(cuModuleUnload, entry.module);
    return std::nullopt;
  }
  return entry;
}

std::optional<KernelCache::Entry> KernelCache::TryStored(const KernelSource& kernel,
                                                         std::span<const char> cubin,
                                                         std::string* why) const {
  const std::optional<int> sm = CubinSmVersion(cubin);
  if (!sm.has_value()) {
    *why = "not a CUDA ELF image";
    return std::nullopt;
  }
  if (sm != sm_) {
    *why = fmt::format("built for sm_{}, the device is {}", *sm, arch_);
    return std::nullopt;
  }
  return TryLoad(kernel, cubin, why);
}

KernelCache::Entry KernelCache::Compile(const KernelSource& kernel, const KernelBinaryKey& key,
                                        bool replace) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<char> cubin;
  try {
    cubin = CompileToCubin(kernel.source, kernel.name + ".cu", arch_, extra_options_);
  } catch (...) {
    if (store_ != nullptr) store_->Abandon(key);
    throw;
  }
  stats_.compile_ms += MsSince(start);
  ++stats_.compiled;
  LogFusion(LogLevel::kMedium, [&] {
    return fmt::format("[kernel] compiled {} ({:016x}) in {:.1f} ms{}", kernel.name, key.hash,
                       MsSince(start),
                       store_ == nullptr ? ""
                       : replace         ? ", its stored binary refused"
                                         : ", not in the plan database");
  });
  std::string why;
  std::optional<Entry> entry = TryLoad(kernel, cubin, &why);
  if (!entry) {
    if (store_ != nullptr) store_->Abandon(key);
    throw Error(
        fmt::format("kernel {} compiled for {} but did not load: {}", kernel.name, arch_, why));
  }
  if (store_ != nullptr) store_->Save(key, cubin, kernel, options_text_, replace);
  return std::move(*entry);
}

CUfunction KernelCache::Get(const KernelSource& kernel) {
  const KernelBinaryKey key = KeyOf(kernel);
  std::lock_guard lock(mutex_);
  std::vector<Entry>& bucket = entries_[key.hash];
  for (const Entry& entry : bucket) {
    if (entry.kernel.name == kernel.name && entry.kernel.source == kernel.source) {
      ++stats_.memory_hits;
      if (store_ != nullptr) store_->Used(key);
      return entry.function;
    }
  }

  ScopedContext scoped(*device_);
  bool replace = false;
  if (store_ != nullptr) {
    struct AddTime {
      std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
      double& total;
      ~AddTime() { total += MsSince(start); }
    } add_time{.total = stats_.load_ms};
    KernelStore::Lookup found = store_->Load(key);
    switch (found.outcome) {
      case KernelStore::Lookup::Outcome::kMissing: break;
      case KernelStore::Lookup::Outcome::kDamaged: ++stats_.rebuilt; break;
      case KernelStore::Lookup::Outcome::kFound: {
        std::string why;
        if (std::optional<Entry> entry = TryStored(kernel, found.binary, &why)) {
          ++(found.tier == KernelStore::Tier::kShm ? stats_.loaded_from_shm
                                                   : stats_.loaded_from_sqlite);
          store_->Used(key);
          bucket.push_back(std::move(*entry));
          return bucket.back().function;
        }
        ++stats_.rebuilt;
        replace = true;
        LogFusion(LogLevel::kBasic, [&] {
          return fmt::format("[kernel] stored binary of {} not used ({}); compiling it again",
                             kernel.name, why);
        });
        break;
      }
    }
  }
  bucket.push_back(Compile(kernel, key, replace));
  return bucket.back().function;
}

}  // namespace ember::cuda

// KernelCache: the CUDA functions of one device, compiled once per process and, through an
// optional KernelStore (engine/runtime/kernel_store.h: the plan database and its shared-memory
// tier), once per machine or fleet. Get() looks in memory first, then asks the store for a
// cubin, then compiles with NVRTC (nvrtc_api.h) and gives the cubin to the store.
//
// The key (MakeKernelKey, engine/runtime/kernel_key.h): XXH3-64 over the kernel's name and
// source, the compile options (CompileOptionsText), the arch and the compiler id ("nvrtc-13.0"),
// with arch and compiler kept beside the hash, so a new toolkit or another GPU never finds an
// old binary. The hash only narrows a lookup: in memory, the source and name are compared
// before a module is used (so an EMBER_HASH_ZERO build still runs every kernel it asks for). A
// store sees only the key on Load, and a cubin it returns is never trusted blindly: one whose
// ELF header names another SM (cubin_header.h) is not even given to the driver, and one the
// driver refuses, or one without the named function, is compiled again and saved with
// `replace` (Stats::rebuilt).
//
// Threading: Get may be called from any thread; one mutex serializes lookups and compiles (a
// device's kernels are compiled by its one backend, so compiles do not wait on each other in
// practice). A CUfunction stays valid until the cache is destroyed.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/error.h"
#include "engine/runtime/cuda/cuda_device.h"
#include "engine/runtime/kernel_key.h"
#include "engine/runtime/kernel_store.h"

namespace ember::cuda {

class KernelCache {
 public:
  struct Stats {
    uint64_t compiled = 0;            // NVRTC compiles.
    uint64_t loaded_from_shm = 0;     // Cubins from the store's shared-memory tier that loaded.
    uint64_t loaded_from_sqlite = 0;  // Cubins from the store's database that loaded.
    // Compiles that replaced what the store had: damaged, for another SM, refused by the driver.
    uint64_t rebuilt = 0;
    uint64_t memory_hits = 0;  // Get calls answered from memory.
    double compile_ms = 0;     // Wall time in NVRTC.
    double load_ms = 0;        // Wall time asking the store and loading what it returned.
  };

  // Kernels for `device`'s arch, compiled with CompileOptions(arch, extra_options). `store` may
  // be null (memory only); when set it must outlive the cache (or be replaced by SetStore). Throws
  // ember::Error when NVRTC is missing (the compiler id is part of every key).
  explicit KernelCache(std::shared_ptr<CudaDevice> device, KernelStore* store = nullptr,
                       std::vector<std::string> extra_options = {});
  // Unloads every module (with the device's context current).
  ~KernelCache();
  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;

  // The function `kernel.name` of `kernel.source`, loaded on the device. Throws ember::Error
  // when it does not compile (with NVRTC's log) or the module has no such function.
  CUfunction Get(const KernelSource& kernel);

  // Where cubins are looked for and kept from now on (null: memory only).
  void SetStore(KernelStore* store);

  KernelBinaryKey KeyOf(const KernelSource& kernel) const;
  const std::string& options_text() const { return options_text_; }
  Stats stats() const;

 private:
  struct Entry {
    KernelSource kernel;
    CUmodule module = nullptr;
    CUfunction function = nullptr;
  };

  // Loads `cubin` and finds the function; nullopt (and nothing left loaded) when the driver
  // refuses the image or the function is missing, with the reason in `*why`.
  std::optional<Entry> TryLoad(const KernelSource& kernel, std::span<const char> cubin,
                               std::string* why) const;
  // A cubin the store returned, loaded after its SM is checked; nullopt with `*why` otherwise.
  std::optional<Entry> TryStored(const KernelSource& kernel, std::span<const char> cubin,
                                 std::string* why) const;
  // Compiles `kernel` (Abandon on the store when it fails), loads it, saves it to the store.
  Entry Compile(const KernelSource& kernel, const KernelBinaryKey& key, bool replace);

  std::shared_ptr<CudaDevice> device_;
  KernelStore* store_;
  const std::vector<std::string> extra_options_;
  const std::string arch_;
  const std::optional<int> sm_;  // ArchSmVersion(arch_)
  const std::string compiler_;
  const std::string options_text_;
  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, std::vector<Entry>> entries_;  // By KeyOf().hash; under mutex_.
  Stats stats_;                                               // Guarded by mutex_.
};

}  // namespace ember::cuda

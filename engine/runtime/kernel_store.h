// KernelStore: where a backend's compiled kernels outlive the process — the plan database and
// its shared-memory tier (store/persistent_kernels.h), reached through the PlanBacking
// (engine/stream/plan_backing.h). An interface because it is a plug-in: the CUDA kernel cache
// (engine/runtime/cuda/kernel_cache.h) asks it before compiling and hands it what it compiled;
// a backend that compiles nothing never sees one.
//
// A store sees a kernel only by its key on Load, so whatever it returns is checked by the
// caller before use (the binary's architecture, the driver's verdict); one that fails is
// compiled again and saved with `replace`.
//
// Threading: called under the device server's lock, one call at a time per store.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ember {

// A kernel as generated: the extern "C" __global__ function `name` of CUDA C++ `source`.
struct KernelSource {
  std::string name;
  std::string source;
};

// What a compiled kernel is known by: a 64-bit hash of everything the binary depends on (name,
// source, compile options, arch, compiler), with the arch ("sm_90") and the compiler
// ("nvrtc-13.0") kept beside it so that a store can list or drop one toolkit's kernels.
struct KernelBinaryKey {
  uint64_t hash = 0;
  std::string arch;
  std::string compiler;
  bool operator==(const KernelBinaryKey&) const = default;
};

class KernelStore {
 public:
  virtual ~KernelStore() = default;

  enum class Tier : uint8_t { kShm, kSqlite };
  struct Lookup {
    enum class Outcome : uint8_t {
      kMissing,  // nothing under the key (the caller compiles and saves)
      kFound,    // `binary` came from `tier`
      kDamaged,  // a stored binary failed its checksum: dropped, never returned
    };
    Outcome outcome = Outcome::kMissing;
    Tier tier = Tier::kSqlite;
    std::vector<char> binary;
  };
  // The binary kept under `key`. May wait (bounded) while a sibling process compiles the same
  // kernel, so that K workers compile it once between them. A failure to read is kMissing.
  virtual Lookup Load(const KernelBinaryKey& key) = 0;
  // Keeps `binary`, compiled from `kernel` with `options` (one line), under `key`. `replace`:
  // what Load returned for this key was unusable (another architecture, refused by the
  // driver), so the kept copy is overwritten instead of winning.
  virtual void Save(const KernelBinaryKey& key, std::span<const char> binary,
                    const KernelSource& kernel, std::string_view options, bool replace) = 0;
  // The kernel that a kMissing Load left this process to compile did not compile: siblings
  // waiting for it stop waiting.
  virtual void Abandon(const KernelBinaryKey& /*key*/) {}
  // A kernel this process already had (in memory, or from a Load) is about to run again. A
  // store that records which plans use which kernels links it to the plan running now, so that
  // a plan whose kernels another plan compiled still keeps them (Note [Kernel links],
  // store/admin/kernel_inventory.h). Called on every launch's lookup: must be cheap.
  virtual void Used(const KernelBinaryKey& /*key*/) {}
};

}  // namespace ember

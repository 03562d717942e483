// PersistentKernels: the plan database's KernelStore (engine/runtime/kernel_store.h), owned by
// PersistentPlans and handed to a backend that compiles kernels (PlanBacking::AttachKernels).
//
// Note [Stored kernels]
//   * Load looks in the shared-memory tier, then in SQLite (`kernels`, by environment, key
//     hash, arch and compiler; the checksum verified by PlanRepository::GetKernel). A binary
//     read from SQLite is published to the shared tier, so siblings on the host need not read
//     it. Nothing found: the key is claimed in the shared tier (Note [Shared kernels],
//     shared_plan_tier.h) and this process compiles; when a sibling holds the claim, Load
//     waits for its binary ([store] shm_wait_ms) and compiles only if none comes.
//   * Save publishes the binary to the shared tier at once and hands the row to PersistentPlans
//     (`keep`), which attaches it to the plan whose run compiled it: a new plan's first kernels
//     commit in its own publication transaction, later ones link to its row.
//   * Trust: a kernel binary is code the GPU runs unchecked, so binaries are only read from
//     and written to a database file (and directory) that passes the strict trust check, owned
//     by this user or root and writable by nobody else; `allow_shared_writable` widens the
//     plans' check, never the kernels'. With it on and the file group- or world-writable,
//     kernels are compiled in this process and kept in memory only (said once on stderr). With
//     it on, the shared tier carries no kernels at all: its segment may be as open as allowed.
//   * Used hands the row key of a kernel that runs again to PersistentPlans (`link`), which
//     links it to a plan in its first run: a new plan whose kernels were compiled before (for
//     another plan, or in an unfused run) still lists them, so gc keeps them while it lives.
//   * The database row's key: the 8 bytes of the key hash (big-endian) as `source_hash`, the
//     arch and the compiler; the hash covers name, source, options, arch and compiler
//     (MakeKernelKey, kernel_cache.h), so two plans whose traces generate the same source share
//     one row, and another toolkit or GPU never finds it.
//
// Note [Prefetched kernels]
//   A warm GPU start asks for its kernels one at a time at their first launch, each a read on
//   the op thread. So PersistentPlans::Open, which runs beside the context's creation
//   (docs/ARCHITECTURE.md, "The start"), reads at once the kernels the workload's plans used
//   in earlier runs (PlanRepository::LoadWorkloadKernels: one query, checksums verified, at
//   most kPrefetchBytes) and hands them to Prefetch; Load answers from them first (tier
//   kSqlite: that is where they came from) and forgets each once given, since the backend keeps
//   what it loaded. What a prefetch lacks is looked up as before. The rows are checked like
//   Load's: the caller still checks the binary's SM and the driver's verdict.
//
// Threading: called under the device server's lock, like PersistentPlans.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "engine/runtime/kernel_store.h"
#include "store/repository/plan_repository.h"
#include "store/shm/shared_plan_tier.h"

namespace ember {

// The row key of `key` (Note [Stored kernels]).
KernelKey KernelRowKey(const KernelBinaryKey& key);

class PersistentKernels final : public KernelStore {
 public:
  struct Options {
    EnvironmentRowId environment = 0;
    bool trusted = true;       // Note [Stored kernels], "Trust"
    uint32_t shm_wait_ms = 0;  // how long Load waits for a sibling's compile
  };
  // Where the pieces are now (each may be or become null: closed, given up).
  using ReaderOf = std::function<PlanRepository*()>;
  using TierOf = std::function<SharedPlanTier*()>;
  using Keep = std::function<void(NewKernel)>;
  // A kernel ran again (KernelStore::Used), for the plan running now; cheap when none needs it.
  using Link = std::function<void(const KernelBinaryKey&)>;

  PersistentKernels(Options options, ReaderOf reader, TierOf tier, Keep keep, Link link);

  // The most binary bytes a prefetch holds.
  static constexpr size_t kPrefetchBytes = size_t{64} << 20;

  // Note [Prefetched kernels]: `kernels` (rows of this environment) answer Load first.
  void Prefetch(std::vector<StoredKernel> kernels);
  size_t prefetched() const { return prefetched_.size(); }

  Lookup Load(const KernelBinaryKey& key) override;
  void Save(const KernelBinaryKey& key, std::span<const char> binary, const KernelSource& kernel,
            std::string_view options, bool replace) override;
  void Abandon(const KernelBinaryKey& key) override;
  void Used(const KernelBinaryKey& key) override;

  // Whether the database's file may hold kernels for this user (Note [Stored kernels]).
  static bool FileTrustedForKernels(const std::string& database_path, bool allow_shared_writable,
                                    std::string* why);

 private:
  Lookup FromShm(SharedPlanTier& tier, const KernelBinaryKey& key);
  void Release(const KernelBinaryKey& key);

  const Options options_;
  ReaderOf reader_;
  TierOf tier_;
  Keep keep_;
  Link link_;
  std::set<uint64_t> claimed_;  // key hashes this process claimed and has not saved yet
  // Note [Prefetched kernels], by row key (source hash, arch, compiler).
  std::map<std::tuple<Blob, std::string, std::string>, Blob> prefetched_;
  bool read_failed_logged_ = false;
};

}  // namespace ember

#include "store/persistent_kernels.h"

#include <chrono>

#include <fmt/format.h>

#include "engine/core/log.h"
#include "store/repository/column_encoding.h"
#include "store/sqlite/file_trust.h"

namespace ember {
namespace {

std::vector<char> AsChars(std::span<const uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()),
          reinterpret_cast<const char*>(bytes.data()) + bytes.size()};
}

}  // namespace

KernelKey KernelRowKey(const KernelBinaryKey& key) {
  return {.source_hash = Hash64Bytes(key.hash), .arch = key.arch, .compiler_version = key.compiler};
}

bool PersistentKernels::FileTrustedForKernels(const std::string& database_path,
                                              bool allow_shared_writable, std::string* why) {
  if (!allow_shared_writable) return true;  // the open already applied the strict check
  return KernelsTrustedAt(database_path, why);
}

PersistentKernels::PersistentKernels(Options options, ReaderOf reader, TierOf tier, Keep keep,
                                     Link link)
    : options_(std::move(options)),
      reader_(std::move(reader)),
      tier_(std::move(tier)),
      keep_(std::move(keep)),
      link_(std::move(link)) {}

KernelStore::Lookup PersistentKernels::FromShm(SharedPlanTier& tier, const KernelBinaryKey& key) {
  std::vector<uint8_t> binary;
  bool found = false;
  if (Status s = tier.LookupKernel(key.hash, &binary, &found); !s.ok() || !found) return {};
  return {.outcome = Lookup::Outcome::kFound, .tier = Tier::kShm, .binary = AsChars(binary)};
}

void PersistentKernels::Prefetch(std::vector<StoredKernel> kernels) {
  if (!options_.trusted) return;
  for (StoredKernel& k : kernels) {
    prefetched_.emplace(std::make_tuple(std::move(k.key.source_hash), std::move(k.key.arch),
                                        std::move(k.key.compiler_version)),
                        std::move(k.binary));
  }
}

KernelStore::Lookup PersistentKernels::Load(const KernelBinaryKey& key) {
  if (!options_.trusted) return {};
  SharedPlanTier* tier = tier_();
  if (!prefetched_.empty()) {
    KernelKey row = KernelRowKey(key);
    auto it = prefetched_.find(std::make_tuple(std::move(row.source_hash), std::move(row.arch),
                                               std::move(row.compiler_version)));
    if (it != prefetched_.end()) {
      if (tier != nullptr) tier->PublishKernel(key.hash, it->second);
      Lookup found{
          .outcome = Lookup::Outcome::kFound, .tier = Tier::kSqlite, .binary = AsChars(it->second)};
      prefetched_.erase(it);
      return found;
    }
  }
  if (tier != nullptr) {
    if (Lookup found = FromShm(*tier, key); found.outcome == Lookup::Outcome::kFound) return found;
  }
  if (PlanRepository* reader = reader_(); reader != nullptr) {
    StoredKernel stored;
    const Status s = reader->GetKernel(options_.environment, KernelRowKey(key), &stored);
    if (s.ok()) {
      std::vector<char> binary(stored.binary.begin(), stored.binary.end());
      if (tier != nullptr) tier->PublishKernel(key.hash, stored.binary);
      return {
          .outcome = Lookup::Outcome::kFound, .tier = Tier::kSqlite, .binary = std::move(binary)};
    }
    if (s.code() == Status::Code::kCorruption) return {.outcome = Lookup::Outcome::kDamaged};
    if (s.code() != Status::Code::kNotFound && !read_failed_logged_) {
      read_failed_logged_ = true;
      LogFusion(LogLevel::kBasic, [&] {
        return fmt::format("[store] reading compiled kernels failed ({}); compiling instead",
                           s.ToString());
      });
    }
  }
  if (tier == nullptr) return {};
  const uint64_t chain = SharedPlanTier::KernelChainHash(key.hash);
  if (tier->Claim(chain) == SharedPlanTier::ClaimOutcome::kMine || options_.shm_wait_ms == 0) {
    claimed_.insert(key.hash);
    return {};
  }
  LogFusion(LogLevel::kMedium, [&] {
    return fmt::format(
        "[store] kernel 0x{:016x} is being compiled by a sibling; waiting up to {} ms", key.hash,
        options_.shm_wait_ms);
  });
  tier->WaitForSibling(chain, std::chrono::milliseconds(options_.shm_wait_ms));
  if (Lookup found = FromShm(*tier, key); found.outcome == Lookup::Outcome::kFound) return found;
  // The sibling died, failed or is slow: compile here, under this process's own claim.
  tier->Claim(chain);
  claimed_.insert(key.hash);
  return {};
}

void PersistentKernels::Release(const KernelBinaryKey& key) {
  if (claimed_.erase(key.hash) == 0) return;
  if (SharedPlanTier* tier = tier_(); tier != nullptr) {
    tier->Release(SharedPlanTier::KernelChainHash(key.hash));
  }
}

void PersistentKernels::Save(const KernelBinaryKey& key, std::span<const char> binary,
                             const KernelSource& kernel, std::string_view options, bool replace) {
  if (!options_.trusted) return;
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(binary.data()),
                                       binary.size());
  if (SharedPlanTier* tier = tier_(); tier != nullptr) tier->PublishKernel(key.hash, bytes);
  Release(key);
  keep_(NewKernel{
      .key = KernelRowKey(key),
      .binary = Blob(bytes.begin(), bytes.end()),
      .text = {.name = kernel.name, .source = kernel.source, .options = std::string(options)},
      .replace = replace});
}

void PersistentKernels::Abandon(const KernelBinaryKey& key) { Release(key); }

void PersistentKernels::Used(const KernelBinaryKey& key) {
  if (options_.trusted) link_(key);
}

}  // namespace ember

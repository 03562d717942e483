#include "engine/ir/hash.h"

#include <xxhash.h>

#include <fmt/format.h>

#include "engine/ir/canonical.h"

namespace ember {

uint64_t HashOp(const OperationIr& op) {
  if constexpr (kHashZero) return 0;
  const std::vector<uint8_t> bytes = CanonicalBytes(op);
  return XXH3_64bits(bytes.data(), bytes.size());
}

Hash128 HashOps(std::span<const OperationIr> ops) {
  if constexpr (kHashZero) return {};
  const std::vector<uint8_t> bytes = CanonicalListBytes(ops);
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  return {.low = h.low64, .high = h.high64};
}

std::string FormatHash(uint64_t hash) { return fmt::format("0x{:016x}", hash); }

std::string FormatHash(const Hash128& hash) {
  return fmt::format("0x{:016x}{:016x}", hash.high, hash.low);
}

}  // namespace ember

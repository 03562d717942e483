#include "engine/ir/hash.h"

#include <xxhash.h>

#include <fmt/format.h>

#include "engine/ir/canonical.h"

namespace ember {

uint64_t HashOp(const OperationIr& op) {
  if constexpr (kHashZero) return 0;
  // The op path hashes the first op of every segment (plan lookups): a typical op's bytes fit
  // on the stack, so only an op with many nodes or dims allocates.
  constexpr size_t kOnStack = 512;
  const size_t size = CanonicalSize(op);
  if (size <= kOnStack) {
    uint8_t bytes[kOnStack];
    WriteCanonicalBytes(op, bytes);
    return XXH3_64bits(bytes, size);
  }
  std::vector<uint8_t> bytes(size);
  WriteCanonicalBytes(op, bytes.data());
  return XXH3_64bits(bytes.data(), size);
}

Hash128 HashOps(std::span<const OperationIr> ops) {
  if constexpr (kHashZero) return {};
  std::vector<uint8_t> bytes;
  AppendCanonicalListBytes(ops, bytes);
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  return {.low = h.low64, .high = h.high64};
}

uint64_t HashText(std::string_view text) { return XXH3_64bits(text.data(), text.size()); }

std::string FormatHash(uint64_t hash) { return fmt::format("0x{:016x}", hash); }

std::string FormatHash(const Hash128& hash) {
  return fmt::format("0x{:016x}{:016x}", hash.high, hash.low);
}

}  // namespace ember

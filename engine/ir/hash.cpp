#include "engine/ir/hash.h"

#include <xxhash.h>

#include <fmt/format.h>

#include "engine/ir/canonical.h"

namespace ember {

namespace {

// The op path hashes the first op of every segment (plan lookups): one allocation of room for
// a typical op, not the eight reallocations of a vector grown from empty. (Not a thread_local
// buffer: a thread's exit drains its stream from another thread_local's destructor, which may
// run after the buffer's.)
std::vector<uint8_t> HashBuffer() {
  std::vector<uint8_t> buffer;
  buffer.reserve(256);
  return buffer;
}

}  // namespace

uint64_t HashOp(const OperationIr& op) {
  if constexpr (kHashZero) return 0;
  std::vector<uint8_t> bytes = HashBuffer();
  AppendCanonicalBytes(op, bytes);
  return XXH3_64bits(bytes.data(), bytes.size());
}

Hash128 HashOps(std::span<const OperationIr> ops) {
  if constexpr (kHashZero) return {};
  std::vector<uint8_t> bytes = HashBuffer();
  AppendCanonicalListBytes(ops, bytes);
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  return {.low = h.low64, .high = h.high64};
}

std::string FormatHash(uint64_t hash) { return fmt::format("0x{:016x}", hash); }

std::string FormatHash(const Hash128& hash) {
  return fmt::format("0x{:016x}{:016x}", hash.high, hash.low);
}

}  // namespace ember

// How values that SQLite has no type for are stored in plan-database columns (the conventions
// of migrations/0001_plan_store.sql): unsigned 64-bit hashes and checksums as the signed
// INTEGER with the same bits; 128-bit plan keys as 16-byte BLOBs, high half first, each half
// big-endian (XXH128's canonical order, the order FormatHash prints). Pure functions.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "engine/ir/hash.h"

namespace ember {

inline int64_t ToColumn(uint64_t value) { return std::bit_cast<int64_t>(value); }
inline uint64_t FromColumn(int64_t value) { return std::bit_cast<uint64_t>(value); }

inline std::vector<uint8_t> PlanKeyBytes(const Hash128& key) {
  std::vector<uint8_t> bytes(16);
  for (int i = 0; i < 8; ++i) {
    bytes[static_cast<size_t>(i)] = static_cast<uint8_t>(key.high >> (56 - 8 * i));
    bytes[static_cast<size_t>(8 + i)] = static_cast<uint8_t>(key.low >> (56 - 8 * i));
  }
  return bytes;
}

// A 64-bit hash as 8 bytes, big-endian (the byte order of each half above): a kernel row's
// source_hash (Note [Stored kernels], store/persistent_kernels.h).
inline std::vector<uint8_t> Hash64Bytes(uint64_t hash) {
  std::vector<uint8_t> bytes(8);
  for (int i = 0; i < 8; ++i)
    bytes[static_cast<size_t>(i)] = static_cast<uint8_t>(hash >> (56 - 8 * i));
  return bytes;
}

// nullopt unless `bytes` has exactly 16 bytes.
inline std::optional<Hash128> PlanKeyFromBytes(std::span<const uint8_t> bytes) {
  if (bytes.size() != 16) return std::nullopt;
  Hash128 key;
  for (size_t i = 0; i < 8; ++i) {
    key.high = (key.high << 8) | bytes[i];
    key.low = (key.low << 8) | bytes[8 + i];
  }
  return key;
}

}  // namespace ember

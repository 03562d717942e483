// How values that SQLite has no type for are stored in plan-database columns (the conventions
// of migrations/0001_plan_store.sql): unsigned 64-bit hashes and checksums as the signed
// INTEGER with the same bits; 128-bit plan keys as 16-byte BLOBs, high half first, each half
// big-endian (XXH128's canonical order, the order FormatHash prints). Pure functions.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
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

// A graph recipe's kernel list (graph_recipes.kernels, migrations/0006_graph_recipes.sql): each
// hash as 16 lower-case hex digits, separated by one space; "" for none.
inline std::string RecipeKernelsColumn(std::span<const uint64_t> kernels) {
  constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  for (const uint64_t kernel : kernels) {
    if (!text.empty()) text += ' ';
    for (int shift = 60; shift >= 0; shift -= 4) text += kDigits[(kernel >> shift) & 0xf];
  }
  return text;
}

// The list `text` holds; nullopt unless it is exactly RecipeKernelsColumn's form.
inline std::optional<std::vector<uint64_t>> RecipeKernelsFromColumn(std::string_view text) {
  std::vector<uint64_t> kernels;
  if (text.empty()) return kernels;
  if (text.size() % 17 != 16) return std::nullopt;
  for (size_t at = 0; at < text.size(); at += 17) {
    if (at > 0 && text[at - 1] != ' ') return std::nullopt;
    uint64_t kernel = 0;
    for (size_t i = at; i < at + 16; ++i) {
      const char c = text[i];
      const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (digit < 0) return std::nullopt;
      kernel = (kernel << 4) | static_cast<uint64_t>(digit);
    }
    kernels.push_back(kernel);
  }
  return kernels;
}

}  // namespace ember

// Stable hashes of ops and op lists: XXH3 over their canonical bytes (Note [Canonical bytes],
// engine/ir/canonical.h), never std::hash. Used as first_op_hash (64 bits, index on a plan's
// first relative op) and plan_key (128 bits, a whole relative op list). The values are pinned
// by golden tests and must never change for a given kCanonicalFormatVersion.
//
// A hash only narrows a lookup; callers confirm with operator== on the ops. A build with
// -DEMBER_HASH_ZERO=ON makes every hash 0 so that any code relying on the hash alone breaks
// its tests (tests/ir/hash_test.cpp). Pure functions; callable from any thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "engine/ir/operation_ir.h"

namespace ember {

#ifdef EMBER_HASH_ZERO
inline constexpr bool kHashZero = true;
#else
inline constexpr bool kHashZero = false;
#endif

struct Hash128 {
  uint64_t low = 0;
  uint64_t high = 0;

  bool operator==(const Hash128&) const = default;
};

// XXH3-64 (seed 0) of CanonicalBytes(op).
uint64_t HashOp(const OperationIr& op);

// XXH3-128 (seed 0) of CanonicalListBytes(ops).
Hash128 HashOps(std::span<const OperationIr> ops);

// XXH3-64 (seed 0) of `text`: a stable key for strings written to a database (a miss's pattern,
// engine/stream/miss_explanation.h). Never forced to 0 by EMBER_HASH_ZERO (nothing looks it up).
uint64_t HashText(std::string_view text);

// "0x0123456789abcdef": 16 lowercase hex digits, for logs.
std::string FormatHash(uint64_t hash);
// "0x" then 32 lowercase hex digits, high half first (XXH128's canonical big-endian order).
std::string FormatHash(const Hash128& hash);

}  // namespace ember

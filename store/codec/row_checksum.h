// Checksums of stored blobs, verified on every load: a row that fails is quarantined, never
// used (docs/PLAN_DATABASE.md, "The trust model").
//
// Note [Row checksums]: plans.checksum is XXH3-64 (seed 0) over, in order, the length of
// ops_blob as 8 little-endian bytes, ops_blob, then plan_blob — the length keeps bytes from
// moving between the two blobs unnoticed. kernels.checksum is XXH3-64 (seed 0) of the binary.
// Both are stored as the signed INTEGER with the same 64 bits. They are on-disk formats, pinned
// by golden tests, and never forced to 0 by EMBER_HASH_ZERO. Pure functions.
#pragma once

#include <cstdint>
#include <span>

namespace ember {

uint64_t PlanChecksum(std::span<const uint8_t> ops_blob, std::span<const uint8_t> plan_blob);

uint64_t KernelChecksum(std::span<const uint8_t> binary);

}  // namespace ember

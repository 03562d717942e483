// Checksums of stored rows, verified on every load: a plan row that fails is quarantined, a
// kernel row deleted, a device fact skipped; none is ever used (docs/PLAN_DATABASE.md, "The
// trust model").
//
// Note [Row checksums]: plans.checksum is XXH3-64 (seed 0) over, in order, the length of
// ops_blob as 8 little-endian bytes, ops_blob, then plan_blob — the length keeps bytes from
// moving between the two blobs unnoticed. kernels.checksum is XXH3-64 (seed 0) of the binary.
// device_facts.checksum is the plans' recipe over a fact's name and value (the name's length,
// the name, the value), so that bytes cannot move between those two either.
// graph_recipes.checksum is XXH3-64 (seed 0) over the recipe's key as 8 little-endian bytes,
// the body's length as 8 little-endian bytes, the body, then each kernel hash of its list as 8
// little-endian bytes, in order (the list's text form in its column is not hashed: a row whose
// column does not parse is damaged before its checksum is asked). All are stored as
// the signed INTEGER with the same 64 bits. They are on-disk formats, pinned by golden tests,
// and never forced to 0 by EMBER_HASH_ZERO. Pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace ember {

uint64_t PlanChecksum(std::span<const uint8_t> ops_blob, std::span<const uint8_t> plan_blob);

uint64_t KernelChecksum(std::span<const uint8_t> binary);

uint64_t DeviceFactChecksum(std::string_view name, std::string_view value);

uint64_t GraphRecipeChecksum(uint64_t key, std::string_view body,
                             std::span<const uint64_t> kernels);

}  // namespace ember

// Checksums of stored rows, verified on every load: a plan row that fails is quarantined, a
// kernel row deleted, a device fact skipped; none is ever used (docs/PLAN_DATABASE.md, "The
// trust model").
//
// Note [Row checksums]: plans.checksum is XXH3-64 (seed 0) over, in order, the length of
// ops_blob as 8 little-endian bytes, ops_blob, then plan_blob — the length keeps bytes from
// moving between the two blobs unnoticed. kernels.checksum is XXH3-64 (seed 0) of the binary.
// device_facts.checksum is the plans' recipe over a fact's name and value (the name's length,
// the name, the value), so that bytes cannot move between those two either. All are stored as
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

}  // namespace ember

// Canonical bytes of an op and of an op list: the fixed encoding that plan keys hash
// (engine/ir/hash.h) and that stays the same across runs, builds, compilers and machines.
// Pure functions of their argument; callable from any thread.
//
// Note [Canonical bytes]
// Why: a plan found today must be found again by tomorrow's process, on another machine,
// built by another compiler. std::hash, struct memcpy (padding, endianness, the layout of
// std::vector and std::optional) and burn's DefaultHasher give none of that. So every field is
// written explicitly, little-endian, with fixed widths:
//   op list: u8 format version (kCanonicalFormatVersion), u32 op count, then each op.
//   op:      u16 kind, u8 dtype,
//            u32 n, n tensors (inputs);  u32 n, n tensors (outputs);
//            u32 n, n scalars;  u32 n, n ranges;  u32 n, n x i64 dims;
//            u8 distribution kind, u64 bits of a, u64 bits of b.
//   tensor:  u64 id, u32 rank, rank x i64 dims, u8 status, u8 dtype.
//   scalar:  u8 kind, u64 raw bits (floats as their IEEE-754 bits).
//   range:   i64 start, u8 has_end, i64 end (0 when absent), i64 step.
// What is covered: every field of OperationIr, including the ones an op kind does not use
// (a non-Random op still writes its default distribution), and counts before every list.
// So two ops have equal bytes exactly when they compare equal (operator==): floats compare by
// bits there and here, so a NaN op equals itself and -0.0 differs from 0.0.
// The stored numbers are on-disk numbers and append-only: the OpKind is the position in
// engine/ir/op_list.def, DType, TensorStatus, ScalarIr::Kind and Distribution::Kind are
// their enum values. Adding a kind or dtype appends a number and changes no existing bytes;
// any other change to this layout bumps kCanonicalFormatVersion, which is part of the list
// bytes and of the plan database's environment, so old keys simply stop matching.
// Hashes of these bytes (first_op_hash, plan_key) only narrow a lookup; equality of the ops
// (or of these bytes) decides. An EMBER_HASH_ZERO build forces every hash to 0 to prove it.
// The same encoding serves global and relative ops; plan keys use relative ops.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/ir/operation_ir.h"

namespace ember {

// Bumped on any change to the layout above other than appending enum values.
inline constexpr uint8_t kCanonicalFormatVersion = 1;

// Appends the canonical bytes of `op` to `out`.
void AppendCanonicalBytes(const OperationIr& op, std::vector<uint8_t>& out);
// The number of canonical bytes of `op`, and the bytes themselves written at `out` (which
// must have room for CanonicalSize(op)); returns the end of what was written.
size_t CanonicalSize(const OperationIr& op);
uint8_t* WriteCanonicalBytes(const OperationIr& op, uint8_t* out);

// The canonical bytes of one op (no version byte: first_op_hash input).
std::vector<uint8_t> CanonicalBytes(const OperationIr& op);

// The canonical bytes of an op list, led by the format version (plan_key input).
std::vector<uint8_t> CanonicalListBytes(std::span<const OperationIr> ops);
// The same, appended to `out`.
void AppendCanonicalListBytes(std::span<const OperationIr> ops, std::vector<uint8_t>& out);

}  // namespace ember

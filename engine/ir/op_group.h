// OpGroup and SpecialOp: op_list.def's Group column. The group says what an op's operands are
// (one tensor, two, a tensor and a scalar, or anything else), which is all that its layout,
// its relative form and the generic paths of the fusers and the backends need to know: an op
// of the Unary, Binary or Scalar group is its Fused op over its operands, inputs first. Every
// other op is Special and has a number of its own in SpecialOp, so that the switches doing
// special work (layouts, the fuser's cases, the backends' kernels) stay exhaustive and the
// build names what a new special op still lacks (docs/ARCHITECTURE.md, "Adding an op").
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "engine/ir/op_kind.h"

namespace ember {

enum class OpGroup : uint8_t {
  kUnary,    // one tensor in
  kBinary,   // two tensors in
  kScalar,   // a tensor and a scalar
  kSpecial,  // its own layout and kernels
};

// The Special ops, in op_list.def's order; numbered only in memory (never stored).
enum class SpecialOp : uint8_t {
#define EMBER_OP_GROUP_Unary(name)
#define EMBER_OP_GROUP_Binary(name)
#define EMBER_OP_GROUP_Scalar(name)
#define EMBER_OP_GROUP_Special(name) k##name,
#define EMBER_OP(name, number, cls, fused, group) EMBER_OP_GROUP_##group(name)
#include "engine/ir/op_list.def"
#undef EMBER_OP_GROUP_Unary
#undef EMBER_OP_GROUP_Binary
#undef EMBER_OP_GROUP_Scalar
#undef EMBER_OP_GROUP_Special
};

// op_list.def's Group column by op number (compile-time checks read it; code calls GroupOf).
inline constexpr std::array<OpGroup, kNumOpKinds> kOpGroups = {
#define EMBER_OP(name, number, cls, fused, group) OpGroup::k##group,
#include "engine/ir/op_list.def"
};

// REQUIRES: kind < kNumOpKinds (ops that passed CheckOperationLayout, or built by the API).
OpGroup GroupOf(OpKind kind);
// The op's SpecialOp; nullopt for an op of the other groups.
std::optional<SpecialOp> SpecialOf(OpKind kind);

}  // namespace ember

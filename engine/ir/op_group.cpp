#include "engine/ir/op_group.h"

#include <array>

#include "engine/core/check.h"

namespace ember {
namespace {

// Each op's SpecialOp, by op number: the count of Special ops before it.
constexpr std::array<std::optional<SpecialOp>, kNumOpKinds> SpecialColumn() {
  std::array<std::optional<SpecialOp>, kNumOpKinds> column{};
  int specials = 0;
  for (size_t k = 0; k < column.size(); ++k) {
    if (kOpGroups[k] == OpGroup::kSpecial) column[k] = static_cast<SpecialOp>(specials++);
  }
  return column;
}
constexpr std::array<std::optional<SpecialOp>, kNumOpKinds> kSpecials = SpecialColumn();

// SpecialOp::kName must be the SpecialOf(OpKind::kName): both lists follow op_list.def's order.
#define EMBER_OP_GROUP_Unary(name)
#define EMBER_OP_GROUP_Binary(name)
#define EMBER_OP_GROUP_Scalar(name)
#define EMBER_OP_GROUP_Special(name)                                                   \
  static_assert(kSpecials[static_cast<size_t>(OpKind::k##name)] == SpecialOp::k##name, \
                "op_group.cpp: SpecialOp and op_list.def disagree on " #name);
#define EMBER_OP(name, number, cls, fused, group) EMBER_OP_GROUP_##group(name)
#include "engine/ir/op_list.def"
#undef EMBER_OP_GROUP_Unary
#undef EMBER_OP_GROUP_Binary
#undef EMBER_OP_GROUP_Scalar
#undef EMBER_OP_GROUP_Special

size_t Index(OpKind kind) {
  const auto k = static_cast<size_t>(kind);
  EMBER_CHECK(k < kOpGroups.size(), "op kind {} out of range", k);
  return k;
}

}  // namespace

OpGroup GroupOf(OpKind kind) { return kOpGroups[Index(kind)]; }

std::optional<SpecialOp> SpecialOf(OpKind kind) { return kSpecials[Index(kind)]; }

}  // namespace ember

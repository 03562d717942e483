#include "engine/ir/op_kind.h"

#include <array>

namespace ember {
namespace {

// The tables below are indexed by an op's number, so each number must be the op's position
// in op_list.def.
constexpr bool NumbersArePositions() {
  int position = 0;
#define EMBER_OP(name, number, cls, fused, group) \
  if ((number) != position++) return false;
#include "engine/ir/op_list.def"
  return true;
}
static_assert(NumbersArePositions(),
              "op_list.def: an op's number must be its position in the list (append only)");

constexpr std::array<std::string_view, kNumOpKinds> kNames = {
#define EMBER_OP(name, number, cls, fused, group) #name,
#include "engine/ir/op_list.def"
};

constexpr std::array<OpClass, kNumOpKinds> kClasses = {
#define EMBER_OP(name, number, cls, fused, group) OpClass::k##cls,
#include "engine/ir/op_list.def"
};

}  // namespace

OpClass ClassOf(OpKind kind) { return kClasses[static_cast<size_t>(kind)]; }

std::string_view OpKindName(OpKind kind) { return kNames[static_cast<size_t>(kind)]; }

std::string_view FamilyName(OpKind kind, DType dtype) {
  const bool is_float = IsFloat(dtype);
  const bool is_bool = dtype == DType::kBool;
  switch (ClassOf(kind)) {
    case OpClass::kInit: return "Init";
    case OpClass::kDrop: return "Drop";
    case OpClass::kBase: return is_float ? "BaseFloat" : is_bool ? "BaseBool" : "BaseInt";
    case OpClass::kNumeric: return is_float ? "NumericFloat" : "NumericInt";
    case OpClass::kTyped: return is_float ? "Float" : is_bool ? "Bool" : "Int";
  }
  return "?";
}

std::string QualifiedOpName(OpKind kind, DType dtype) {
  // burn's op_kind prints Drop bare; ember does the same for Init, whose payload has no
  // variant of its own.
  const OpClass cls = ClassOf(kind);
  if (cls == OpClass::kInit || cls == OpClass::kDrop) return std::string(OpKindName(kind));
  std::string out(FamilyName(kind, dtype));
  out += "::";
  out += OpKindName(kind);
  return out;
}

}  // namespace ember

// OpKind: every operation ember knows, generated from op_list.def, and the family names that
// burn's logs use ("NumericFloat::MulScalar", "Float::Exp").
//
// Note [Op families]: burn files each op under the backend trait that created it
// (BaseOperationIr, NumericOperationIr, FloatOperationIr, ...) and, for Base and Numeric,
// under the element kind (Float / Int / Bool) of the tensor it works on. ember keeps one flat
// kind list and derives the family from the op's class and its family dtype
// (OperationIr::dtype), so `Add` on i32 prints `NumericInt::Add` and on f16 `NumericFloat::Add`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <ember/dtype.h>

namespace ember {

// The stored numbers (canonical bytes, plan database) are written in op_list.def; op_kind.cpp
// checks that each is the op's position in the list.
enum class OpKind : uint16_t {
#define EMBER_OP(name, number, cls, fused, group) k##name = number,
#include "engine/ir/op_list.def"
};

inline constexpr int kNumOpKinds = 0
#define EMBER_OP(name, number, cls, fused, group) +1
#include "engine/ir/op_list.def"
    ;

enum class OpClass : uint8_t { kBase, kNumeric, kTyped, kInit, kDrop };

OpClass ClassOf(OpKind kind);
// "MulScalar", "Exp", ...
std::string_view OpKindName(OpKind kind);
// "BaseFloat", "NumericInt", "Float", "Init", "Drop", ... for an op of `kind` on `dtype`.
std::string_view FamilyName(OpKind kind, DType dtype);
// "NumericFloat::MulScalar"; Init and Drop print bare ("Drop").
std::string QualifiedOpName(OpKind kind, DType dtype);

}  // namespace ember

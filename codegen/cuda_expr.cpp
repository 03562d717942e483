#include "codegen/cuda_expr.h"

#include <fmt/format.h>

#include <ember/error.h>

namespace ember::codegen {

bool FloatDomain(DType dtype) { return IsFloat(dtype); }
DType DomainDType(bool float_domain) { return float_domain ? DType::kF32 : DType::kI64; }
const char* DomainType(bool float_domain) { return float_domain ? "float" : "i64"; }

const char* StorageType(DType dtype) {
  switch (dtype) {
    case DType::kF32: return "float";
    case DType::kF16: return "__half";
    case DType::kBF16: return "__nv_bfloat16";
    case DType::kI32: return "int";
    case DType::kI64: return "i64";
    case DType::kBool: return "u8";
  }
  return "float";
}

// A stored element of `dtype` (text `raw`) in its domain.
std::string LoadExpr(DType dtype, const std::string& raw) {
  return fmt::format("{}({})", FloatDomain(dtype) ? "ember_f" : "ember_i", raw);
}

// A domain value (text `value`) stored as `dtype`: the prelude's ember_to_* stores are named by
// DTypeName ("f32", "f16", ...).
std::string StoreExpr(DType dtype, const std::string& value) {
  return fmt::format("ember_to_{}({})", DTypeName(dtype), value);
}

// The unary ops that always compute in f32 (kernels.h: Abs and Neg keep ints).
bool FloatOnly(FuseOpKind kind) {
  switch (kind) {
    case FuseOpKind::kExp:
    case FuseOpKind::kLog:
    case FuseOpKind::kLog1p:
    case FuseOpKind::kSqrt:
    case FuseOpKind::kRecip:
    case FuseOpKind::kSin:
    case FuseOpKind::kCos:
    case FuseOpKind::kTanh:
    case FuseOpKind::kErf: return true;
    default: return false;
  }
}

bool IntOnly(FuseOpKind kind) {
  switch (kind) {
    case FuseOpKind::kBitwiseAnd:
    case FuseOpKind::kBitwiseOr:
    case FuseOpKind::kBitwiseXor:
    case FuseOpKind::kBitwiseLeftShift:
    case FuseOpKind::kBitwiseRightShift:
    case FuseOpKind::kBitwiseNot: return true;
    default: return false;
  }
}

namespace {

// An IntOnly op asked for in the float domain: a generator bug (Op in block_emitter.cpp picks
// the int domain for them).
[[noreturn]] std::string NoFloatForm(FuseOpKind kind) {
  throw Error(
      fmt::format("fused {} takes int operands only; it has no float form", FuseOpKindName(kind)));
}

}  // namespace

// One lane of `kind` over operand texts x, y, z in the float or the int domain. An exhaustive
// switch: a new fused op fails to build until it has its CUDA form.
std::string OpExpr(FuseOpKind kind, bool f, const std::string& x, const std::string& y,
                   const std::string& z) {
  const char* one = f ? "1.0f" : "(i64)1";
  const char* zero = f ? "0.0f" : "(i64)0";
  auto cmp = [&](const char* op) {
    return fmt::format("({} {} {} ? {} : {})", x, op, y, one, zero);
  };
  switch (kind) {
    case FuseOpKind::kAssign: return x;
    case FuseOpKind::kAdd:
      return f ? fmt::format("({} + {})", x, y) : fmt::format("ember_add({}, {})", x, y);
    case FuseOpKind::kSub:
      return f ? fmt::format("({} - {})", x, y) : fmt::format("ember_sub({}, {})", x, y);
    case FuseOpKind::kMul:
      return f ? fmt::format("({} * {})", x, y) : fmt::format("ember_mul({}, {})", x, y);
    case FuseOpKind::kDiv:
      return f ? fmt::format("({} / {})", x, y) : fmt::format("ember_div({}, {})", x, y);
    case FuseOpKind::kRem: return fmt::format("ember_rem({}, {})", x, y);
    case FuseOpKind::kPowf:
      return f ? fmt::format("powf({}, {})", x, y) : fmt::format("ember_pow({}, {})", x, y);
    case FuseOpKind::kAbs: return f ? fmt::format("fabsf({})", x) : fmt::format("ember_abs({})", x);
    case FuseOpKind::kNeg: return f ? fmt::format("(-{})", x) : fmt::format("ember_neg({})", x);
    case FuseOpKind::kExp: return fmt::format("expf({})", x);
    case FuseOpKind::kLog: return fmt::format("logf({})", x);
    case FuseOpKind::kLog1p: return fmt::format("log1pf({})", x);
    case FuseOpKind::kSqrt: return fmt::format("sqrtf({})", x);
    case FuseOpKind::kRecip: return fmt::format("(1.0f / {})", x);
    case FuseOpKind::kSin: return fmt::format("sinf({})", x);
    case FuseOpKind::kCos: return fmt::format("cosf({})", x);
    case FuseOpKind::kTanh: return fmt::format("tanhf({})", x);
    case FuseOpKind::kErf: return fmt::format("erff({})", x);
    case FuseOpKind::kEqual: return cmp("==");
    case FuseOpKind::kLower: return cmp("<");
    case FuseOpKind::kGreater: return cmp(">");
    case FuseOpKind::kLowerEqual: return cmp("<=");
    case FuseOpKind::kGreaterEqual: return cmp(">=");
    case FuseOpKind::kClamp:
      return fmt::format("({0} < {1} ? {1} : ({0} > {2} ? {2} : {0}))", x, y, z);
    case FuseOpKind::kConditionalAssign: return fmt::format("({} != {} ? {} : {})", x, zero, y, z);
    // Indexed reads (Note [Indexed inputs], engine/trace/fuse_trace.h) are not expressions.
    case FuseOpKind::kGather:
    case FuseOpKind::kSelect:
    case FuseOpKind::kCat: break;
    // Int-only, over i64, as the CPU's element functions (Note [Bitwise ops],
    // engine/runtime/cpu/elementwise.cpp); inline, so the prelude (and every stored kernel's
    // key, tests/codegen/prelude_test.cpp) stays as it is.
    case FuseOpKind::kBitwiseAnd: return f ? NoFloatForm(kind) : fmt::format("({} & {})", x, y);
    case FuseOpKind::kBitwiseOr: return f ? NoFloatForm(kind) : fmt::format("({} | {})", x, y);
    case FuseOpKind::kBitwiseXor: return f ? NoFloatForm(kind) : fmt::format("({} ^ {})", x, y);
    case FuseOpKind::kBitwiseLeftShift:
      return f ? NoFloatForm(kind)
               : fmt::format("((u64){1} < 64ULL ? (i64)((u64){0} << {1}) : (i64)0)", x, y);
    case FuseOpKind::kBitwiseRightShift:
      return f ? NoFloatForm(kind)
               : fmt::format("({0} >> ((u64){1} < 64ULL ? {1} : (i64)63))", x, y);
    case FuseOpKind::kBitwiseNot: return f ? NoFloatForm(kind) : fmt::format("(~{})", x);
  }
  throw Error(fmt::format("fused {} has no CUDA form", FuseOpKindName(kind)));
}

}  // namespace ember::codegen

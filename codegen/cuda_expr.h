// The pieces of CUDA C++ text every generator writes: the two compute domains, the storage type
// of each dtype, domain loads and stores (the prelude's ember_f / ember_i / ember_to_*,
// codegen/prelude.cuh), and each fused op as an expression over lane operands. Shared by the
// trace lowering (block_emitter.cpp) and the special kernels (special_kernels.cpp).
#pragma once

#include <string>

#include <ember/dtype.h>

#include "engine/trace/fuse_trace.h"

namespace ember::codegen {

// Float domain (f32 math) for f32/f16/bf16; the int domain (i64 math) for ints and bool.
bool FloatDomain(DType dtype);
// The dtype a domain holds without rounding: f32 or i64.
DType DomainDType(bool float_domain);
// "float" or "i64".
const char* DomainType(bool float_domain);
// The device type an element is stored as: float, __half, __nv_bfloat16, int, i64, u8.
const char* StorageType(DType dtype);
// A stored element of `dtype` (text `raw`) in its domain.
std::string LoadExpr(DType dtype, const std::string& raw);
// A domain value (text `value`) stored as `dtype`.
std::string StoreExpr(DType dtype, const std::string& value);
// The unary ops that always compute in f32 (engine/runtime/cpu/kernels.h: Abs and Neg keep
// ints).
bool FloatOnly(FuseOpKind kind);
// The ops that always compute in i64: the bitwise ops (Note [Bitwise ops],
// engine/runtime/cpu/elementwise.cpp).
bool IntOnly(FuseOpKind kind);
// One lane of `kind` over operand texts x, y, z in the float (`f`) or the int domain. An
// exhaustive switch: a new fused op fails to build until it has its CUDA form.
std::string OpExpr(FuseOpKind kind, bool f, const std::string& x, const std::string& y,
                   const std::string& z);

}  // namespace ember::codegen

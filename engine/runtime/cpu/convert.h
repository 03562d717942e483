// Element conversions between storage dtypes and the two compute domains of the CPU kernels:
// f32 for float math (f32, f16, bf16) and i64 for integer and bool math.
//
// Note [CPU compute domains]
// Every kernel loads its inputs into contiguous f32 or i64 scratch, computes there, and stores
// the result into the output's dtype. Loads and stores are the only code that knows the six
// storage dtypes, so adding a dtype touches this file and nothing else.
//   load:  f16/bf16 widen exactly; ints and bool to f32 by value (int -> f32 rounds to nearest
//          for |v| > 2^24); bool reads any nonzero byte as 1.
//   store: f32 -> f16/bf16 rounds to nearest even (engine/core/half.h);
//          float -> int truncates toward zero, saturates at the target's range, NaN -> 0;
//          i64 -> i32 wraps (two's complement, like C++20 and CUDA's cvt);
//          i64 -> f16/bf16 rounds through f32;
//          anything -> bool is `value != 0` (so NaN -> true), stored as byte 0 or 1.
#pragma once

#include <cstddef>
#include <cstdint>

#include <ember/dtype.h>

#include "engine/ir/scalar_ir.h"

namespace ember::cpu {

// Reads n elements of `dtype` from src, src + stride, ... (stride in elements, may be 0 or
// negative) into dst[0..n).
void LoadRunF32(const std::byte* src, DType dtype, int64_t stride, int64_t n, float* dst);
void LoadRunI64(const std::byte* src, DType dtype, int64_t stride, int64_t n, int64_t* dst);

// Writes src[0..n) as n contiguous elements of `dtype` at dst.
void StoreRunF32(const float* src, int64_t n, DType dtype, std::byte* dst);
void StoreRunI64(const int64_t* src, int64_t n, DType dtype, std::byte* dst);

// Copies n elements of `elem_size` bytes from src, src + stride, ... to contiguous dst.
void CopyRun(const std::byte* src, int elem_size, int64_t stride, int64_t n, std::byte* dst);

// The float -> i32 rule of Note [CPU compute domains] (i64: SaturatingToInt64, scalar_ir.h).
int32_t FloatToI32Saturating(double value);

}  // namespace ember::cpu

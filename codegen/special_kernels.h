// The kernels of the ops that are not fused traces: Random, Gather, Select and the integer
// matmul (float matmuls go to cuBLASLt). Each takes the struct of 8-byte slots of Note [Kernel
// arguments] (kernel_plan.h) in the order its function documents, and computes exactly what
// the CPU kernel of the same op computes (engine/runtime/cpu/kernels.h, random.h).
#pragma once

#include <ember/dtype.h>

#include "codegen/kernel_source.h"
#include "engine/ir/operation_ir.h"

namespace ember::codegen {

// The most dims a Gather or Select kernel takes; the backend refuses a higher rank with an
// ember::Error naming the limit (the op then fails like any other bad input).
inline constexpr int kMaxSpecialRank = 8;

// Slots: 0 out address, 1 count, 2 key, 3 first counter, 4 a (double bits), 5 b (double bits).
// Note [CPU random streams] (engine/runtime/cpu/random.h): the same bits for the same seed.
GeneratedKernel RandomKernel(Distribution::Kind kind, DType dtype);

// Slots: 0 out, 1 tensor, 2 indices, 3 count, 4 rank, 5 dim, 6 the tensor's size along dim,
// then kMaxSpecialRank each of: out dims, tensor strides, indices strides (elements).
// `select`: indices are 1-D (Select), else they have the output's shape (Gather).
GeneratedKernel IndexKernel(bool select, DType dtype, DType index_dtype);

// Slots: 0 out, 1 lhs, 2 rhs, 3 batch, 4 m, 5 n, 6 k; operands contiguous [batch, m, k] and
// [batch, k, n]; the output [batch, m, n]. Wrapping i64 accumulation, stored as `dtype`.
GeneratedKernel IntMatmulKernel(DType dtype);

}  // namespace ember::codegen

// MapTiles: the engine behind every elementwise kernel (arithmetic, math, comparisons, clamp,
// masks, casts). The output is cut into tiles of kTileSize elements; for each tile every
// operand is broadcast to the output's index range and loaded into contiguous scratch of the
// compute domain (Note [CPU compute domains], convert.h), one tile function computes the
// result, and the result is stored in the output's dtype. Tiles are spread over the thread
// pool in chunks of kParallelGrain elements, so small tensors run inline.
//
// Contiguous f32 (or i64) operands and outputs skip the scratch: the tile function reads and
// writes the tensors directly.
//
// In-place: when an operand is a last use (its handle was removed from the container), is
// contiguous, has the output's dtype and shape and MayWriteInPlace (cpu_buffer.h: no other
// handle shares its buffer, which is not borrowed memory), the output reuses that buffer. Tile
// functions therefore must allow out == in[k] (every element-at-the-same-index loop does).
#pragma once

#include <cstdint>
#include <span>

#include "engine/ir/scalar_ir.h"
#include "engine/ir/tensor_ir.h"
#include "engine/runtime/cpu/thread_pool.h"
#include "engine/runtime/handle.h"

namespace ember::cpu {

inline constexpr int64_t kTileSize = 2048;
inline constexpr int kMaxOperands = 3;

// A tensor (broadcast to the output shape) or a scalar (repeated). A scalar enters the float
// domain as AsDouble() rounded to f32, the int domain through AsInt() (saturating).
struct Operand {
  const TensorHandle* tensor = nullptr;
  bool last_use = false;  // the op's TensorIr for this input was ReadWrite
  ScalarIr scalar;

  static Operand Tensor(const TensorHandle& handle, bool last_use) {
    return {&handle, last_use, {}};
  }
  static Operand Scalar(ScalarIr value) { return {nullptr, false, value}; }
  // The tensor's dtype; for a scalar, `otherwise`.
  DType dtype(DType otherwise) const { return tensor != nullptr ? tensor->dtype : otherwise; }
};

enum class Domain { kFloat, kInt };

// f32 for f32, f16 and bf16; i64 for i32, i64 and bool (Note [CPU compute domains]).
inline Domain DomainOf(DType dtype) { return IsFloat(dtype) ? Domain::kFloat : Domain::kInt; }

// A scalar operand's value in each domain.
inline float ScalarAsFloat(ScalarIr value) { return static_cast<float>(value.AsDouble()); }
inline int64_t ScalarAsInt(ScalarIr value) { return value.AsInt(); }

// out[i] = f(in[0][i], in[1][i], ...) for i in [0, n).
using FloatTileFn = void (*)(const float* const* in, float* out, int64_t n);
using IntTileFn = void (*)(const int64_t* const* in, int64_t* out, int64_t n);

// One elementwise op. Exactly the function of `domain` is used (the other may be null).
struct TileOp {
  Domain domain;
  FloatTileFn float_fn = nullptr;
  IntTileFn int_fn = nullptr;
  // Optional, float binary ops: float_fn with in[1] pointing at one number that stands for all
  // n (a row's statistic broadcast along the row), so no tile of copies of it is filled. Same
  // arithmetic, so the same bits as float_fn over the repeated number.
  FloatTileFn float_rhs_repeated = nullptr;
};

// REQUIRES: 1 <= operands.size() <= kMaxOperands; every tensor operand broadcasts to
// `out.shape`. Returns the output handle (contiguous, out.shape, out.dtype).
TensorHandle MapTiles(const TileOp& op, std::span<const Operand> operands, const TensorIr& out,
                      ThreadPool& pool);

}  // namespace ember::cpu

// The CPU backend's op kernels, one family per file (elementwise.cpp, cast.cpp, views.cpp,
// movement.cpp, reduce.cpp, matmul.cpp, random.cpp). cpu_backend.cpp maps each op kind onto
// one of them in its exhaustive switch; elementwise ops go by their fused op (FuseOpKind), the
// small enum below lets reduce.cpp switch over its own ops without a `default:`.
//
// Every kernel takes its input handles (already taken from the HandleContainer) and the
// output's TensorIr, whose shape and dtype the API computed, and returns the output handle.
// Kernels never re-derive the output shape.
// REQUIRES (all): the op passed the API's checks (shapes broadcast, dims and dtypes valid).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <ember/slice.h>

#include "engine/ir/operation_ir.h"
#include "engine/runtime/cpu/map_tiles.h"
#include "engine/runtime/cpu/thread_pool.h"
#include "engine/runtime/handle.h"
#include "engine/trace/fuse_trace.h"

namespace ember::cpu {

// --- elementwise.cpp ---------------------------------------------------------------------
// The CPU's kernel table, one entry per fused op (an exhaustive switch over FuseOpKind, so a
// new fused op fails to build until it has one): the tile function MapTiles runs for `kind`,
// in the compute domain Note [Fused trace] gives it, picked from `dtype` (the first operand's;
// the output's for Clamp and ConditionalAssign). Unfused ops (Elementwise) and the fused-trace
// interpreter (fused_program.cpp) run the same entries, so their results agree bit for bit.
//   Abs and Neg keep ints in the int domain; the float math ops (Exp, Log, ...) always compute
//   in f32.
//   Ints: wrapping add/sub/mul, division truncating toward zero, remainder with the divisor's
//   sign, division or remainder by zero -> 0; pow via double. Floats: rem = x - floor(x/y)*y.
//   Comparisons compute in the lhs's domain and give 1 or 0; NaN compares false (so NaN == NaN
//   is false).
//   Clamp: min(max(x, lo), hi), NaN stays NaN.
//   ConditionalAssign takes MaskWhere's operands (tensor, mask, value): mask ? value : tensor.
//   The bitwise ops always compute in i64; shifts by an amount outside [0, 64) give 0 (left)
//   or the sign fill (right) (Note [Bitwise ops], elementwise.cpp).
// Assign has no entry: it is a conversion (cast.cpp).
// Its functions are compiled for two targets (Note [Tile function targets], elementwise.cpp)
// that give the same bits; ElementTile takes ElementTileTarget's.
TileOp ElementTile(FuseOpKind kind, DType dtype);
// The targets, for tests that run the same tiles on each: kBaseline runs on any x86-64, kAvx2
// only where ElementTargetAvailable says so.
enum class ElementTarget { kBaseline, kAvx2 };
bool ElementTargetAvailable(ElementTarget target);
TileOp ElementTileOn(ElementTarget target, FuseOpKind kind, DType dtype);
// The target this process uses, picked once: AVX2 where the CPU has it, unless
// EMBER_CPU_VECTOR_MATH=sse (vector_math.h) asks for the baseline.
ElementTarget ElementTileTarget();
// The unfused kernel of every op with a fused op (FusedKindOf) but the Assigns (Cast, Full,
// Zeros, Ones): `operands` are the op's inputs, then its scalars.
TensorHandle Elementwise(FuseOpKind kind, std::span<const Operand> operands, const TensorIr& out,
                         ThreadPool& pool);

// --- cast.cpp ----------------------------------------------------------------------------
// The conversion rules of Note [CPU compute domains]. A cast to the same dtype shares the
// input's buffer.
TensorHandle Cast(const Operand& x, const TensorIr& out, ThreadPool& pool);
// Every element = value converted to out.dtype: floats round the double value, ints convert
// by the float -> int rule of Note [CPU compute domains], bool is value != 0.
TensorHandle Fill(ScalarIr value, const TensorIr& out, ThreadPool& pool);
// Fill's element: `value` encoded as one element of `dtype` at `element` (DTypeSize bytes).
void EncodeFill(ScalarIr value, DType dtype, std::byte* element);

// --- views.cpp ---------------------------------------------------------------------------
// Zero-copy when `x` is contiguous, else a contiguous copy reshaped.
TensorHandle Reshape(const TensorHandle& x, const Shape& shape, ThreadPool& pool);
// Zero-copy strided views.
TensorHandle Permute(const TensorHandle& x, std::span<const int64_t> axes);
TensorHandle SwapDims(const TensorHandle& x, int64_t dim1, int64_t dim2);
TensorHandle Expand(const TensorHandle& x, const Shape& shape);
// Slice semantics of ember/slice.h; `ranges` cover the leading dims.
TensorHandle SliceView(const TensorHandle& x, std::span<const Slice> ranges);

// --- movement.cpp ------------------------------------------------------------------------
TensorHandle Cat(std::span<const TensorHandle> inputs, int64_t dim, const TensorIr& out,
                 ThreadPool& pool);
// out[..., i, ...] = tensor[..., indices[..., i, ...], ...] along `dim`; indices has the
// tensor's rank and the output's shape. An index outside [0, size) yields a zero element.
TensorHandle Gather(const TensorHandle& tensor, int64_t dim, const TensorHandle& indices,
                    const TensorIr& out, ThreadPool& pool);
// out[..., j, ...] = tensor[..., indices[j], ...] along `dim`, indices 1-D. An index outside
// [0, size) yields zero elements.
TensorHandle Select(const TensorHandle& tensor, int64_t dim, const TensorHandle& indices,
                    const TensorIr& out, ThreadPool& pool);

// --- reduce.cpp --------------------------------------------------------------------------
enum class ReduceOp { kSum, kMean, kProd, kMax, kMin, kArgMax, kArgMin };

// Reduces `axis`, keeping it with size 1. Floats accumulate sums and products in double;
// ints in wrapping i64, and an int mean truncates toward zero. Max/Min propagate NaN;
// ArgMax/ArgMin return the first extreme (a NaN counts as the extreme) as out.dtype (i64).
// Max, Min, ArgMax and ArgMin of an empty axis yield 0.
TensorHandle ReduceDim(ReduceOp op, const TensorHandle& x, int64_t axis, const TensorIr& out,
                       ThreadPool& pool);
// Sum or Mean of all elements into out (shape [1]). The mean of no elements is NaN (floats)
// or 0 (ints).
TensorHandle ReduceAll(ReduceOp op, const TensorHandle& x, const TensorIr& out, ThreadPool& pool);

// --- matmul.cpp --------------------------------------------------------------------------
// [..., m, k] x [..., k, n] -> out [..., m, n], batch dims broadcast numpy-style. Floats
// accumulate in f32 (OpenBLAS's sgemm), ints in wrapping i64.
TensorHandle Matmul(const TensorHandle& lhs, const TensorHandle& rhs, const TensorIr& out,
                    ThreadPool& pool);
// Makes OpenBLAS run each call on its calling thread: its own threading changes results with
// the thread count, so the pool threads a product instead (matmul.cpp). Process-wide.
void ConfigureBlasThreads();

}  // namespace ember::cpu

// Comparison kernels: the result is 1 or 0 in the compute domain, stored into the output's
// dtype (bool) by MapTiles.
#include <cstdint>

#include "engine/runtime/cpu/kernels.h"

namespace ember::cpu {
namespace {

using F = const float* const*;
using I = const int64_t* const*;

// IEEE comparisons: every comparison with a NaN is false.
FloatTileFn FloatCompare(CompareOp op) {
  switch (op) {
    case CompareOp::kEqual:
      return [](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] == in[1][i] ? 1.0f : 0.0f;
      };
    case CompareOp::kLower:
      return [](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] < in[1][i] ? 1.0f : 0.0f;
      };
    case CompareOp::kGreater:
      return [](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] > in[1][i] ? 1.0f : 0.0f;
      };
    case CompareOp::kLowerEqual:
      return [](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] <= in[1][i] ? 1.0f : 0.0f;
      };
    case CompareOp::kGreaterEqual:
      return [](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] >= in[1][i] ? 1.0f : 0.0f;
      };
  }
  return nullptr;
}

IntTileFn IntCompare(CompareOp op) {
  switch (op) {
    case CompareOp::kEqual:
      return [](I in, int64_t* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] == in[1][i];
      };
    case CompareOp::kLower:
      return [](I in, int64_t* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] < in[1][i];
      };
    case CompareOp::kGreater:
      return [](I in, int64_t* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] > in[1][i];
      };
    case CompareOp::kLowerEqual:
      return [](I in, int64_t* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] <= in[1][i];
      };
    case CompareOp::kGreaterEqual:
      return [](I in, int64_t* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] >= in[1][i];
      };
  }
  return nullptr;
}

}  // namespace

TileOp CompareTile(CompareOp op, DType lhs) {
  // The lhs's dtype (the op's family) picks the domain: f32 for floats, i64 for ints and bool.
  return {DomainOf(lhs), FloatCompare(op), IntCompare(op)};
}

TensorHandle Compare(CompareOp op, const Operand& lhs, const Operand& rhs, const TensorIr& out,
                     ThreadPool& pool) {
  const Operand operands[] = {lhs, rhs};
  return MapTiles(CompareTile(op, lhs.dtype(out.dtype)), operands, out, pool);
}

}  // namespace ember::cpu

// The CPU's kernel table (kernels.h, ElementTile): one tile function for MapTiles
// (map_tiles.h) per fused op and compute domain, and the unfused kernel that runs them.
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include <ember/error.h>

#include "engine/runtime/cpu/convert.h"
#include "engine/runtime/cpu/kernels.h"
#include "engine/runtime/cpu/vector_math.h"

namespace ember::cpu {
namespace {

using F = const float* const*;
using I = const int64_t* const*;

// Integer arithmetic wraps (two's complement) instead of overflowing into UB; results are
// then stored in the output dtype, so i32 math wraps at 32 bits as the hardware would.
int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t WrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
int64_t WrapNeg(int64_t a) { return static_cast<int64_t>(0 - static_cast<uint64_t>(a)); }

// Truncates toward zero. By zero: 0 (no trap). By -1: negation, so INT64_MIN / -1 wraps
// instead of trapping.
int64_t IntDiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return WrapNeg(a);
  return a / b;
}

// The divisor's sign (Python's %, burn's remainder); by zero: 0.
int64_t IntRem(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  const int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

// A unary op that computes in f32 whatever its input's dtype.
TileOp FloatOnly(FloatTileFn fn) { return {Domain::kFloat, fn, nullptr}; }

}  // namespace

TileOp ElementTile(FuseOpKind kind, DType dtype) {
  const Domain domain = DomainOf(dtype);
  switch (kind) {
    case FuseOpKind::kAssign: break;  // no tile function: a conversion
    case FuseOpKind::kAdd:
      return {domain,
              [](F in, float* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] + in[1][i];
              },
              [](I in, int64_t* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = WrapAdd(in[0][i], in[1][i]);
              },
              [](F in, float* out, int64_t n) {
                const float rhs = in[1][0];
                for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] + rhs;
              }};
    case FuseOpKind::kSub:
      return {domain,
              [](F in, float* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] - in[1][i];
              },
              [](I in, int64_t* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = WrapSub(in[0][i], in[1][i]);
              },
              [](F in, float* out, int64_t n) {
                const float rhs = in[1][0];
                for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] - rhs;
              }};
    case FuseOpKind::kMul:
      return {domain,
              [](F in, float* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] * in[1][i];
              },
              [](I in, int64_t* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = WrapMul(in[0][i], in[1][i]);
              },
              [](F in, float* out, int64_t n) {
                const float rhs = in[1][0];
                for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] * rhs;
              }};
    case FuseOpKind::kDiv:
      return {domain,
              [](F in, float* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] / in[1][i];
              },
              [](I in, int64_t* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = IntDiv(in[0][i], in[1][i]);
              },
              [](F in, float* out, int64_t n) {
                const float rhs = in[1][0];
                for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] / rhs;
              }};
    case FuseOpKind::kRem:
      return {domain,
              [](F in, float* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) {
                  const float x = in[0][i], y = in[1][i];
                  out[i] = x - std::floor(x / y) * y;
                }
              },
              [](I in, int64_t* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = IntRem(in[0][i], in[1][i]);
              }};
    case FuseOpKind::kPowf:
      return {domain,
              [](F in, float* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = std::pow(in[0][i], in[1][i]);
              },
              [](I in, int64_t* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) {
                  out[i] = SaturatingToInt64(
                      std::pow(static_cast<double>(in[0][i]), static_cast<double>(in[1][i])));
                }
              }};
    case FuseOpKind::kAbs:
      return {domain,
              [](F in, float* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = std::fabs(in[0][i]);
              },
              [](I in, int64_t* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) {
                  out[i] = in[0][i] < 0 ? WrapNeg(in[0][i]) : in[0][i];
                }
              }};
    case FuseOpKind::kNeg:
      return {domain,
              [](F in, float* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = -in[0][i];
              },
              [](I in, int64_t* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = WrapNeg(in[0][i]);
              }};
    case FuseOpKind::kExp:
      return FloatOnly(
          [](F in, float* out, int64_t n) { ApplyVectorFn(VectorFn::kExp, in[0], out, n); });
    case FuseOpKind::kLog:
      return FloatOnly(
          [](F in, float* out, int64_t n) { ApplyVectorFn(VectorFn::kLog, in[0], out, n); });
    case FuseOpKind::kLog1p:
      return FloatOnly(
          [](F in, float* out, int64_t n) { ApplyVectorFn(VectorFn::kLog1p, in[0], out, n); });
    case FuseOpKind::kSqrt:
      return FloatOnly([](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = std::sqrt(in[0][i]);
      });
    case FuseOpKind::kRecip:
      return FloatOnly([](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = 1.0f / in[0][i];
      });
    case FuseOpKind::kSin:
      return FloatOnly(
          [](F in, float* out, int64_t n) { ApplyVectorFn(VectorFn::kSin, in[0], out, n); });
    case FuseOpKind::kCos:
      return FloatOnly(
          [](F in, float* out, int64_t n) { ApplyVectorFn(VectorFn::kCos, in[0], out, n); });
    case FuseOpKind::kTanh:
      return FloatOnly(
          [](F in, float* out, int64_t n) { ApplyVectorFn(VectorFn::kTanh, in[0], out, n); });
    case FuseOpKind::kErf:
      return FloatOnly(
          [](F in, float* out, int64_t n) { ApplyVectorFn(VectorFn::kErf, in[0], out, n); });
    // IEEE comparisons: every comparison with a NaN is false.
    case FuseOpKind::kEqual:
      return {domain,
              [](F in, float* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] == in[1][i] ? 1.0f : 0.0f;
              },
              [](I in, int64_t* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] == in[1][i];
              }};
    case FuseOpKind::kLower:
      return {domain,
              [](F in, float* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] < in[1][i] ? 1.0f : 0.0f;
              },
              [](I in, int64_t* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] < in[1][i];
              }};
    case FuseOpKind::kGreater:
      return {domain,
              [](F in, float* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] > in[1][i] ? 1.0f : 0.0f;
              },
              [](I in, int64_t* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] > in[1][i];
              }};
    case FuseOpKind::kLowerEqual:
      return {domain,
              [](F in, float* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] <= in[1][i] ? 1.0f : 0.0f;
              },
              [](I in, int64_t* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] <= in[1][i];
              }};
    case FuseOpKind::kGreaterEqual:
      return {domain,
              [](F in, float* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] >= in[1][i] ? 1.0f : 0.0f;
              },
              [](I in, int64_t* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] >= in[1][i];
              }};
    case FuseOpKind::kClamp:
      return {domain,
              [](F in, float* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) {
                  const float v = in[0][i];
                  out[i] = v < in[1][i] ? in[1][i] : (v > in[2][i] ? in[2][i] : v);
                }
              },
              [](I in, int64_t* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) {
                  const int64_t v = in[0][i];
                  out[i] = v < in[1][i] ? in[1][i] : (v > in[2][i] ? in[2][i] : v);
                }
              }};
    case FuseOpKind::kConditionalAssign:  // MaskWhere's operands: tensor, mask, value
      return {domain,
              [](F in, float* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = in[1][i] != 0.0f ? in[2][i] : in[0][i];
              },
              [](I in, int64_t* out, int64_t n) {
                for (int64_t i = 0; i < n; ++i) out[i] = in[1][i] != 0 ? in[2][i] : in[0][i];
              }};
    // Indexed reads (Note [Indexed inputs], engine/trace/fuse_trace.h) are not element functions.
    case FuseOpKind::kGather:
    case FuseOpKind::kSelect:
    case FuseOpKind::kCat: break;
  }
  throw Error(fmt::format("fused {} has no tile function", FuseOpKindName(kind)));
}

TensorHandle Elementwise(FuseOpKind kind, std::span<const Operand> operands, const TensorIr& out,
                         ThreadPool& pool) {
  return MapTiles(ElementTile(kind, operands[0].dtype(out.dtype)), operands, out, pool);
}

}  // namespace ember::cpu

// Arithmetic and math kernels: tile functions for MapTiles (map_tiles.h), one per op and
// compute domain.
#include <cmath>
#include <cstdint>

#include "engine/runtime/cpu/convert.h"
#include "engine/runtime/cpu/kernels.h"

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

FloatTileFn FloatUnary(UnaryOp op) {
  switch (op) {
    case UnaryOp::kAbs:
      return [](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = std::fabs(in[0][i]);
      };
    case UnaryOp::kNeg:
      return [](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = -in[0][i];
      };
    case UnaryOp::kExp:
      return [](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = std::exp(in[0][i]);
      };
    case UnaryOp::kLog:
      return [](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = std::log(in[0][i]);
      };
    case UnaryOp::kLog1p:
      return [](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = std::log1p(in[0][i]);
      };
    case UnaryOp::kSqrt:
      return [](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = std::sqrt(in[0][i]);
      };
    case UnaryOp::kRecip:
      return [](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = 1.0f / in[0][i];
      };
    case UnaryOp::kSin:
      return [](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = std::sin(in[0][i]);
      };
    case UnaryOp::kCos:
      return [](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = std::cos(in[0][i]);
      };
    case UnaryOp::kTanh:
      return [](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = std::tanh(in[0][i]);
      };
    case UnaryOp::kErf:
      return [](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = std::erf(in[0][i]);
      };
  }
  return nullptr;
}

FloatTileFn FloatBinary(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return [](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] + in[1][i];
      };
    case BinaryOp::kSub:
      return [](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] - in[1][i];
      };
    case BinaryOp::kMul:
      return [](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] * in[1][i];
      };
    case BinaryOp::kDiv:
      return [](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] / in[1][i];
      };
    case BinaryOp::kRem:
      return [](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          const float x = in[0][i], y = in[1][i];
          out[i] = x - std::floor(x / y) * y;
        }
      };
    case BinaryOp::kPow:
      return [](F in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = std::pow(in[0][i], in[1][i]);
      };
  }
  return nullptr;
}

IntTileFn IntBinary(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return [](I in, int64_t* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = WrapAdd(in[0][i], in[1][i]);
      };
    case BinaryOp::kSub:
      return [](I in, int64_t* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = WrapSub(in[0][i], in[1][i]);
      };
    case BinaryOp::kMul:
      return [](I in, int64_t* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = WrapMul(in[0][i], in[1][i]);
      };
    case BinaryOp::kDiv:
      return [](I in, int64_t* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = IntDiv(in[0][i], in[1][i]);
      };
    case BinaryOp::kRem:
      return [](I in, int64_t* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = IntRem(in[0][i], in[1][i]);
      };
    case BinaryOp::kPow:
      return [](I in, int64_t* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          out[i] = SaturatingToInt64(
              std::pow(static_cast<double>(in[0][i]), static_cast<double>(in[1][i])));
        }
      };
  }
  return nullptr;
}

}  // namespace

TileOp UnaryTile(UnaryOp op, DType x) {
  const bool int_sign_op = op == UnaryOp::kAbs || op == UnaryOp::kNeg;
  if (!int_sign_op || DomainOf(x) != Domain::kInt) return {Domain::kFloat, FloatUnary(op), nullptr};
  if (op == UnaryOp::kAbs) {
    return {Domain::kInt, nullptr, [](I in, int64_t* out, int64_t n) {
              for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] < 0 ? WrapNeg(in[0][i]) : in[0][i];
            }};
  }
  return {Domain::kInt, nullptr, [](I in, int64_t* out, int64_t n) {
            for (int64_t i = 0; i < n; ++i) out[i] = WrapNeg(in[0][i]);
          }};
}

TileOp BinaryTile(BinaryOp op, DType lhs) {
  return {DomainOf(lhs), FloatBinary(op), IntBinary(op)};
}

TileOp ClampTile(DType x) {
  return {DomainOf(x),
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
}

TileOp MaskWhereTile(DType tensor) {
  return {DomainOf(tensor),
          [](F in, float* out, int64_t n) {
            for (int64_t i = 0; i < n; ++i) out[i] = in[1][i] != 0.0f ? in[2][i] : in[0][i];
          },
          [](I in, int64_t* out, int64_t n) {
            for (int64_t i = 0; i < n; ++i) out[i] = in[1][i] != 0 ? in[2][i] : in[0][i];
          }};
}

TensorHandle Unary(UnaryOp op, const Operand& x, const TensorIr& out, ThreadPool& pool) {
  const Operand operands[] = {x};
  return MapTiles(UnaryTile(op, x.dtype(out.dtype)), operands, out, pool);
}

TensorHandle Binary(BinaryOp op, const Operand& lhs, const Operand& rhs, const TensorIr& out,
                    ThreadPool& pool) {
  const Operand operands[] = {lhs, rhs};
  return MapTiles(BinaryTile(op, lhs.dtype(out.dtype)), operands, out, pool);
}

TensorHandle Clamp(const Operand& x, const Operand& lo, const Operand& hi, const TensorIr& out,
                   ThreadPool& pool) {
  const Operand operands[] = {x, lo, hi};
  return MapTiles(ClampTile(x.dtype(out.dtype)), operands, out, pool);
}

TensorHandle MaskWhere(const Operand& tensor, const Operand& mask, const Operand& value,
                       const TensorIr& out, ThreadPool& pool) {
  const Operand operands[] = {tensor, mask, value};
  return MapTiles(MaskWhereTile(tensor.dtype(out.dtype)), operands, out, pool);
}

}  // namespace ember::cpu

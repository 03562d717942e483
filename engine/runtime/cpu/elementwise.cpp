// The CPU's kernel table (kernels.h, ElementTile): one tile function for MapTiles
// (map_tiles.h) per fused op and compute domain, on two targets, and the unfused kernel that
// runs them.
//
// Note [Tile function targets]
// The build is baseline x86-64 (SSE2), so a loop compiled once runs four floats or two int64s
// per instruction even on a machine with AVX2; SLEEF (vector_math.h) and the lane folds
// (reduce_lanes.h) already pick AVX2 at run time. Each tile function is therefore one body, an
// element function inlined into a loop (FloatBinary and the like below), instantiated twice:
// once for the baseline and once inside a function compiled for AVX2, and ElementTile hands
// out one set, picked once per process (ElementTileTarget). The element functions are IEEE
// add, sub, mul, div, sqrt, compares, selects, floor, sign flips and integer arithmetic, which
// give the same bits at any vector width (two NaNs in one add or multiply: Note [NaN operand
// order]); "fma" is left out of the AVX2 target so that no multiply and add can be contracted
// (Rem's x - floor(x / y) * y), and nothing is reassociated (no fast-math). pow, SLEEF's
// functions and the int domain's double pow are calls, the same functions on both targets. So
// both sets agree bit for bit (tests/runtime/cpu/cpu_element_targets_test.cpp runs every op
// and domain on both), and the unfused kernels and the fused interpreter, which both take
// ElementTile's set, agree with each other.
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

// Every element function is inlined into the target's loop: a call would leave the loop
// scalar, and the AVX2 loop may call only functions compiled for a subset of its target.
#define EMBER_ELEMENT [[gnu::always_inline]] inline

// Integer arithmetic wraps (two's complement) instead of overflowing into UB; results are
// then stored in the output dtype, so i32 math wraps at 32 bits as the hardware would.
EMBER_ELEMENT int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
EMBER_ELEMENT int64_t WrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
EMBER_ELEMENT int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
EMBER_ELEMENT int64_t WrapNeg(int64_t a) {
  return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
}

// Note [NaN operand order]
// An x86 add or multiply of two NaNs returns the first operand's NaN (quieted), and the
// compiler may swap the operands of a commutative op (it did: the repeated right operand's
// vector loop put the number held in a register first, its scalar tail did not), so a + b of
// two NaNs with different payloads could differ between targets, between the vector body and
// the tail, and between the repeated and the filled right operand (fused against unfused).
// A NaN a therefore meets itself, a + a, which has one NaN whatever the order: the result is
// always a's NaN quieted when a is a NaN, else b's, the bits the written order gives. The
// choice is a select of the operand, not of two results, so the loop still vectorizes (GCC
// does not compute both of two trapping adds to select between them). Sub, Div and Rem do not
// commute, so their order is the written one already (Rem's inner multiply may take either
// NaN, but a NaN x then wins the subtraction, and a NaN y alone gives one payload).
EMBER_ELEMENT float OtherUnlessNaN(float a, float b) { return a != a ? a : b; }

// The element functions of each op, float (f) and int (i). Ops without an int function are
// float-only (FloatOnly) or unused in the int domain.
struct Add {
  EMBER_ELEMENT static float f(float a, float b) { return a + OtherUnlessNaN(a, b); }
  EMBER_ELEMENT static int64_t i(int64_t a, int64_t b) { return WrapAdd(a, b); }
};
struct Sub {
  EMBER_ELEMENT static float f(float a, float b) { return a - b; }
  EMBER_ELEMENT static int64_t i(int64_t a, int64_t b) { return WrapSub(a, b); }
};
struct Mul {
  EMBER_ELEMENT static float f(float a, float b) { return a * OtherUnlessNaN(a, b); }
  EMBER_ELEMENT static int64_t i(int64_t a, int64_t b) { return WrapMul(a, b); }
};
struct Div {
  EMBER_ELEMENT static float f(float a, float b) { return a / b; }
  // Truncates toward zero. By zero: 0 (no trap). By -1: negation, so INT64_MIN / -1 wraps
  // instead of trapping.
  EMBER_ELEMENT static int64_t i(int64_t a, int64_t b) {
    if (b == 0) return 0;
    if (b == -1) return WrapNeg(a);
    return a / b;
  }
};
struct Rem {
  EMBER_ELEMENT static float f(float x, float y) { return x - std::floor(x / y) * y; }
  // The divisor's sign (Python's %, burn's remainder); by zero: 0.
  EMBER_ELEMENT static int64_t i(int64_t a, int64_t b) {
    if (b == 0 || b == -1) return 0;
    const int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
  }
};
struct Pow {
  EMBER_ELEMENT static float f(float a, float b) { return std::pow(a, b); }
  EMBER_ELEMENT static int64_t i(int64_t a, int64_t b) {
    return SaturatingToInt64(std::pow(static_cast<double>(a), static_cast<double>(b)));
  }
};
struct Abs {
  EMBER_ELEMENT static float f(float a) { return std::fabs(a); }
  EMBER_ELEMENT static int64_t i(int64_t a) { return a < 0 ? WrapNeg(a) : a; }
};
struct Neg {
  EMBER_ELEMENT static float f(float a) { return -a; }
  EMBER_ELEMENT static int64_t i(int64_t a) { return WrapNeg(a); }
};
struct Sqrt {
  EMBER_ELEMENT static float f(float a) { return std::sqrt(a); }
};
struct Recip {
  EMBER_ELEMENT static float f(float a) { return 1.0f / a; }
};
// IEEE comparisons: every comparison with a NaN is false.
struct Equal {
  EMBER_ELEMENT static float f(float a, float b) { return a == b ? 1.0f : 0.0f; }
  EMBER_ELEMENT static int64_t i(int64_t a, int64_t b) { return a == b; }
};
struct Lower {
  EMBER_ELEMENT static float f(float a, float b) { return a < b ? 1.0f : 0.0f; }
  EMBER_ELEMENT static int64_t i(int64_t a, int64_t b) { return a < b; }
};
struct Greater {
  EMBER_ELEMENT static float f(float a, float b) { return a > b ? 1.0f : 0.0f; }
  EMBER_ELEMENT static int64_t i(int64_t a, int64_t b) { return a > b; }
};
struct LowerEqual {
  EMBER_ELEMENT static float f(float a, float b) { return a <= b ? 1.0f : 0.0f; }
  EMBER_ELEMENT static int64_t i(int64_t a, int64_t b) { return a <= b; }
};
struct GreaterEqual {
  EMBER_ELEMENT static float f(float a, float b) { return a >= b ? 1.0f : 0.0f; }
  EMBER_ELEMENT static int64_t i(int64_t a, int64_t b) { return a >= b; }
};
struct Clamp {
  template <typename T>
  EMBER_ELEMENT static T Of(T v, T lo, T hi) {
    return v < lo ? lo : (v > hi ? hi : v);
  }
  EMBER_ELEMENT static float f(float v, float lo, float hi) { return Of(v, lo, hi); }
  EMBER_ELEMENT static int64_t i(int64_t v, int64_t lo, int64_t hi) { return Of(v, lo, hi); }
};
struct ConditionalAssign {  // MaskWhere's operands: tensor, mask, value
  EMBER_ELEMENT static float f(float x, float mask, float value) {
    return mask != 0.0f ? value : x;
  }
  EMBER_ELEMENT static int64_t i(int64_t x, int64_t mask, int64_t value) {
    return mask != 0 ? value : x;
  }
};

// Note [Bitwise ops]
// burn's fused bitwise ops (burn-cubecl-fusion's engine/codegen/ir.rs, BitwiseAnd ...
// BitwiseNot) are Int-only, and so are ember's: the API refuses float and bool tensors
// (engine/api/tensor_math.cpp). The backends compute them in the i64 domain whatever their
// operands' dtype (IntOnly below; the CUDA generator's IntOnly, codegen/cuda_expr.h), as the
// float math ops compute in f32 whatever theirs, so each op has one domain and no other form.
// Ints are loaded into i64 (Note [CPU compute domains], convert.h) and stored back wrapping, so
// for And, Or, Xor and Not the i64 result truncated to i32 is the i32 result. A shift's amount
// is a signed number:
//   left:  an amount in [0, 64) shifts the unsigned bits (no signed-overflow UB); any other
//          amount (negative, 64 or more) gives 0;
//   right: arithmetic (sign-filling); an amount outside [0, 64) shifts by 63, which is the sign
//          fill (0 or -1).
// That is NumPy's left_shift and right_shift for int64 (npy_lshift and npy_rshift in numpy's
// numpy/_core/src/npymath/npy_math_internal.h.src, numpy/core/ before NumPy 2: an amount past
// the width, or a negative one through the unsigned cast, gives 0 or the sign fill), and for
// int32 as well: an i32 value shifted left by 32..63 in i64 has its low 32 bits zero, so it
// wraps to 0, and shifted right by them it is its sign fill already. The CUDA generator writes
// the same expressions over i64.
struct BitwiseAnd {
  EMBER_ELEMENT static int64_t i(int64_t a, int64_t b) { return a & b; }
};
struct BitwiseOr {
  EMBER_ELEMENT static int64_t i(int64_t a, int64_t b) { return a | b; }
};
struct BitwiseXor {
  EMBER_ELEMENT static int64_t i(int64_t a, int64_t b) { return a ^ b; }
};
struct BitwiseLeftShift {
  EMBER_ELEMENT static int64_t i(int64_t a, int64_t b) {
    return static_cast<uint64_t>(b) < 64
               ? static_cast<int64_t>(static_cast<uint64_t>(a) << static_cast<uint64_t>(b))
               : 0;
  }
};
struct BitwiseRightShift {
  EMBER_ELEMENT static int64_t i(int64_t a, int64_t b) {
    return a >> (static_cast<uint64_t>(b) < 64 ? b : 63);
  }
};
struct BitwiseNot {
  EMBER_ELEMENT static int64_t i(int64_t a) { return ~a; }
};

// The loops, one per arity and domain, plus the repeated right operand (TileOp).
template <typename Op>
EMBER_ELEMENT void FloatUnary(F in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = Op::f(in[0][i]);
}
template <typename Op>
EMBER_ELEMENT void IntUnary(I in, int64_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = Op::i(in[0][i]);
}
template <typename Op>
EMBER_ELEMENT void FloatBinary(F in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = Op::f(in[0][i], in[1][i]);
}
template <typename Op>
EMBER_ELEMENT void IntBinary(I in, int64_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = Op::i(in[0][i], in[1][i]);
}
template <typename Op>
EMBER_ELEMENT void FloatRepeated(F in, float* out, int64_t n) {
  const float rhs = in[1][0];
  for (int64_t i = 0; i < n; ++i) out[i] = Op::f(in[0][i], rhs);
}
template <typename Op>
EMBER_ELEMENT void FloatTernary(F in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = Op::f(in[0][i], in[1][i], in[2][i]);
}
template <typename Op>
EMBER_ELEMENT void IntTernary(I in, int64_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = Op::i(in[0][i], in[1][i], in[2][i]);
}

#undef EMBER_ELEMENT

// The two instantiations of a loop (Note [Tile function targets]).
template <typename T, void (*Loop)(const T* const*, T*, int64_t)>
void OnBaseline(const T* const* in, T* out, int64_t n) {
  Loop(in, out, n);
}
// No "fma" in the target: Rem's multiply and subtract must not become one instruction.
template <typename T, void (*Loop)(const T* const*, T*, int64_t)>
__attribute__((target("avx2"))) void OnAvx2(const T* const* in, T* out, int64_t n) {
  Loop(in, out, n);
}

template <ElementTarget target, typename T, void (*Loop)(const T* const*, T*, int64_t)>
constexpr auto On() {
  if constexpr (target == ElementTarget::kAvx2) {
    return &OnAvx2<T, Loop>;
  } else {
    return &OnBaseline<T, Loop>;
  }
}

template <ElementTarget t, typename Op>
TileOp Unary(Domain domain) {
  return {domain, On<t, float, FloatUnary<Op>>(), On<t, int64_t, IntUnary<Op>>()};
}
template <ElementTarget t, typename Op>
TileOp Binary(Domain domain) {
  return {domain, On<t, float, FloatBinary<Op>>(), On<t, int64_t, IntBinary<Op>>()};
}
// Add, Sub, Mul and Div also take a row's statistic as one repeated number (map_tiles.h).
template <ElementTarget t, typename Op>
TileOp Arithmetic(Domain domain) {
  TileOp op = Binary<t, Op>(domain);
  op.float_rhs_repeated = On<t, float, FloatRepeated<Op>>();
  return op;
}
template <ElementTarget t, typename Op>
TileOp Ternary(Domain domain) {
  return {domain, On<t, float, FloatTernary<Op>>(), On<t, int64_t, IntTernary<Op>>()};
}
// A unary op that computes in f32 whatever its input's dtype.
template <ElementTarget t, typename Op>
TileOp FloatOnly() {
  return {Domain::kFloat, On<t, float, FloatUnary<Op>>(), nullptr};
}
// SLEEF's functions pick their own target (vector_math.h): the same function on both.
TileOp FloatOnly(FloatTileFn fn) { return {Domain::kFloat, fn, nullptr}; }
// An op that computes in i64 whatever its operands' dtype (Note [Bitwise ops]).
template <ElementTarget t, typename Op>
TileOp IntOnly() {
  if constexpr (requires { Op::i(int64_t{}, int64_t{}); }) {
    return {Domain::kInt, nullptr, On<t, int64_t, IntBinary<Op>>()};
  } else {
    return {Domain::kInt, nullptr, On<t, int64_t, IntUnary<Op>>()};
  }
}

template <ElementTarget t>
TileOp TileOn(FuseOpKind kind, DType dtype) {
  const Domain domain = DomainOf(dtype);
  switch (kind) {
    case FuseOpKind::kAssign: break;  // no tile function: a conversion
    case FuseOpKind::kAdd: return Arithmetic<t, Add>(domain);
    case FuseOpKind::kSub: return Arithmetic<t, Sub>(domain);
    case FuseOpKind::kMul: return Arithmetic<t, Mul>(domain);
    case FuseOpKind::kDiv: return Arithmetic<t, Div>(domain);
    case FuseOpKind::kRem: return Binary<t, Rem>(domain);
    case FuseOpKind::kPowf: return Binary<t, Pow>(domain);
    case FuseOpKind::kAbs: return Unary<t, Abs>(domain);
    case FuseOpKind::kNeg: return Unary<t, Neg>(domain);
    case FuseOpKind::kExp:
      return FloatOnly(
          [](F in, float* out, int64_t n) { ApplyVectorFn(VectorFn::kExp, in[0], out, n); });
    case FuseOpKind::kLog:
      return FloatOnly(
          [](F in, float* out, int64_t n) { ApplyVectorFn(VectorFn::kLog, in[0], out, n); });
    case FuseOpKind::kLog1p:
      return FloatOnly(
          [](F in, float* out, int64_t n) { ApplyVectorFn(VectorFn::kLog1p, in[0], out, n); });
    case FuseOpKind::kSqrt: return FloatOnly<t, Sqrt>();
    case FuseOpKind::kRecip: return FloatOnly<t, Recip>();
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
    case FuseOpKind::kEqual: return Binary<t, Equal>(domain);
    case FuseOpKind::kLower: return Binary<t, Lower>(domain);
    case FuseOpKind::kGreater: return Binary<t, Greater>(domain);
    case FuseOpKind::kLowerEqual: return Binary<t, LowerEqual>(domain);
    case FuseOpKind::kGreaterEqual: return Binary<t, GreaterEqual>(domain);
    case FuseOpKind::kClamp: return Ternary<t, Clamp>(domain);
    case FuseOpKind::kConditionalAssign: return Ternary<t, ConditionalAssign>(domain);
    // Indexed reads (Note [Indexed inputs], engine/trace/fuse_trace.h) are not element functions.
    case FuseOpKind::kGather:
    case FuseOpKind::kSelect:
    case FuseOpKind::kCat: break;
    case FuseOpKind::kBitwiseAnd: return IntOnly<t, BitwiseAnd>();
    case FuseOpKind::kBitwiseOr: return IntOnly<t, BitwiseOr>();
    case FuseOpKind::kBitwiseXor: return IntOnly<t, BitwiseXor>();
    case FuseOpKind::kBitwiseLeftShift: return IntOnly<t, BitwiseLeftShift>();
    case FuseOpKind::kBitwiseRightShift: return IntOnly<t, BitwiseRightShift>();
    case FuseOpKind::kBitwiseNot: return IntOnly<t, BitwiseNot>();
  }
  throw Error(fmt::format("fused {} has no tile function", FuseOpKindName(kind)));
}

// AVX2 where the CPU has it, unless EMBER_CPU_VECTOR_MATH=sse asks for the baseline, so the
// path machines without AVX2 run is tested on any machine (the CpuVectorMath.SsePath test).
ElementTarget PickTarget() {
  if (!VectorMathForcedSse() && ElementTargetAvailable(ElementTarget::kAvx2)) {
    return ElementTarget::kAvx2;
  }
  return ElementTarget::kBaseline;
}

}  // namespace

bool ElementTargetAvailable(ElementTarget target) {
  switch (target) {
    case ElementTarget::kBaseline: return true;
    case ElementTarget::kAvx2: return __builtin_cpu_supports("avx2");
  }
  return false;
}

ElementTarget ElementTileTarget() {
  static const ElementTarget target = PickTarget();
  return target;
}

TileOp ElementTileOn(ElementTarget target, FuseOpKind kind, DType dtype) {
  switch (target) {
    case ElementTarget::kBaseline: return TileOn<ElementTarget::kBaseline>(kind, dtype);
    case ElementTarget::kAvx2: return TileOn<ElementTarget::kAvx2>(kind, dtype);
  }
  throw Error("unknown tile function target");
}

TileOp ElementTile(FuseOpKind kind, DType dtype) {
  return ElementTileOn(ElementTileTarget(), kind, dtype);
}

TensorHandle Elementwise(FuseOpKind kind, std::span<const Operand> operands, const TensorIr& out,
                         ThreadPool& pool) {
  return MapTiles(ElementTile(kind, operands[0].dtype(out.dtype)), operands, out, pool);
}

}  // namespace ember::cpu

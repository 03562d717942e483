#include "codegen/prelude.h"

namespace ember::codegen {

// The device code every generated kernel starts with. The rules are the CPU backend's, so a
// GPU result differs from the CPU's only by the last bits of the math functions:
//   Note [CPU compute domains] (engine/runtime/cpu/convert.h) for loads and stores;
//   the kernel table (engine/runtime/cpu/kernels.h, ElementTile) for the ops;
//   engine/runtime/cpu/reduce_fold.h for reductions (double / wrapping i64 accumulators, NaN
//   wins in max/min, the first extreme's index).
// Kept as one raw string so that the golden files show exactly what NVRTC compiles.
std::string_view CudaPrelude() {
  return R"cuda(#include <cuda_fp16.h>
#include <cuda_bf16.h>

typedef long long i64;
typedef unsigned long long u64;
typedef unsigned char u8;

// --- loads into the two compute domains (float for f32/f16/bf16, i64 for ints and bool) ---
__device__ __forceinline__ float ember_f(float x) { return x; }
__device__ __forceinline__ float ember_f(__half x) { return __half2float(x); }
__device__ __forceinline__ float ember_f(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ i64 ember_i(int x) { return (i64)x; }
__device__ __forceinline__ i64 ember_i(i64 x) { return x; }
__device__ __forceinline__ i64 ember_i(u8 x) { return x != 0 ? 1 : 0; }

// --- stores from either domain into each dtype ---
__device__ __forceinline__ i64 ember_sat_i64(float x) {
  if (x != x) return 0;
  if (x >= 9223372036854775808.0f) return 0x7fffffffffffffffLL;
  if (x < -9223372036854775808.0f) return (i64)0x8000000000000000ULL;
  return (i64)x;
}
__device__ __forceinline__ i64 ember_sat_i64(double x) {
  if (x != x) return 0;
  if (x >= 9223372036854775808.0) return 0x7fffffffffffffffLL;
  if (x < -9223372036854775808.0) return (i64)0x8000000000000000ULL;
  return (i64)x;
}
__device__ __forceinline__ float ember_to_f32(float x) { return x; }
__device__ __forceinline__ float ember_to_f32(i64 x) { return (float)x; }
__device__ __forceinline__ __half ember_to_f16(float x) { return __float2half_rn(x); }
__device__ __forceinline__ __half ember_to_f16(i64 x) { return __float2half_rn((float)x); }
__device__ __forceinline__ __nv_bfloat16 ember_to_bf16(float x) { return __float2bfloat16_rn(x); }
__device__ __forceinline__ __nv_bfloat16 ember_to_bf16(i64 x) {
  return __float2bfloat16_rn((float)x);
}
__device__ __forceinline__ int ember_to_i32(float x) {
  if (x != x) return 0;
  if (x >= 2147483648.0f) return 2147483647;
  if (x < -2147483648.0f) return (int)0x80000000u;
  return (int)x;
}
__device__ __forceinline__ int ember_to_i32(i64 x) { return (int)(unsigned)(u64)x; }
__device__ __forceinline__ i64 ember_to_i64(float x) { return ember_sat_i64(x); }
__device__ __forceinline__ i64 ember_to_i64(i64 x) { return x; }
__device__ __forceinline__ u8 ember_to_bool(float x) { return x != 0.0f ? 1 : 0; }
__device__ __forceinline__ u8 ember_to_bool(i64 x) { return x != 0 ? 1 : 0; }

// --- integer ops: wrapping, and the CPU's division rules ---
__device__ __forceinline__ i64 ember_add(i64 a, i64 b) { return (i64)((u64)a + (u64)b); }
__device__ __forceinline__ i64 ember_sub(i64 a, i64 b) { return (i64)((u64)a - (u64)b); }
__device__ __forceinline__ i64 ember_mul(i64 a, i64 b) { return (i64)((u64)a * (u64)b); }
__device__ __forceinline__ i64 ember_neg(i64 a) { return (i64)(0ULL - (u64)a); }
__device__ __forceinline__ i64 ember_abs(i64 a) { return a < 0 ? ember_neg(a) : a; }
__device__ __forceinline__ i64 ember_div(i64 a, i64 b) {
  if (b == 0) return 0;
  if (b == -1) return ember_neg(a);
  return a / b;
}
__device__ __forceinline__ i64 ember_rem(i64 a, i64 b) {
  if (b == 0 || b == -1) return 0;
  const i64 r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
__device__ __forceinline__ i64 ember_pow(i64 a, i64 b) {
  return ember_sat_i64(pow((double)a, (double)b));
}
__device__ __forceinline__ float ember_rem(float x, float y) { return x - floorf(x / y) * y; }

// --- vectors: W elements of T moved as one aligned access (16-byte LDG/STG pieces) ---
template <typename T, int W>
struct alignas(sizeof(T) * W) ember_pack {
  T v[W];
};
template <int W, typename T>
__device__ __forceinline__ void ember_load(const T* p, T (&out)[W]) {
  const ember_pack<T, W> k = *reinterpret_cast<const ember_pack<T, W>*>(p);
#pragma unroll
  for (int l = 0; l < W; ++l) out[l] = k.v[l];
}
template <int W, typename T>
__device__ __forceinline__ void ember_store(T* p, const T (&in)[W]) {
  ember_pack<T, W> k;
#pragma unroll
  for (int l = 0; l < W; ++l) k.v[l] = in[l];
  *reinterpret_cast<ember_pack<T, W>*>(p) = k;
}

// --- reductions (engine/runtime/cpu/reduce_fold.h): op numbers are ReduceStage::Kind's ---
// A partial result; index < 0 means it has seen no value yet.
template <typename A>
struct ember_acc {
  A v;
  i64 i;
};
template <typename A>
__device__ __forceinline__ bool ember_isnan(A x) { return x != x; }
template <int OP, typename A>
__device__ __forceinline__ bool ember_beats(A x, A best) {
  if (ember_isnan(best)) return false;
  if (ember_isnan(x)) return true;
  return (OP == 3 || OP == 5) ? x > best : x < best;
}
template <int OP, typename A>
__device__ __forceinline__ ember_acc<A> ember_acc_start() {
  ember_acc<A> a;
  a.v = OP == 2 ? (A)1 : (A)0;
  a.i = -1;
  return a;
}
template <typename A>
__device__ __forceinline__ A ember_wrap_add(A a, A b) { return a + b; }
template <>
__device__ __forceinline__ i64 ember_wrap_add<i64>(i64 a, i64 b) { return ember_add(a, b); }
template <typename A>
__device__ __forceinline__ A ember_wrap_mul(A a, A b) { return a * b; }
template <>
__device__ __forceinline__ i64 ember_wrap_mul<i64>(i64 a, i64 b) { return ember_mul(a, b); }
template <int OP, typename A>
__device__ __forceinline__ void ember_fold(ember_acc<A>& a, A x, i64 r) {
  if (OP == 0 || OP == 1) {
    a.v = ember_wrap_add(a.v, x);
    a.i = 0;
  } else if (OP == 2) {
    a.v = ember_wrap_mul(a.v, x);
    a.i = 0;
  } else if (a.i < 0 || ember_beats<OP>(x, a.v)) {
    a.v = x;
    a.i = r;
  }
}
template <int OP, typename A>
__device__ __forceinline__ ember_acc<A> ember_combine(ember_acc<A> a, ember_acc<A> b) {
  if (b.i < 0) return a;
  if (a.i < 0) return b;
  if (OP == 0 || OP == 1) { a.v = ember_wrap_add(a.v, b.v); return a; }
  if (OP == 2) { a.v = ember_wrap_mul(a.v, b.v); return a; }
  if (ember_beats<OP>(b.v, a.v)) return b;
  if (ember_beats<OP>(a.v, b.v)) return a;
  return b.i < a.i ? b : a;  // equal (or both NaN): the first one
}
// Combines every thread's partial; every thread gets the result. Uses `sv`/`si` (32 each).
template <int OP, typename A>
__device__ ember_acc<A> ember_block_reduce(ember_acc<A> a, A* sv, i64* si) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    ember_acc<A> b;
    b.v = __shfl_down_sync(0xffffffffu, a.v, o);
    b.i = __shfl_down_sync(0xffffffffu, a.i, o);
    a = ember_combine<OP>(a, b);
  }
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int warps = (blockDim.x + 31) >> 5;
  if (lane == 0) { sv[warp] = a.v; si[warp] = a.i; }
  __syncthreads();
  if (warp == 0) {
    a = ember_acc_start<OP, A>();
    if (lane < warps) { a.v = sv[lane]; a.i = si[lane]; }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
      ember_acc<A> b;
      b.v = __shfl_down_sync(0xffffffffu, a.v, o);
      b.i = __shfl_down_sync(0xffffffffu, a.i, o);
      a = ember_combine<OP>(a, b);
    }
    if (lane == 0) { sv[0] = a.v; si[0] = a.i; }
  }
  __syncthreads();
  a.v = sv[0];
  a.i = si[0];
  __syncthreads();  // sv/si are reused by the next reduction
  return a;
}
// The finished value (reduce_fold.h's Finish); an empty axis gives what the CPU gives.
template <int OP>
__device__ __forceinline__ float ember_finish_f(ember_acc<double> a, i64 length) {
  if (OP == 1) return (float)(a.v / (double)length);
  return a.i < 0 && OP != 0 && OP != 2 ? 0.0f : (float)a.v;
}
template <int OP>
__device__ __forceinline__ i64 ember_finish_i(ember_acc<i64> a, i64 length) {
  if (OP == 1) return length == 0 ? 0 : a.v / length;
  return a.i < 0 && OP != 0 && OP != 2 ? 0 : a.v;
}
template <typename A>
__device__ __forceinline__ i64 ember_finish_index(ember_acc<A> a) { return a.i < 0 ? 0 : a.i; }
)cuda";
}

}  // namespace ember::codegen

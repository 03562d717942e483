#include <cuda_fp16.h>
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
// Note [Reduce accumulators]. Each op folds in the cheapest state that gives the CPU's result:
//   Sum, Mean, Prod: the CPU's accumulator alone (double for floats, wrapping i64 for ints);
//     no index, no "seen" flag (the start value is the identity). Every element widens to
//     double before it is added: f32 partials of a few lanes would round where the row's sum
//     cancels, and a layernorm whose rows sit far from zero (x = 1000 + noise) then gets
//     another f32 mean in a few rows in a hundred, an error of 1e-5 norm-wise, the limit of
//     Note [GPU tolerances] (tests/gpu/gpu_test_util.h); added in double, the mean rounds as
//     the CPU's does.
//   Max, Min, ArgMax, ArgMin: ember_ext, the value in its element's domain (float or i64) and
//     its position along the axis. A float widened to double compares as it does in float, so
//     folding in float is exact; the position keeps the CPU's order rules where values tie
//     (the first NaN, the first extreme, and so -0 against +0), and index < 0 means no value
//     yet (an empty axis gives 0, as the CPU's Finish does).
template <typename A, typename I>
struct ember_ext {
  A v;
  I i;
};
template <typename A>
__device__ __forceinline__ bool ember_isnan(A x) { return x != x; }
template <int OP, typename A>
__device__ __forceinline__ bool ember_beats(A x, A best) {
  if (ember_isnan(best)) return false;
  if (ember_isnan(x)) return true;
  return (OP == 3 || OP == 5) ? x > best : x < best;
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
__device__ __forceinline__ void ember_start(A& a) { a = OP == 2 ? (A)1 : (A)0; }
template <int OP, typename A, typename I>
__device__ __forceinline__ void ember_start(ember_ext<A, I>& a) {
  a.v = (A)0;
  a.i = (I)-1;
}
template <int OP, typename A>
__device__ __forceinline__ void ember_fold(A& a, A x) {
  a = OP == 2 ? ember_wrap_mul(a, x) : ember_wrap_add(a, x);
}
template <int OP, typename A, typename I>
__device__ __forceinline__ void ember_fold(ember_ext<A, I>& a, A x, I r) {
  if (a.i < 0 || ember_beats<OP>(x, a.v)) {
    a.v = x;
    a.i = r;
  }
}
template <int OP, typename A>
__device__ __forceinline__ A ember_combine(A a, A b) {
  return OP == 2 ? ember_wrap_mul(a, b) : ember_wrap_add(a, b);
}
// Commutative (ties go to the lower position), so every lane of a butterfly ends with the
// same bits.
template <int OP, typename A, typename I>
__device__ __forceinline__ ember_ext<A, I> ember_combine(ember_ext<A, I> a, ember_ext<A, I> b) {
  if (b.i < 0) return a;
  if (a.i < 0) return b;
  if (ember_beats<OP>(b.v, a.v)) return b;
  if (ember_beats<OP>(a.v, b.v)) return a;
  return b.i < a.i ? b : a;  // equal (or both NaN): the first one
}
__device__ __forceinline__ float ember_shfl_xor(float v, int o) {
  return __shfl_xor_sync(0xffffffffu, v, o);
}
__device__ __forceinline__ double ember_shfl_xor(double v, int o) {
  return __shfl_xor_sync(0xffffffffu, v, o);
}
__device__ __forceinline__ i64 ember_shfl_xor(i64 v, int o) {
  return __shfl_xor_sync(0xffffffffu, v, o);
}
__device__ __forceinline__ int ember_shfl_xor(int v, int o) {
  return __shfl_xor_sync(0xffffffffu, v, o);
}
template <typename A, typename I>
__device__ __forceinline__ ember_ext<A, I> ember_shfl_xor(ember_ext<A, I> a, int o) {
  a.v = ember_shfl_xor(a.v, o);
  a.i = ember_shfl_xor(a.i, o);
  return a;
}
// Combines the partials of the G threads of a row group (G a power of two; groups are G
// consecutive threads, aligned); every thread of the group gets the result. Groups of up to
// 32 stay inside a warp (shuffles only); larger ones meet in `sv` (one entry per warp of the
// block). REQUIRES: every thread of the block calls it (it may __syncthreads).
template <int OP, int G, typename T>
__device__ __forceinline__ T ember_group_reduce(T a, T* sv) {
  constexpr int kLanes = G < 32 ? G : 32;
#pragma unroll
  for (int o = kLanes / 2; o > 0; o >>= 1) a = ember_combine<OP>(a, ember_shfl_xor(a, o));
  if constexpr (G > 32) {
    constexpr int kWarps = G / 32;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (lane == 0) sv[warp] = a;
    __syncthreads();
    // Every warp of the group combines the group's warps itself: no broadcast round.
    a = sv[(warp / kWarps) * kWarps + lane % kWarps];
#pragma unroll
    for (int o = kWarps / 2; o > 0; o >>= 1) a = ember_combine<OP>(a, ember_shfl_xor(a, o));
    __syncthreads();  // sv is reused by the next reduction
  }
  return a;
}
// The finished value (reduce_fold.h's Finish); an empty axis gives what the CPU gives.
template <int OP>
__device__ __forceinline__ float ember_finish_f(double a, i64 length) {
  return OP == 1 ? (float)(a / (double)length) : (float)a;
}
template <int OP, typename I>
__device__ __forceinline__ float ember_finish_f(ember_ext<float, I> a, i64 length) {
  return a.i < 0 ? 0.0f : a.v;
}
template <int OP>
__device__ __forceinline__ i64 ember_finish_i(i64 a, i64 length) {
  if (OP == 1) return length == 0 ? 0 : a / length;
  return a;
}
template <int OP, typename I>
__device__ __forceinline__ i64 ember_finish_i(ember_ext<i64, I> a, i64 length) {
  return a.i < 0 ? 0 : a.v;
}
template <typename A, typename I>
__device__ __forceinline__ i64 ember_finish_index(ember_ext<A, I> a) {
  return a.i < 0 ? 0 : (i64)a.i;
}
// A row's partial through 8-byte scratch words (kRowPartial -> kRowCombine): the value's bits,
// and for ember_ext its position in a second buffer.
__device__ __forceinline__ void ember_put(i64* v, i64* ix, i64 k, double a) {
  (void)ix;
  v[k] = __double_as_longlong(a);
}
__device__ __forceinline__ void ember_put(i64* v, i64* ix, i64 k, i64 a) {
  (void)ix;
  v[k] = a;
}
template <typename I>
__device__ __forceinline__ void ember_put(i64* v, i64* ix, i64 k, ember_ext<float, I> a) {
  v[k] = (i64)__float_as_uint(a.v);
  ix[k] = (i64)a.i;
}
template <typename I>
__device__ __forceinline__ void ember_put(i64* v, i64* ix, i64 k, ember_ext<i64, I> a) {
  v[k] = a.v;
  ix[k] = (i64)a.i;
}
__device__ __forceinline__ void ember_get(double& a, const i64* v, const i64* ix, i64 k) {
  (void)ix;
  a = __longlong_as_double(v[k]);
}
__device__ __forceinline__ void ember_get(i64& a, const i64* v, const i64* ix, i64 k) {
  (void)ix;
  a = v[k];
}
template <typename I>
__device__ __forceinline__ void ember_get(ember_ext<float, I>& a, const i64* v, const i64* ix,
                                          i64 k) {
  a.v = __uint_as_float((unsigned)v[k]);
  a.i = (I)ix[k];
}
template <typename I>
__device__ __forceinline__ void ember_get(ember_ext<i64, I>& a, const i64* v, const i64* ix,
                                          i64 k) {
  a.v = v[k];
  a.i = (I)ix[k];
}

// trace:
//   input 0: t0 [1,2]
//   output 0: t2 [1,0]
//   scalar 0: placeholder 0 as i32
//   block 0 over [1,2]:
//     read  l0:i32 = Assign(in0:i32)
//     op    l1:i32 = Mul(l0:i32, s0:i32)
//     write b0.v0:i32 = Assign(l1:i32)
//   reduce Sum axis 1 of b0.v0:i32 -> l0:i32 (acc i32)
//   block 1 over [1,0]:
//     write out0:i32 = Assign(l0:i32)
// kernel 0: grid 50 x 256 threads, 0 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=3 block=0 width=4 index64=false threads=256 group=256 shared=true b0:200 b1:010 dt:dde ua:111 full:10
struct Params { unsigned long long s[6]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(256) ember_fused(const Params p) {
  const int* __restrict__ t0 = (const int*)p.s[5];
  extern __shared__ __align__(16) unsigned char ember_smem[];
  __shared__ __align__(16) unsigned char ember_red[32 * 16];
  (void)ember_smem;
  (void)ember_red;
  const idx units = (idx)p.s[0];
  const idx L = (idx)p.s[1];
  i64* ember_pv = (i64*)p.s[2];
  i64* ember_pi = ember_pv;
  const idx P = (idx)p.s[3];
  const idx nvec = L / 4;
  const idx chunk = (nvec + P - 1) / P;
  for (idx ember_part = blockIdx.x; ember_part < units * P; ember_part += gridDim.x) {
    const idx u = ember_part / P;
    const idx lo = (ember_part % P) * chunk;
    const idx hi = lo + chunk < nvec ? lo + chunk : nvec;
    i64 acc0;
    ember_start<0>(acc0);
#pragma unroll 4
    for (idx ember_v = lo + (idx)threadIdx.x; ember_v < hi; ember_v += (idx)256) {
      const idx i = ember_v * 4;
      const idx pos = u * L + i;
      {
        i64 v0[4];
        { int raw[4]; ember_load<4>(t0 + pos, raw); _Pragma("unroll") for (int l = 0; l < 4; ++l) { v0[l] = ember_i(raw[l]); } }
        i64 v1[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v1[l] = (i64)p.s[4]; }
        i64 v2[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v2[l] = ember_mul(v0[l], v1[l]); }
        i64 v3[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v3[l] = ember_i(ember_to_i32(v2[l])); }
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { ember_fold<0>(acc0, (i64)v3[l]); }
      }
    }
    acc0 = ember_group_reduce<0, 256>(acc0, (i64*)ember_red);
    if (threadIdx.x == 0) ember_put(ember_pv, ember_pi, (i64)ember_part, acc0);
  }
}
// kernel 1: grid 2 x 32 threads, 0 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=4 block=0 width=4 index64=false threads=32 group=32 shared=true b0:200 b1:010 dt:dde ua:111 full:10
struct Params { unsigned long long s[5]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(32) ember_fused(const Params p) {
  int* __restrict__ t1 = (int*)p.s[4];
  extern __shared__ __align__(16) unsigned char ember_smem[];
  __shared__ __align__(16) unsigned char ember_red[32 * 16];
  (void)ember_smem;
  (void)ember_red;
  const idx units = (idx)p.s[0];
  const idx L = (idx)p.s[1];
  const i64* ember_pv = (const i64*)p.s[2];
  const i64* ember_pi = ember_pv;
  const idx P = (idx)p.s[3];
  for (idx u = blockIdx.x; u < units; u += gridDim.x) {
    i64 acc0;
    ember_start<0>(acc0);
    for (idx q = threadIdx.x; q < P; q += (idx)32) {
      i64 x;
      ember_get(x, ember_pv, ember_pi, (i64)(u * P + q));
      acc0 = ember_combine<0>(acc0, x);
    }
    acc0 = ember_group_reduce<0, 32>(acc0, (i64*)ember_red);
    const i64 rs0 = ember_i(ember_to_i32(ember_finish_i<0>(acc0, (i64)L)));
    {
      const idx pos = u;
      (void)pos;
      {
        i64 v0[1];
        { const int l = 0; v0[l] = rs0; }
        if (threadIdx.x == 0) {
        { const int l = 0; t1[pos + l] = ember_to_i32(v0[l]); }
        }
      }
    }
  }
}

// trace:
//   input 0: t0 [1,2]
//   output 0: t2 [1,0]
//   scalar 0: placeholder 0 as f16
//   block 0 over [1,2]:
//     read  l0:f16 = Assign(in0:f16)
//     op    l1:f16 = Mul(l0:f16, s0:f16)
//     write b0.v0:f16 = Assign(l1:f16)
//   reduce Mean axis 1 of b0.v0:f16 -> l0:f16 (acc f32)
//   block 1 over [1,0]:
//     write out0:f16 = Assign(l0:f16)
// kernel 0: grid 384 x 256 threads, 0 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=3 block=0 width=8 index64=false threads=256 group=256 shared=true b0:200 b1:010 dt:bbe ua:111 full:10
struct Params { unsigned long long s[6]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(256) ember_fused(const Params p) {
  const __half* __restrict__ t0 = (const __half*)p.s[5];
  extern __shared__ __align__(16) unsigned char ember_smem[];
  __shared__ __align__(16) unsigned char ember_red[32 * 16];
  (void)ember_smem;
  (void)ember_red;
  const idx units = (idx)p.s[0];
  const idx L = (idx)p.s[1];
  i64* ember_pv = (i64*)p.s[2];
  i64* ember_pi = ember_pv;
  const idx P = (idx)p.s[3];
  const idx nvec = L / 8;
  const idx chunk = (nvec + P - 1) / P;
  for (idx ember_part = blockIdx.x; ember_part < units * P; ember_part += gridDim.x) {
    const idx u = ember_part / P;
    const idx lo = (ember_part % P) * chunk;
    const idx hi = lo + chunk < nvec ? lo + chunk : nvec;
    double acc0;
    ember_start<1>(acc0);
#pragma unroll 4
    for (idx ember_v = lo + (idx)threadIdx.x; ember_v < hi; ember_v += (idx)256) {
      const idx i = ember_v * 8;
      const idx pos = u * L + i;
      {
        float v0[8];
        { __half raw[8]; ember_load<8>(t0 + pos, raw); _Pragma("unroll") for (int l = 0; l < 8; ++l) { v0[l] = ember_f(raw[l]); } }
        float v1[8];
        _Pragma("unroll") for (int l = 0; l < 8; ++l) { v1[l] = __uint_as_float((unsigned)p.s[4]); }
        float v2[8];
        _Pragma("unroll") for (int l = 0; l < 8; ++l) { v2[l] = (v0[l] * v1[l]); }
        float v3[8];
        _Pragma("unroll") for (int l = 0; l < 8; ++l) { v3[l] = ember_f(ember_to_f16(v2[l])); }
        _Pragma("unroll") for (int l = 0; l < 8; ++l) { ember_fold<1>(acc0, (double)v3[l]); }
      }
    }
    acc0 = ember_group_reduce<1, 256>(acc0, (double*)ember_red);
    if (threadIdx.x == 0) ember_put(ember_pv, ember_pi, (i64)ember_part, acc0);
  }
}
// kernel 1: grid 1 x 256 threads, 0 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=4 block=0 width=8 index64=false threads=256 group=256 shared=true b0:200 b1:010 dt:bbe ua:111 full:10
struct Params { unsigned long long s[5]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(256) ember_fused(const Params p) {
  __half* __restrict__ t1 = (__half*)p.s[4];
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
    double acc0;
    ember_start<1>(acc0);
    for (idx q = threadIdx.x; q < P; q += (idx)256) {
      double x;
      ember_get(x, ember_pv, ember_pi, (i64)(u * P + q));
      acc0 = ember_combine<1>(acc0, x);
    }
    acc0 = ember_group_reduce<1, 256>(acc0, (double*)ember_red);
    const float rs0 = ember_f(ember_to_f16(ember_finish_f<1>(acc0, (i64)L)));
    {
      const idx pos = u;
      (void)pos;
      {
        float v0[1];
        { const int l = 0; v0[l] = rs0; }
        if (threadIdx.x == 0) {
        { const int l = 0; t1[pos + l] = ember_to_f16(v0[l]); }
        }
      }
    }
  }
}

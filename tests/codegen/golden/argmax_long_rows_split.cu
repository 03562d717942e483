// trace:
//   input 0: t0 [1,2]
//   output 0: t2 [1,0]
//   scalar 0: placeholder 0 as f32
//   block 0 over [1,2]:
//     read  l0:f32 = Assign(in0:f32)
//     op    l1:f32 = Mul(l0:f32, s0:f32)
//     write b0.v0:f32 = Assign(l1:f32)
//   reduce ArgMax axis 1 of b0.v0:f32 -> l0:i64 (acc f32)
//   block 1 over [1,0]:
//     write out0:i64 = Assign(l0:i64)
// kernel 0: grid 256 x 256 threads, 0 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=3 block=0 width=4 index64=false threads=256 group=256 shared=true b0:2000 b1:0100 dt:aeee ua:1111 full:10
struct Params { unsigned long long s[7]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(256) ember_fused(const Params p) {
  const float* __restrict__ t0 = (const float*)p.s[6];
  extern __shared__ __align__(16) unsigned char ember_smem[];
  __shared__ __align__(16) unsigned char ember_red[32 * 16];
  (void)ember_smem;
  (void)ember_red;
  const idx units = (idx)p.s[0];
  const idx L = (idx)p.s[1];
  i64* ember_pv = (i64*)p.s[2];
  i64* ember_pi = (i64*)p.s[3];
  const idx P = (idx)p.s[4];
  const idx nvec = L / 4;
  const idx chunk = (nvec + P - 1) / P;
  for (idx ember_part = blockIdx.x; ember_part < units * P; ember_part += gridDim.x) {
    const idx u = ember_part / P;
    const idx lo = (ember_part % P) * chunk;
    const idx hi = lo + chunk < nvec ? lo + chunk : nvec;
    ember_ext<float, idx> acc0;
    ember_start<5>(acc0);
#pragma unroll 4
    for (idx ember_v = lo + (idx)threadIdx.x; ember_v < hi; ember_v += (idx)256) {
      const idx i = ember_v * 4;
      const idx pos = u * L + i;
      {
        float v0[4];
        { float raw[4]; ember_load<4>(t0 + pos, raw); _Pragma("unroll") for (int l = 0; l < 4; ++l) { v0[l] = ember_f(raw[l]); } }
        float v1[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v1[l] = __uint_as_float((unsigned)p.s[5]); }
        float v2[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v2[l] = (v0[l] * v1[l]); }
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { ember_fold<5>(acc0, v2[l], (idx)(i + l)); }
      }
    }
    acc0 = ember_group_reduce<5, 256>(acc0, (ember_ext<float, idx>*)ember_red);
    if (threadIdx.x == 0) ember_put(ember_pv, ember_pi, (i64)ember_part, acc0);
  }
}
// kernel 1: grid 4 x 64 threads, 0 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=4 block=0 width=4 index64=false threads=64 group=64 shared=true b0:2000 b1:0100 dt:aeee ua:1111 full:10
struct Params { unsigned long long s[6]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(64) ember_fused(const Params p) {
  i64* __restrict__ t1 = (i64*)p.s[5];
  extern __shared__ __align__(16) unsigned char ember_smem[];
  __shared__ __align__(16) unsigned char ember_red[32 * 16];
  (void)ember_smem;
  (void)ember_red;
  const idx units = (idx)p.s[0];
  const idx L = (idx)p.s[1];
  const i64* ember_pv = (const i64*)p.s[2];
  const i64* ember_pi = (const i64*)p.s[3];
  const idx P = (idx)p.s[4];
  for (idx u = blockIdx.x; u < units; u += gridDim.x) {
    ember_ext<float, idx> acc0;
    ember_start<5>(acc0);
    for (idx q = threadIdx.x; q < P; q += (idx)64) {
      ember_ext<float, idx> x;
      ember_get(x, ember_pv, ember_pi, (i64)(u * P + q));
      acc0 = ember_combine<5>(acc0, x);
    }
    acc0 = ember_group_reduce<5, 64>(acc0, (ember_ext<float, idx>*)ember_red);
    const i64 rs0 = ember_finish_index(acc0);
    {
      const idx pos = u;
      (void)pos;
      {
        i64 v0[1];
        { const int l = 0; v0[l] = rs0; }
        if (threadIdx.x == 0) {
        { const int l = 0; t1[pos + l] = ember_to_i64(v0[l]); }
        }
      }
    }
  }
}

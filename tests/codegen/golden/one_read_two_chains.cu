// trace:
//   input 0: t0 [1,2]
//   output 0: t2 [1,0]
//   output 1: t3 [1,2]
//   scalar 0: placeholder 0 as f32
//   block 0 over [1,2]:
//     read  l0:f32 = Assign(in0:f32)
//     op    l1:f32 = Mul(l0:f32, s0:f32)
//     op    l2:f32 = Exp(l0:f32)
//     write b0.v0:f32 = Assign(l1:f32)
//     write out1:f32 = Assign(l2:f32)
//   reduce Sum axis 1 of b0.v0:f32 -> l0:f32 (acc f32)
//   block 1 over [1,0]:
//     write out0:f32 = Assign(l0:f32)
// kernel 0: grid 300 x 64 threads, 0 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=1 block=0 width=4 index64=false threads=64 group=64 shared=true b0:200 b1:010 dt:aaa ua:111 full:10 chain=0 scratch=0
struct Params { unsigned long long s[5]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(64) ember_fused(const Params p) {
  const float* __restrict__ t0 = (const float*)p.s[3];
  float* __restrict__ t1 = (float*)p.s[4];
  extern __shared__ __align__(16) unsigned char ember_smem[];
  __shared__ __align__(16) unsigned char ember_red[32 * 16];
  (void)ember_smem;
  (void)ember_red;
  const idx units = (idx)p.s[0];
  const idx L = (idx)p.s[1];
  const int ember_t = (int)threadIdx.x % 64;
  for (idx u = blockIdx.x; u < units; u += gridDim.x) {
    double acc0;
    ember_start<0>(acc0);
#pragma unroll 4
    for (idx i = (idx)ember_t * 4; i < L; i += (idx)256) {
      const idx pos = u * L + i;
      {
        float v0[4];
        { float raw[4]; ember_load<4>(t0 + pos, raw); _Pragma("unroll") for (int l = 0; l < 4; ++l) { v0[l] = ember_f(raw[l]); } }
        float v1[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v1[l] = __uint_as_float((unsigned)p.s[2]); }
        float v2[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v2[l] = (v0[l] * v1[l]); }
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { ember_fold<0>(acc0, (double)v2[l]); }
      }
    }
    acc0 = ember_group_reduce<0, 64>(acc0, (double*)ember_red);
    const float rs0 = ember_finish_f<0>(acc0, (i64)L);
    {
      const idx pos = u;
      (void)pos;
      {
        float v0[1];
        { const int l = 0; v0[l] = rs0; }
        if (ember_t == 0) {
        { const int l = 0; t1[pos + l] = ember_to_f32(v0[l]); }
        }
      }
    }
  }
}
// kernel 1: grid 300 x 64 threads, 0 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=1 block=0 width=4 index64=false threads=64 group=64 shared=true b0:202 b1:000 dt:aaa ua:111 full:10 chain=1 scratch=0
struct Params { unsigned long long s[4]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(64) ember_fused(const Params p) {
  const float* __restrict__ t0 = (const float*)p.s[2];
  float* __restrict__ t2 = (float*)p.s[3];
  extern __shared__ __align__(16) unsigned char ember_smem[];
  __shared__ __align__(16) unsigned char ember_red[32 * 16];
  (void)ember_smem;
  (void)ember_red;
  const idx units = (idx)p.s[0];
  const idx L = (idx)p.s[1];
  const int ember_t = (int)threadIdx.x % 64;
  for (idx u = blockIdx.x; u < units; u += gridDim.x) {
#pragma unroll 4
    for (idx i = (idx)ember_t * 4; i < L; i += (idx)256) {
      const idx pos = u * L + i;
      {
        float v0[4];
        { float raw[4]; ember_load<4>(t0 + pos, raw); _Pragma("unroll") for (int l = 0; l < 4; ++l) { v0[l] = ember_f(raw[l]); } }
        float v1[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v1[l] = expf(v0[l]); }
        { float raw[4]; _Pragma("unroll") for (int l = 0; l < 4; ++l) { raw[l] = ember_to_f32(v1[l]); } ember_store<4>(t2 + pos, raw); }
      }
    }
  }
}

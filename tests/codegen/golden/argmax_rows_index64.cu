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
// kernel 0: grid 4096 x 1024 threads, 0 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=1 block=0 width=4 index64=true threads=1024 group=1024 shared=true b0:20 b1:01 dt:ae ua:11 full:10
struct Params { unsigned long long s[5]; };
typedef long long idx;

extern "C" __global__ void __launch_bounds__(1024) ember_fused(const Params p) {
  const float* __restrict__ t0 = (const float*)p.s[3];
  i64* __restrict__ t1 = (i64*)p.s[4];
  extern __shared__ __align__(16) unsigned char ember_smem[];
  __shared__ __align__(16) unsigned char ember_red[32 * 16];
  (void)ember_smem;
  (void)ember_red;
  const idx units = (idx)p.s[0];
  const idx L = (idx)p.s[1];
  const int ember_t = (int)threadIdx.x % 1024;
  for (idx u = blockIdx.x; u < units; u += gridDim.x) {
    ember_ext<float, idx> acc0;
    ember_start<5>(acc0);
#pragma unroll 4
    for (idx i = (idx)ember_t * 4; i < L; i += (idx)4096) {
      const idx pos = u * L + i;
      {
        float v0[4];
        { float raw[4]; ember_load<4>(t0 + pos, raw); _Pragma("unroll") for (int l = 0; l < 4; ++l) { v0[l] = ember_f(raw[l]); } }
        float v1[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v1[l] = __uint_as_float((unsigned)p.s[2]); }
        float v2[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v2[l] = (v0[l] * v1[l]); }
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { ember_fold<5>(acc0, v2[l], (idx)(i + l)); }
      }
    }
    acc0 = ember_group_reduce<5, 1024>(acc0, (ember_ext<float, idx>*)ember_red);
    const i64 rs0 = ember_finish_index(acc0);
    {
      const idx pos = u;
      (void)pos;
      {
        i64 v0[1];
        { const int l = 0; v0[l] = rs0; }
        if (ember_t == 0) {
        { const int l = 0; t1[pos + l] = ember_to_i64(v0[l]); }
        }
      }
    }
  }
}

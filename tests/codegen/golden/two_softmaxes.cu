// trace:
//   input 0: t0 [1,2]
//   input 1: t10 [1,2]
//   output 0: t6 [1,2]
//   output 1: t16 [1,2]
//   scalar 0: placeholder 0 as f32
//   scalar 1: placeholder 0 as f32
//   block 0 over [1,2]:
//     read  l0:f32 = Assign(in0:f32)
//     op    l1:f32 = Mul(l0:f32, s0:f32)
//     write b0.v0:f32 = Assign(l1:f32)
//   reduce Max axis 1 of b0.v0:f32 -> l0:f32 (acc f32)
//   block 1 over [1,0]:
//     write b1.v0:f32 = Assign(l0:f32)
//   block 2 over [1,2]:
//     op    l0:f32 = Sub(b0.v0:f32, b1.v0:f32)
//     op    l1:f32 = Exp(l0:f32)
//     write b2.v0:f32 = Assign(l1:f32)
//   reduce Sum axis 1 of b2.v0:f32 -> l0:f32 (acc f32)
//   block 3 over [1,0]:
//     write b3.v0:f32 = Assign(l0:f32)
//   block 4 over [1,2]:
//     read  l1:f32 = Assign(in1:f32)
//     op    l0:f32 = Div(b2.v0:f32, b3.v0:f32)
//     op    l2:f32 = Mul(l1:f32, s1:f32)
//     write out0:f32 = Assign(l0:f32)
//     write b4.v0:f32 = Assign(l2:f32)
//   reduce Max axis 1 of b4.v0:f32 -> l0:f32 (acc f32)
//   block 5 over [1,0]:
//     write b5.v0:f32 = Assign(l0:f32)
//   block 6 over [1,2]:
//     op    l0:f32 = Sub(b4.v0:f32, b5.v0:f32)
//     op    l1:f32 = Exp(l0:f32)
//     write b6.v0:f32 = Assign(l1:f32)
//   reduce Sum axis 1 of b6.v0:f32 -> l0:f32 (acc f32)
//   block 7 over [1,0]:
//     write b7.v0:f32 = Assign(l0:f32)
//   block 8 over [1,2]:
//     op    l0:f32 = Div(b6.v0:f32, b7.v0:f32)
//     write out1:f32 = Assign(l0:f32)
// kernel 0: grid 512 x 256 threads, 16384 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=1 block=0 width=4 index64=false threads=256 group=256 shared=true b0:2000 b1:0000 b2:0000 b3:0000 b4:0020 b5:0000 b6:0000 b7:0000 b8:0000 dt:aaaa ua:1111 full:101010101 chain=0 scratch=0
struct Params { unsigned long long s[5]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(256) ember_fused(const Params p) {
  const float* __restrict__ t0 = (const float*)p.s[3];
  float* __restrict__ t2 = (float*)p.s[4];
  extern __shared__ __align__(16) unsigned char ember_smem[];
  __shared__ __align__(16) unsigned char ember_red[32 * 16];
  (void)ember_smem;
  (void)ember_red;
  const idx units = (idx)p.s[0];
  const idx L = (idx)p.s[1];
  const int ember_t = (int)threadIdx.x % 256;
  float* sh0_0 = (float*)(ember_smem + 0);
  float* sh2_0 = (float*)(ember_smem + 0);
  for (idx u = blockIdx.x; u < units; u += gridDim.x) {
    float h1_0 = 0;
    float h3_0 = 0;
    ember_ext<float, idx> acc0;
    ember_start<3>(acc0);
#pragma unroll 4
    for (idx i = (idx)ember_t * 4; i < L; i += (idx)1024) {
      const idx pos = u * L + i;
      {
        float v0[4];
        { float raw[4]; ember_load<4>(t0 + pos, raw); _Pragma("unroll") for (int l = 0; l < 4; ++l) { v0[l] = ember_f(raw[l]); } }
        float v1[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v1[l] = __uint_as_float((unsigned)p.s[2]); }
        float v2[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v2[l] = (v0[l] * v1[l]); }
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { ember_fold<3>(acc0, v2[l], (idx)(i + l)); }
        ember_store<4>(sh0_0 + i, v2);
      }
    }
    acc0 = ember_group_reduce<3, 256>(acc0, (ember_ext<float, idx>*)ember_red);
    const float rs0 = ember_finish_f<3>(acc0, (i64)L);
    {
      const idx pos = u;
      (void)pos;
      {
        float v0[1];
        { const int l = 0; v0[l] = rs0; }
        h1_0 = v0[0];
      }
    }
    double acc1;
    ember_start<0>(acc1);
#pragma unroll 4
    for (idx i = (idx)ember_t * 4; i < L; i += (idx)1024) {
      const idx pos = u * L + i;
      {
        float v0[4];
        ember_load<4>(sh0_0 + i, v0);
        float v1[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v1[l] = h1_0; }
        float v2[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v2[l] = (v0[l] - v1[l]); }
        float v3[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v3[l] = expf(v2[l]); }
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { ember_fold<0>(acc1, (double)v3[l]); }
        ember_store<4>(sh2_0 + i, v3);
      }
    }
    acc1 = ember_group_reduce<0, 256>(acc1, (double*)ember_red);
    const float rs1 = ember_finish_f<0>(acc1, (i64)L);
    {
      const idx pos = u;
      (void)pos;
      {
        float v0[1];
        { const int l = 0; v0[l] = rs1; }
        h3_0 = v0[0];
      }
    }
#pragma unroll 4
    for (idx i = (idx)ember_t * 4; i < L; i += (idx)1024) {
      const idx pos = u * L + i;
      {
        float v0[4];
        ember_load<4>(sh2_0 + i, v0);
        float v1[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v1[l] = h3_0; }
        float v2[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v2[l] = (v0[l] / v1[l]); }
        { float raw[4]; _Pragma("unroll") for (int l = 0; l < 4; ++l) { raw[l] = ember_to_f32(v2[l]); } ember_store<4>(t2 + pos, raw); }
      }
    }
  }
}
// kernel 1: grid 512 x 256 threads, 16384 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=1 block=0 width=4 index64=false threads=256 group=256 shared=true b0:0000 b1:0000 b2:0000 b3:0000 b4:0200 b5:0000 b6:0000 b7:0000 b8:0002 dt:aaaa ua:1111 full:101010101 chain=1 scratch=0
struct Params { unsigned long long s[5]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(256) ember_fused(const Params p) {
  const float* __restrict__ t1 = (const float*)p.s[3];
  float* __restrict__ t3 = (float*)p.s[4];
  extern __shared__ __align__(16) unsigned char ember_smem[];
  __shared__ __align__(16) unsigned char ember_red[32 * 16];
  (void)ember_smem;
  (void)ember_red;
  const idx units = (idx)p.s[0];
  const idx L = (idx)p.s[1];
  const int ember_t = (int)threadIdx.x % 256;
  float* sh4_0 = (float*)(ember_smem + 0);
  float* sh6_0 = (float*)(ember_smem + 0);
  for (idx u = blockIdx.x; u < units; u += gridDim.x) {
    float h5_0 = 0;
    float h7_0 = 0;
    ember_ext<float, idx> acc0;
    ember_start<3>(acc0);
#pragma unroll 4
    for (idx i = (idx)ember_t * 4; i < L; i += (idx)1024) {
      const idx pos = u * L + i;
      {
        float v0[4];
        { float raw[4]; ember_load<4>(t1 + pos, raw); _Pragma("unroll") for (int l = 0; l < 4; ++l) { v0[l] = ember_f(raw[l]); } }
        float v1[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v1[l] = __uint_as_float((unsigned)p.s[2]); }
        float v2[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v2[l] = (v0[l] * v1[l]); }
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { ember_fold<3>(acc0, v2[l], (idx)(i + l)); }
        ember_store<4>(sh4_0 + i, v2);
      }
    }
    acc0 = ember_group_reduce<3, 256>(acc0, (ember_ext<float, idx>*)ember_red);
    const float rs0 = ember_finish_f<3>(acc0, (i64)L);
    {
      const idx pos = u;
      (void)pos;
      {
        float v0[1];
        { const int l = 0; v0[l] = rs0; }
        h5_0 = v0[0];
      }
    }
    double acc1;
    ember_start<0>(acc1);
#pragma unroll 4
    for (idx i = (idx)ember_t * 4; i < L; i += (idx)1024) {
      const idx pos = u * L + i;
      {
        float v0[4];
        ember_load<4>(sh4_0 + i, v0);
        float v1[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v1[l] = h5_0; }
        float v2[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v2[l] = (v0[l] - v1[l]); }
        float v3[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v3[l] = expf(v2[l]); }
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { ember_fold<0>(acc1, (double)v3[l]); }
        ember_store<4>(sh6_0 + i, v3);
      }
    }
    acc1 = ember_group_reduce<0, 256>(acc1, (double*)ember_red);
    const float rs1 = ember_finish_f<0>(acc1, (i64)L);
    {
      const idx pos = u;
      (void)pos;
      {
        float v0[1];
        { const int l = 0; v0[l] = rs1; }
        h7_0 = v0[0];
      }
    }
#pragma unroll 4
    for (idx i = (idx)ember_t * 4; i < L; i += (idx)1024) {
      const idx pos = u * L + i;
      {
        float v0[4];
        ember_load<4>(sh6_0 + i, v0);
        float v1[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v1[l] = h7_0; }
        float v2[4];
        _Pragma("unroll") for (int l = 0; l < 4; ++l) { v2[l] = (v0[l] / v1[l]); }
        { float raw[4]; _Pragma("unroll") for (int l = 0; l < 4; ++l) { raw[l] = ember_to_f32(v2[l]); } ember_store<4>(t3 + pos, raw); }
      }
    }
  }
}

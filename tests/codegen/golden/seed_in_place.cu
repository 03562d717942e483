// trace:
//   input 0: t0 [1,2]
//   input 1: t1 [1,2]
//   input 2: t2 [1,2]
//   output 0: t6 [1,2]
//   scalar 0: placeholder 0 as f32
//   block 0 over [1,2]:
//     read  l0:f32 = Assign(in0:f32)
//     read  l1:f32 = Assign(in1:f32)
//     read  l3:f32 = Assign(in2:f32)
//     op    l2:f32 = Mul(l0:f32, l1:f32)
//     op    l4:f32 = Mul(l3:f32, s0:f32)
//     op    l5:f32 = Add(l2:f32, l4:f32)
//     op    l6:f32 = Exp(l5:f32)
//     write out0:f32 = Assign(l6:f32)
// kernel 0: grid 4 x 256 threads, 0 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=0 block=0 width=4 index64=false threads=256 group=1 shared=false b0:2222 dt:aaaa ua:0110 full:1
struct Params { unsigned long long s[6]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(256) ember_fused(const Params p) {
  const float* t0 = (const float*)p.s[2];
  const float* __restrict__ t1 = (const float*)p.s[3];
  const float* __restrict__ t2 = (const float*)p.s[4];
  float* t3 = (float*)p.s[5];
  const idx count = (idx)p.s[0];
  const idx nvec = count / 4;
  const idx stride = (idx)gridDim.x * blockDim.x;
  for (idx v = (idx)blockIdx.x * blockDim.x + threadIdx.x; v < nvec; v += stride) {
    const idx pos = v * 4;
    {
      float v0[4];
      { float raw[4]; ember_load<4>(t0 + pos, raw); _Pragma("unroll") for (int l = 0; l < 4; ++l) { v0[l] = ember_f(raw[l]); } }
      float v1[4];
      { float raw[4]; ember_load<4>(t1 + pos, raw); _Pragma("unroll") for (int l = 0; l < 4; ++l) { v1[l] = ember_f(raw[l]); } }
      float v2[4];
      { float raw[4]; ember_load<4>(t2 + pos, raw); _Pragma("unroll") for (int l = 0; l < 4; ++l) { v2[l] = ember_f(raw[l]); } }
      float v3[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v3[l] = (v0[l] * v1[l]); }
      float v4[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v4[l] = __uint_as_float((unsigned)p.s[1]); }
      float v5[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v5[l] = (v2[l] * v4[l]); }
      float v6[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v6[l] = (v3[l] + v5[l]); }
      float v7[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v7[l] = expf(v6[l]); }
      { float raw[4]; _Pragma("unroll") for (int l = 0; l < 4; ++l) { raw[l] = ember_to_f32(v7[l]); } ember_store<4>(t3 + pos, raw); }
    }
  }
  for (idx pos = nvec * 4 + (idx)blockIdx.x * blockDim.x + threadIdx.x; pos < count; pos += stride) {
    {
      float v0[1];
      { const int l = 0; v0[l] = ember_f(t0[pos + l]); }
      float v1[1];
      { const int l = 0; v1[l] = ember_f(t1[pos + l]); }
      float v2[1];
      { const int l = 0; v2[l] = ember_f(t2[pos + l]); }
      float v3[1];
      { const int l = 0; v3[l] = (v0[l] * v1[l]); }
      float v4[1];
      { const int l = 0; v4[l] = __uint_as_float((unsigned)p.s[1]); }
      float v5[1];
      { const int l = 0; v5[l] = (v2[l] * v4[l]); }
      float v6[1];
      { const int l = 0; v6[l] = (v3[l] + v5[l]); }
      float v7[1];
      { const int l = 0; v7[l] = expf(v6[l]); }
      { const int l = 0; t3[pos + l] = ember_to_f32(v7[l]); }
    }
  }
}

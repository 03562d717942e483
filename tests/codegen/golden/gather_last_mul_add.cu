// trace:
//   input 0: t1 [1,3]
//   input 1: t2 [1,2]
//   input 2: t3 [1,2]
//   output 0: t4 [1,2]
//   scalar 0: placeholder 0 as f32
//   block 0 over [1,2]:
//     read  l1:f32 = Assign(in2:f32)
//     op    l0:f32 = Gather(in0:f32, in1:i64; dim 1)
//     op    l2:f32 = Mul(l0:f32, s0:f32)
//     op    l3:f32 = Add(l2:f32, l1:f32)
//     write out0:f32 = Assign(l3:f32)
// kernel 0: grid 3 x 256 threads, 0 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=0 block=0 width=4 index64=false threads=256 group=1 shared=false b0:7722 dt:aeaa ua:1111 full:1
struct Params { unsigned long long s[14]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(256) ember_fused(const Params p) {
  const float* __restrict__ t0 = (const float*)p.s[10];
  const i64* __restrict__ t1 = (const i64*)p.s[11];
  const float* __restrict__ t2 = (const float*)p.s[12];
  float* __restrict__ t3 = (float*)p.s[13];
  const idx count = (idx)p.s[0];
  const idx nvec = count / 4;
  const idx stride = (idx)gridDim.x * blockDim.x;
  for (idx v = (idx)blockIdx.x * blockDim.x + threadIdx.x; v < nvec; v += stride) {
    const idx pos = v * 4;
    {
      float v0[4];
      { float raw[4]; ember_load<4>(t2 + pos, raw); _Pragma("unroll") for (int l = 0; l < 4; ++l) { v0[l] = ember_f(raw[l]); } }
      idx r_ = pos;
      const idx c1 = r_ % (idx)p.s[1]; r_ /= (idx)p.s[1];
      const idx c0 = r_;
      float v1[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { { const i64 k = (i64)ember_i(t1[c0 * (idx)p.s[3] + (c1 + (idx)l) * (idx)p.s[4]]); v1[l] = k >= 0 && k < (i64)(idx)p.s[5] && c0 < (idx)p.s[6] ? ember_f(t0[(idx)k * (idx)p.s[7] + c0 * (idx)p.s[8]]) : 0.0f; } }
      float v2[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v2[l] = __uint_as_float((unsigned)p.s[9]); }
      float v3[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v3[l] = (v1[l] * v2[l]); }
      float v4[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v4[l] = (v3[l] + v0[l]); }
      { float raw[4]; _Pragma("unroll") for (int l = 0; l < 4; ++l) { raw[l] = ember_to_f32(v4[l]); } ember_store<4>(t3 + pos, raw); }
    }
  }
  for (idx pos = nvec * 4 + (idx)blockIdx.x * blockDim.x + threadIdx.x; pos < count; pos += stride) {
    {
      float v0[1];
      { const int l = 0; v0[l] = ember_f(t2[pos + l]); }
      idx r_ = pos;
      const idx c1 = r_ % (idx)p.s[1]; r_ /= (idx)p.s[1];
      const idx c0 = r_;
      float v1[1];
      { const int l = 0; { const i64 k = (i64)ember_i(t1[c0 * (idx)p.s[3] + (c1 + (idx)l) * (idx)p.s[4]]); v1[l] = k >= 0 && k < (i64)(idx)p.s[5] && c0 < (idx)p.s[6] ? ember_f(t0[(idx)k * (idx)p.s[7] + c0 * (idx)p.s[8]]) : 0.0f; } }
      float v2[1];
      { const int l = 0; v2[l] = __uint_as_float((unsigned)p.s[9]); }
      float v3[1];
      { const int l = 0; v3[l] = (v1[l] * v2[l]); }
      float v4[1];
      { const int l = 0; v4[l] = (v3[l] + v0[l]); }
      { const int l = 0; t3[pos + l] = ember_to_f32(v4[l]); }
    }
  }
}

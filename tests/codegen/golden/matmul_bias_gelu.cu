// trace:
//   input 0: t0 [1,2]
//   input 1: t1 [2,3]
//   input 2: t2 [0,3]
//   output 0: t9 [1,3]
//   scalar 0: placeholder 0 as f32
//   scalar 1: placeholder 1 as f32
//   scalar 2: placeholder 2 as f32
//   matmul: in0 x in1 -> l0:f32
//   block 0 over [1,3]:
//     read  l1:f32 = Assign(in2:f32)
//     op    l2:f32 = Add(l0:f32, l1:f32)
//     op    l3:f32 = Mul(l2:f32, s0:f32)
//     op    l4:f32 = Erf(l3:f32)
//     op    l5:f32 = Add(l4:f32, s1:f32)
//     op    l6:f32 = Mul(l2:f32, l5:f32)
//     op    l7:f32 = Mul(l6:f32, s2:f32)
//     write out0:f32 = Assign(l7:f32)
// kernel 0: grid 128 x 256 threads, 0 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=0 block=0 width=4 index64=false threads=256 group=1 shared=false b0:00422 dt:aaaaa ua:11111 full:1
struct Params { unsigned long long s[11]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(256) ember_fused(const Params p) {
  const float* __restrict__ t2 = (const float*)p.s[8];
  float* __restrict__ t3 = (float*)p.s[9];
  const float* __restrict__ t4 = (const float*)p.s[10];
  const idx count = (idx)p.s[0];
  const idx nvec = count / 4;
  const idx stride = (idx)gridDim.x * blockDim.x;
  for (idx v = (idx)blockIdx.x * blockDim.x + threadIdx.x; v < nvec; v += stride) {
    const idx pos = v * 4;
    {
      float v0[4];
      idx r_ = pos;
      const idx c1 = r_ % (idx)p.s[1]; r_ /= (idx)p.s[1];
      const idx c0 = r_;
      const idx o2 = c0 * (idx)p.s[3] + c1 * (idx)p.s[4];
      { float raw[4]; ember_load<4>(t2 + o2, raw); _Pragma("unroll") for (int l = 0; l < 4; ++l) { v0[l] = ember_f(raw[l]); } }
      float v1[4];
      { float raw[4]; ember_load<4>(t4 + pos, raw); _Pragma("unroll") for (int l = 0; l < 4; ++l) { v1[l] = ember_f(raw[l]); } }
      float v2[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v2[l] = (v1[l] + v0[l]); }
      float v3[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v3[l] = __uint_as_float((unsigned)p.s[5]); }
      float v4[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v4[l] = (v2[l] * v3[l]); }
      float v5[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v5[l] = erff(v4[l]); }
      float v6[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v6[l] = __uint_as_float((unsigned)p.s[6]); }
      float v7[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v7[l] = (v5[l] + v6[l]); }
      float v8[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v8[l] = (v2[l] * v7[l]); }
      float v9[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v9[l] = __uint_as_float((unsigned)p.s[7]); }
      float v10[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v10[l] = (v8[l] * v9[l]); }
      { float raw[4]; _Pragma("unroll") for (int l = 0; l < 4; ++l) { raw[l] = ember_to_f32(v10[l]); } ember_store<4>(t3 + pos, raw); }
    }
  }
  for (idx pos = nvec * 4 + (idx)blockIdx.x * blockDim.x + threadIdx.x; pos < count; pos += stride) {
    {
      float v0[1];
      idx r_ = pos;
      const idx c1 = r_ % (idx)p.s[1]; r_ /= (idx)p.s[1];
      const idx c0 = r_;
      const idx o2 = c0 * (idx)p.s[3] + c1 * (idx)p.s[4];
      { const int l = 0; v0[l] = ember_f(t2[o2 + l * (idx)p.s[4]]); }
      float v1[1];
      { const int l = 0; v1[l] = ember_f(t4[pos + l]); }
      float v2[1];
      { const int l = 0; v2[l] = (v1[l] + v0[l]); }
      float v3[1];
      { const int l = 0; v3[l] = __uint_as_float((unsigned)p.s[5]); }
      float v4[1];
      { const int l = 0; v4[l] = (v2[l] * v3[l]); }
      float v5[1];
      { const int l = 0; v5[l] = erff(v4[l]); }
      float v6[1];
      { const int l = 0; v6[l] = __uint_as_float((unsigned)p.s[6]); }
      float v7[1];
      { const int l = 0; v7[l] = (v5[l] + v6[l]); }
      float v8[1];
      { const int l = 0; v8[l] = (v2[l] * v7[l]); }
      float v9[1];
      { const int l = 0; v9[l] = __uint_as_float((unsigned)p.s[7]); }
      float v10[1];
      { const int l = 0; v10[l] = (v8[l] * v9[l]); }
      { const int l = 0; t3[pos + l] = ember_to_f32(v10[l]); }
    }
  }
}

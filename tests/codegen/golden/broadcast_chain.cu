// trace:
//   input 0: t0 [1,2]
//   input 1: t1 [0,2]
//   output 0: t8 [1,2]
//   scalar 0: placeholder 0 as f32
//   scalar 1: placeholder 1 as f32
//   scalar 2: placeholder 2 as f32
//   scalar 3: placeholder 3 as f32
//   block 0 over [1,2]:
//     read  l0:f32 = Assign(in0:f32)
//     read  l6:f32 = Assign(in1:f32)
//     op    l1:f32 = Mul(l0:f32, s0:f32)
//     op    l2:f32 = Add(l1:f32, s1:f32)
//     op    l3:bool = Lower(l2:f32, s2:f32)
//     op    l4:f32 = ConditionalAssign(l3:bool, s3:f32, l2:f32)
//     op    l5:f32 = Tanh(l4:f32)
//     op    l7:f32 = Add(l5:f32, l6:f32)
//     op    l8:bf16 = Assign(l7:f32)
//     write out0:bf16 = Assign(l8:bf16)
// kernel 0: grid 16 x 256 threads, 0 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=0 block=0 width=8 index64=false threads=256 group=1 shared=false b0:242 dt:aac ua:111 full:1
struct Params { unsigned long long s[12]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(256) ember_fused(const Params p) {
  const float* __restrict__ t0 = (const float*)p.s[9];
  const float* __restrict__ t1 = (const float*)p.s[10];
  __nv_bfloat16* __restrict__ t2 = (__nv_bfloat16*)p.s[11];
  const idx count = (idx)p.s[0];
  const idx nvec = count / 8;
  const idx stride = (idx)gridDim.x * blockDim.x;
  for (idx v = (idx)blockIdx.x * blockDim.x + threadIdx.x; v < nvec; v += stride) {
    const idx pos = v * 8;
    {
      float v0[8];
      { float raw[8]; ember_load<8>(t0 + pos, raw); _Pragma("unroll") for (int l = 0; l < 8; ++l) { v0[l] = ember_f(raw[l]); } }
      float v1[8];
      idx r_ = pos;
      const idx c1 = r_ % (idx)p.s[1]; r_ /= (idx)p.s[1];
      const idx c0 = r_;
      const idx o1 = c0 * (idx)p.s[3] + c1 * (idx)p.s[4];
      { float raw[8]; ember_load<8>(t1 + o1, raw); _Pragma("unroll") for (int l = 0; l < 8; ++l) { v1[l] = ember_f(raw[l]); } }
      float v2[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v2[l] = __uint_as_float((unsigned)p.s[5]); }
      float v3[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v3[l] = (v0[l] * v2[l]); }
      float v4[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v4[l] = __uint_as_float((unsigned)p.s[6]); }
      float v5[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v5[l] = (v3[l] + v4[l]); }
      float v6[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v6[l] = __uint_as_float((unsigned)p.s[7]); }
      float v7[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v7[l] = (v5[l] < v6[l] ? 1.0f : 0.0f); }
      i64 v8[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v8[l] = ember_i(ember_to_bool(v7[l])); }
      float v9[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v9[l] = ember_f(ember_to_f32(v8[l])); }
      float v10[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v10[l] = __uint_as_float((unsigned)p.s[8]); }
      float v11[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v11[l] = (v9[l] != 0.0f ? v10[l] : v5[l]); }
      float v12[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v12[l] = tanhf(v11[l]); }
      float v13[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v13[l] = (v12[l] + v1[l]); }
      float v14[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v14[l] = ember_f(ember_to_bf16(v13[l])); }
      { __nv_bfloat16 raw[8]; _Pragma("unroll") for (int l = 0; l < 8; ++l) { raw[l] = ember_to_bf16(v14[l]); } ember_store<8>(t2 + pos, raw); }
    }
  }
  for (idx pos = nvec * 8 + (idx)blockIdx.x * blockDim.x + threadIdx.x; pos < count; pos += stride) {
    {
      float v0[1];
      { const int l = 0; v0[l] = ember_f(t0[pos + l]); }
      float v1[1];
      idx r_ = pos;
      const idx c1 = r_ % (idx)p.s[1]; r_ /= (idx)p.s[1];
      const idx c0 = r_;
      const idx o1 = c0 * (idx)p.s[3] + c1 * (idx)p.s[4];
      { const int l = 0; v1[l] = ember_f(t1[o1 + l * (idx)p.s[4]]); }
      float v2[1];
      { const int l = 0; v2[l] = __uint_as_float((unsigned)p.s[5]); }
      float v3[1];
      { const int l = 0; v3[l] = (v0[l] * v2[l]); }
      float v4[1];
      { const int l = 0; v4[l] = __uint_as_float((unsigned)p.s[6]); }
      float v5[1];
      { const int l = 0; v5[l] = (v3[l] + v4[l]); }
      float v6[1];
      { const int l = 0; v6[l] = __uint_as_float((unsigned)p.s[7]); }
      float v7[1];
      { const int l = 0; v7[l] = (v5[l] < v6[l] ? 1.0f : 0.0f); }
      i64 v8[1];
      { const int l = 0; v8[l] = ember_i(ember_to_bool(v7[l])); }
      float v9[1];
      { const int l = 0; v9[l] = ember_f(ember_to_f32(v8[l])); }
      float v10[1];
      { const int l = 0; v10[l] = __uint_as_float((unsigned)p.s[8]); }
      float v11[1];
      { const int l = 0; v11[l] = (v9[l] != 0.0f ? v10[l] : v5[l]); }
      float v12[1];
      { const int l = 0; v12[l] = tanhf(v11[l]); }
      float v13[1];
      { const int l = 0; v13[l] = (v12[l] + v1[l]); }
      float v14[1];
      { const int l = 0; v14[l] = ember_f(ember_to_bf16(v13[l])); }
      { const int l = 0; t2[pos + l] = ember_to_bf16(v14[l]); }
    }
  }
}

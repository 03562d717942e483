// trace:
//   input 0: t0 [1,2]
//   input 1: t1 [1,2]
//   input 2: t2 [1,2]
//   input 3: t3 [1,2]
//   input 4: t4 [1,2]
//   output 0: t12 [1,2]
//   output 1: t15 [1,2]
//   output 2: t18 [1,2]
//   output 3: t21 [1,2]
//   output 4: t24 [1,2]
//   scalar 0: placeholder 0 as f32
//   scalar 1: placeholder 1 as f32
//   scalar 2: placeholder 2 as f32
//   scalar 3: placeholder 3 as f32
//   scalar 4: placeholder 4 as f32
//   scalar 5: placeholder 5 as f32
//   scalar 6: placeholder 6 as f32
//   scalar 7: placeholder 7 as f32
//   scalar 8: placeholder 8 as f32
//   scalar 9: placeholder 9 as f32
//   block 0 over [1,2]:
//     read  l0:f32 = Assign(in0:f32)
//     read  l4:f32 = Assign(in1:f32)
//     read  l8:f32 = Assign(in2:f32)
//     read  l12:f32 = Assign(in3:f32)
//     read  l16:f32 = Assign(in4:f32)
//     op    l1:f32 = Mul(l0:f32, s0:f32)
//     op    l2:f32 = Add(l1:f32, s1:f32)
//     op    l3:f32 = Exp(l2:f32)
//     op    l5:f32 = Mul(l4:f32, s2:f32)
//     op    l6:f32 = Add(l5:f32, s3:f32)
//     op    l7:f32 = Exp(l6:f32)
//     op    l9:f32 = Mul(l8:f32, s4:f32)
//     op    l10:f32 = Add(l9:f32, s5:f32)
//     op    l11:f32 = Exp(l10:f32)
//     op    l13:f32 = Mul(l12:f32, s6:f32)
//     op    l14:f32 = Add(l13:f32, s7:f32)
//     op    l15:f32 = Exp(l14:f32)
//     op    l17:f32 = Mul(l16:f32, s8:f32)
//     op    l18:f32 = Add(l17:f32, s9:f32)
//     op    l19:f32 = Exp(l18:f32)
//     write out0:f32 = Assign(l3:f32)
//     write out1:f32 = Assign(l7:f32)
//     write out2:f32 = Assign(l11:f32)
//     write out3:f32 = Assign(l15:f32)
//     write out4:f32 = Assign(l19:f32)
// kernel 0: grid 256 x 256 threads, 0 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=0 block=0 width=4 index64=false threads=256 group=1 shared=false b0:2222222222 dt:aaaaaaaaaa ua:1111111111 full:1
struct Params { unsigned long long s[21]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(256) ember_fused(const Params p) {
  const float* __restrict__ t0 = (const float*)p.s[11];
  const float* __restrict__ t1 = (const float*)p.s[12];
  const float* __restrict__ t2 = (const float*)p.s[13];
  const float* __restrict__ t3 = (const float*)p.s[14];
  const float* __restrict__ t4 = (const float*)p.s[15];
  float* __restrict__ t5 = (float*)p.s[16];
  float* __restrict__ t6 = (float*)p.s[17];
  float* __restrict__ t7 = (float*)p.s[18];
  float* __restrict__ t8 = (float*)p.s[19];
  float* __restrict__ t9 = (float*)p.s[20];
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
      { float raw[4]; ember_load<4>(t3 + pos, raw); _Pragma("unroll") for (int l = 0; l < 4; ++l) { v3[l] = ember_f(raw[l]); } }
      float v4[4];
      { float raw[4]; ember_load<4>(t4 + pos, raw); _Pragma("unroll") for (int l = 0; l < 4; ++l) { v4[l] = ember_f(raw[l]); } }
      float v5[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v5[l] = __uint_as_float((unsigned)p.s[1]); }
      float v6[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v6[l] = (v0[l] * v5[l]); }
      float v7[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v7[l] = __uint_as_float((unsigned)p.s[2]); }
      float v8[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v8[l] = (v6[l] + v7[l]); }
      float v9[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v9[l] = expf(v8[l]); }
      float v10[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v10[l] = __uint_as_float((unsigned)p.s[3]); }
      float v11[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v11[l] = (v1[l] * v10[l]); }
      float v12[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v12[l] = __uint_as_float((unsigned)p.s[4]); }
      float v13[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v13[l] = (v11[l] + v12[l]); }
      float v14[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v14[l] = expf(v13[l]); }
      float v15[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v15[l] = __uint_as_float((unsigned)p.s[5]); }
      float v16[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v16[l] = (v2[l] * v15[l]); }
      float v17[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v17[l] = __uint_as_float((unsigned)p.s[6]); }
      float v18[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v18[l] = (v16[l] + v17[l]); }
      float v19[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v19[l] = expf(v18[l]); }
      float v20[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v20[l] = __uint_as_float((unsigned)p.s[7]); }
      float v21[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v21[l] = (v3[l] * v20[l]); }
      float v22[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v22[l] = __uint_as_float((unsigned)p.s[8]); }
      float v23[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v23[l] = (v21[l] + v22[l]); }
      float v24[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v24[l] = expf(v23[l]); }
      float v25[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v25[l] = __uint_as_float((unsigned)p.s[9]); }
      float v26[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v26[l] = (v4[l] * v25[l]); }
      float v27[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v27[l] = __uint_as_float((unsigned)p.s[10]); }
      float v28[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v28[l] = (v26[l] + v27[l]); }
      float v29[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v29[l] = expf(v28[l]); }
      { float raw[4]; _Pragma("unroll") for (int l = 0; l < 4; ++l) { raw[l] = ember_to_f32(v9[l]); } ember_store<4>(t5 + pos, raw); }
      { float raw[4]; _Pragma("unroll") for (int l = 0; l < 4; ++l) { raw[l] = ember_to_f32(v14[l]); } ember_store<4>(t6 + pos, raw); }
      { float raw[4]; _Pragma("unroll") for (int l = 0; l < 4; ++l) { raw[l] = ember_to_f32(v19[l]); } ember_store<4>(t7 + pos, raw); }
      { float raw[4]; _Pragma("unroll") for (int l = 0; l < 4; ++l) { raw[l] = ember_to_f32(v24[l]); } ember_store<4>(t8 + pos, raw); }
      { float raw[4]; _Pragma("unroll") for (int l = 0; l < 4; ++l) { raw[l] = ember_to_f32(v29[l]); } ember_store<4>(t9 + pos, raw); }
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
      { const int l = 0; v3[l] = ember_f(t3[pos + l]); }
      float v4[1];
      { const int l = 0; v4[l] = ember_f(t4[pos + l]); }
      float v5[1];
      { const int l = 0; v5[l] = __uint_as_float((unsigned)p.s[1]); }
      float v6[1];
      { const int l = 0; v6[l] = (v0[l] * v5[l]); }
      float v7[1];
      { const int l = 0; v7[l] = __uint_as_float((unsigned)p.s[2]); }
      float v8[1];
      { const int l = 0; v8[l] = (v6[l] + v7[l]); }
      float v9[1];
      { const int l = 0; v9[l] = expf(v8[l]); }
      float v10[1];
      { const int l = 0; v10[l] = __uint_as_float((unsigned)p.s[3]); }
      float v11[1];
      { const int l = 0; v11[l] = (v1[l] * v10[l]); }
      float v12[1];
      { const int l = 0; v12[l] = __uint_as_float((unsigned)p.s[4]); }
      float v13[1];
      { const int l = 0; v13[l] = (v11[l] + v12[l]); }
      float v14[1];
      { const int l = 0; v14[l] = expf(v13[l]); }
      float v15[1];
      { const int l = 0; v15[l] = __uint_as_float((unsigned)p.s[5]); }
      float v16[1];
      { const int l = 0; v16[l] = (v2[l] * v15[l]); }
      float v17[1];
      { const int l = 0; v17[l] = __uint_as_float((unsigned)p.s[6]); }
      float v18[1];
      { const int l = 0; v18[l] = (v16[l] + v17[l]); }
      float v19[1];
      { const int l = 0; v19[l] = expf(v18[l]); }
      float v20[1];
      { const int l = 0; v20[l] = __uint_as_float((unsigned)p.s[7]); }
      float v21[1];
      { const int l = 0; v21[l] = (v3[l] * v20[l]); }
      float v22[1];
      { const int l = 0; v22[l] = __uint_as_float((unsigned)p.s[8]); }
      float v23[1];
      { const int l = 0; v23[l] = (v21[l] + v22[l]); }
      float v24[1];
      { const int l = 0; v24[l] = expf(v23[l]); }
      float v25[1];
      { const int l = 0; v25[l] = __uint_as_float((unsigned)p.s[9]); }
      float v26[1];
      { const int l = 0; v26[l] = (v4[l] * v25[l]); }
      float v27[1];
      { const int l = 0; v27[l] = __uint_as_float((unsigned)p.s[10]); }
      float v28[1];
      { const int l = 0; v28[l] = (v26[l] + v27[l]); }
      float v29[1];
      { const int l = 0; v29[l] = expf(v28[l]); }
      { const int l = 0; t5[pos + l] = ember_to_f32(v9[l]); }
      { const int l = 0; t6[pos + l] = ember_to_f32(v14[l]); }
      { const int l = 0; t7[pos + l] = ember_to_f32(v19[l]); }
      { const int l = 0; t8[pos + l] = ember_to_f32(v24[l]); }
      { const int l = 0; t9[pos + l] = ember_to_f32(v29[l]); }
    }
  }
}

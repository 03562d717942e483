// trace:
//   input 0: t0 [1,1]
//   output 0: t4 [1,1]
//   output 1: t5 [1,1]
//   scalar 0: placeholder 0 as f32
//   scalar 1: placeholder 1 as f32
//   scalar 2: placeholder 2 as f32
//   scalar 3: placeholder 3 as f32
//   scalar 4: placeholder 4 as i32
//   block 0 over [1,1]:
//     read  l0:f32 = Assign(in0:f32)
//     op    l1:bool = Greater(l0:f32, s0:f32)
//     op    l2:f32 = ConditionalAssign(l1:bool, s1:f32, l0:f32)
//     op    l3:f32 = Clamp(l2:f32, s2:f32, s3:f32)
//     op    l4:f16 = Assign(l3:f32)
//     op    l5:i32 = Assign(s4:i32)
//     write out0:f16 = Assign(l4:f16)
//     write out1:i32 = Assign(l5:i32)
// kernel 0: grid 1 x 256 threads, 0 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=0 block=0 width=8 index64=false threads=256 group=1 shared=false b0:222 dt:abd ua:111 full:1
struct Params { unsigned long long s[9]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(256) ember_fused(const Params p) {
  const float* __restrict__ t0 = (const float*)p.s[6];
  __half* __restrict__ t1 = (__half*)p.s[7];
  int* __restrict__ t2 = (int*)p.s[8];
  const idx count = (idx)p.s[0];
  const idx nvec = count / 8;
  const idx stride = (idx)gridDim.x * blockDim.x;
  for (idx v = (idx)blockIdx.x * blockDim.x + threadIdx.x; v < nvec; v += stride) {
    const idx pos = v * 8;
    {
      float v0[8];
      { float raw[8]; ember_load<8>(t0 + pos, raw); _Pragma("unroll") for (int l = 0; l < 8; ++l) { v0[l] = ember_f(raw[l]); } }
      float v1[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v1[l] = __uint_as_float((unsigned)p.s[1]); }
      float v2[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v2[l] = (v0[l] > v1[l] ? 1.0f : 0.0f); }
      i64 v3[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v3[l] = ember_i(ember_to_bool(v2[l])); }
      float v4[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v4[l] = ember_f(ember_to_f32(v3[l])); }
      float v5[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v5[l] = __uint_as_float((unsigned)p.s[2]); }
      float v6[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v6[l] = (v4[l] != 0.0f ? v5[l] : v0[l]); }
      float v7[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v7[l] = __uint_as_float((unsigned)p.s[3]); }
      float v8[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v8[l] = __uint_as_float((unsigned)p.s[4]); }
      float v9[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v9[l] = (v6[l] < v7[l] ? v7[l] : (v6[l] > v8[l] ? v8[l] : v6[l])); }
      float v10[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v10[l] = ember_f(ember_to_f16(v9[l])); }
      i64 v11[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v11[l] = (i64)p.s[5]; }
      { __half raw[8]; _Pragma("unroll") for (int l = 0; l < 8; ++l) { raw[l] = ember_to_f16(v10[l]); } ember_store<8>(t1 + pos, raw); }
      { int raw[8]; _Pragma("unroll") for (int l = 0; l < 8; ++l) { raw[l] = ember_to_i32(v11[l]); } ember_store<8>(t2 + pos, raw); }
    }
  }
  for (idx pos = nvec * 8 + (idx)blockIdx.x * blockDim.x + threadIdx.x; pos < count; pos += stride) {
    {
      float v0[1];
      { const int l = 0; v0[l] = ember_f(t0[pos + l]); }
      float v1[1];
      { const int l = 0; v1[l] = __uint_as_float((unsigned)p.s[1]); }
      float v2[1];
      { const int l = 0; v2[l] = (v0[l] > v1[l] ? 1.0f : 0.0f); }
      i64 v3[1];
      { const int l = 0; v3[l] = ember_i(ember_to_bool(v2[l])); }
      float v4[1];
      { const int l = 0; v4[l] = ember_f(ember_to_f32(v3[l])); }
      float v5[1];
      { const int l = 0; v5[l] = __uint_as_float((unsigned)p.s[2]); }
      float v6[1];
      { const int l = 0; v6[l] = (v4[l] != 0.0f ? v5[l] : v0[l]); }
      float v7[1];
      { const int l = 0; v7[l] = __uint_as_float((unsigned)p.s[3]); }
      float v8[1];
      { const int l = 0; v8[l] = __uint_as_float((unsigned)p.s[4]); }
      float v9[1];
      { const int l = 0; v9[l] = (v6[l] < v7[l] ? v7[l] : (v6[l] > v8[l] ? v8[l] : v6[l])); }
      float v10[1];
      { const int l = 0; v10[l] = ember_f(ember_to_f16(v9[l])); }
      i64 v11[1];
      { const int l = 0; v11[l] = (i64)p.s[5]; }
      { const int l = 0; t1[pos + l] = ember_to_f16(v10[l]); }
      { const int l = 0; t2[pos + l] = ember_to_i32(v11[l]); }
    }
  }
}

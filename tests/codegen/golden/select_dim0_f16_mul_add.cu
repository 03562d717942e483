// trace:
//   input 0: t1 [3,2]
//   input 1: t2 [1]
//   input 2: t3 [1,2]
//   output 0: t4 [1,2]
//   scalar 0: placeholder 0 as f16
//   block 0 over [1,2]:
//     read  l1:f16 = Assign(in2:f16)
//     op    l0:f16 = Select(in0:f16, in1:i32; dim 0)
//     op    l2:f16 = Mul(l0:f16, s0:f16)
//     op    l3:f16 = Add(l2:f16, l1:f16)
//     write out0:f16 = Assign(l3:f16)
// kernel 0: grid 2 x 256 threads, 0 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=0 block=0 width=8 index64=false threads=256 group=1 shared=false b0:7722 dt:bdbb ua:1111 full:1
struct Params { unsigned long long s[13]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(256) ember_fused(const Params p) {
  const __half* __restrict__ t0 = (const __half*)p.s[9];
  const int* __restrict__ t1 = (const int*)p.s[10];
  const __half* __restrict__ t2 = (const __half*)p.s[11];
  __half* __restrict__ t3 = (__half*)p.s[12];
  const idx count = (idx)p.s[0];
  const idx nvec = count / 8;
  const idx stride = (idx)gridDim.x * blockDim.x;
  for (idx v = (idx)blockIdx.x * blockDim.x + threadIdx.x; v < nvec; v += stride) {
    const idx pos = v * 8;
    {
      float v0[8];
      { __half raw[8]; ember_load<8>(t2 + pos, raw); _Pragma("unroll") for (int l = 0; l < 8; ++l) { v0[l] = ember_f(raw[l]); } }
      idx r_ = pos;
      const idx c1 = r_ % (idx)p.s[1]; r_ /= (idx)p.s[1];
      const idx c0 = r_;
      float v1[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { { const i64 k = (i64)ember_i(t1[c0 * (idx)p.s[3]]); v1[l] = k >= 0 && k < (i64)(idx)p.s[4] && (c1 + (idx)l) < (idx)p.s[5] ? ember_f(t0[(idx)k * (idx)p.s[6] + (c1 + (idx)l) * (idx)p.s[7]]) : 0.0f; } }
      float v2[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v2[l] = __uint_as_float((unsigned)p.s[8]); }
      float v3[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v3[l] = (v1[l] * v2[l]); }
      float v4[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v4[l] = ember_f(ember_to_f16(v3[l])); }
      float v5[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v5[l] = (v4[l] + v0[l]); }
      float v6[8];
      _Pragma("unroll") for (int l = 0; l < 8; ++l) { v6[l] = ember_f(ember_to_f16(v5[l])); }
      { __half raw[8]; _Pragma("unroll") for (int l = 0; l < 8; ++l) { raw[l] = ember_to_f16(v6[l]); } ember_store<8>(t3 + pos, raw); }
    }
  }
  for (idx pos = nvec * 8 + (idx)blockIdx.x * blockDim.x + threadIdx.x; pos < count; pos += stride) {
    {
      float v0[1];
      { const int l = 0; v0[l] = ember_f(t2[pos + l]); }
      idx r_ = pos;
      const idx c1 = r_ % (idx)p.s[1]; r_ /= (idx)p.s[1];
      const idx c0 = r_;
      float v1[1];
      { const int l = 0; { const i64 k = (i64)ember_i(t1[c0 * (idx)p.s[3]]); v1[l] = k >= 0 && k < (i64)(idx)p.s[4] && (c1 + (idx)l) < (idx)p.s[5] ? ember_f(t0[(idx)k * (idx)p.s[6] + (c1 + (idx)l) * (idx)p.s[7]]) : 0.0f; } }
      float v2[1];
      { const int l = 0; v2[l] = __uint_as_float((unsigned)p.s[8]); }
      float v3[1];
      { const int l = 0; v3[l] = (v1[l] * v2[l]); }
      float v4[1];
      { const int l = 0; v4[l] = ember_f(ember_to_f16(v3[l])); }
      float v5[1];
      { const int l = 0; v5[l] = (v4[l] + v0[l]); }
      float v6[1];
      { const int l = 0; v6[l] = ember_f(ember_to_f16(v5[l])); }
      { const int l = 0; t3[pos + l] = ember_to_f16(v6[l]); }
    }
  }
}

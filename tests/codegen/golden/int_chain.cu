// trace:
//   input 0: t0 [1,2]
//   input 1: t1 [1,0]
//   output 0: t5 [1,2]
//   block 0 over [1,2]:
//     read  l0:i64 = Assign(in0:i64)
//     read  l1:i64 = Assign(in1:i64)
//     op    l2:i64 = Div(l0:i64, l1:i64)
//     op    l3:i64 = Rem(l2:i64, l1:i64)
//     op    l4:i64 = Abs(l3:i64)
//     op    l5:f32 = Assign(l4:i64)
//     write out0:f32 = Assign(l5:f32)
// kernel 0: grid 2 x 256 threads, 0 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=0 block=0 width=4 index64=false threads=256 group=1 shared=false b0:252 dt:eea ua:111 full:1
struct Params { unsigned long long s[8]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(256) ember_fused(const Params p) {
  const i64* __restrict__ t0 = (const i64*)p.s[5];
  const i64* __restrict__ t1 = (const i64*)p.s[6];
  float* __restrict__ t2 = (float*)p.s[7];
  const idx count = (idx)p.s[0];
  const idx nvec = count / 4;
  const idx stride = (idx)gridDim.x * blockDim.x;
  for (idx v = (idx)blockIdx.x * blockDim.x + threadIdx.x; v < nvec; v += stride) {
    const idx pos = v * 4;
    {
      i64 v0[4];
      { i64 raw[4]; ember_load<4>(t0 + pos, raw); _Pragma("unroll") for (int l = 0; l < 4; ++l) { v0[l] = ember_i(raw[l]); } }
      i64 v1[4];
      idx r_ = pos;
      const idx c1 = r_ % (idx)p.s[1]; r_ /= (idx)p.s[1];
      const idx c0 = r_;
      const idx o1 = c0 * (idx)p.s[3] + c1 * (idx)p.s[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v1[l] = ember_i(t1[o1]); }
      i64 v2[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v2[l] = ember_div(v0[l], v1[l]); }
      i64 v3[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v3[l] = ember_rem(v2[l], v1[l]); }
      i64 v4[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v4[l] = ember_abs(v3[l]); }
      float v5[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v5[l] = ember_f(ember_to_f32(v4[l])); }
      { float raw[4]; _Pragma("unroll") for (int l = 0; l < 4; ++l) { raw[l] = ember_to_f32(v5[l]); } ember_store<4>(t2 + pos, raw); }
    }
  }
  for (idx pos = nvec * 4 + (idx)blockIdx.x * blockDim.x + threadIdx.x; pos < count; pos += stride) {
    {
      i64 v0[1];
      { const int l = 0; v0[l] = ember_i(t0[pos + l]); }
      i64 v1[1];
      idx r_ = pos;
      const idx c1 = r_ % (idx)p.s[1]; r_ /= (idx)p.s[1];
      const idx c0 = r_;
      const idx o1 = c0 * (idx)p.s[3] + c1 * (idx)p.s[4];
      { const int l = 0; v1[l] = ember_i(t1[o1]); }
      i64 v2[1];
      { const int l = 0; v2[l] = ember_div(v0[l], v1[l]); }
      i64 v3[1];
      { const int l = 0; v3[l] = ember_rem(v2[l], v1[l]); }
      i64 v4[1];
      { const int l = 0; v4[l] = ember_abs(v3[l]); }
      float v5[1];
      { const int l = 0; v5[l] = ember_f(ember_to_f32(v4[l])); }
      { const int l = 0; t2[pos + l] = ember_to_f32(v5[l]); }
    }
  }
}

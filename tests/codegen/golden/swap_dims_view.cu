// trace:
//   input 0: t0 [1,1]
//   output 0: t3 [1,1]
//   view 0: swap_dims(0, 1) of input 0
//   block 0 over [1,1]:
//     read  l0:f32 = Assign(in0:f32)
//     read  l2:f32 = Assign(view0:f32)
//     op    l1:f32 = Exp(l0:f32)
//     op    l3:f32 = Add(l1:f32, l2:f32)
//     write out0:f32 = Assign(l3:f32)
// kernel 0: grid 9 x 256 threads, 0 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=0 block=0 width=4 index64=false threads=256 group=1 shared=false b0:232 dt:aaa ua:001 full:1
struct Params { unsigned long long s[8]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(256) ember_fused(const Params p) {
  const float* t0 = (const float*)p.s[5];
  const float* t1 = (const float*)p.s[6];
  float* __restrict__ t2 = (float*)p.s[7];
  const idx count = (idx)p.s[0];
  const idx nvec = count / 4;
  const idx stride = (idx)gridDim.x * blockDim.x;
  for (idx v = (idx)blockIdx.x * blockDim.x + threadIdx.x; v < nvec; v += stride) {
    const idx pos = v * 4;
    {
      float v0[4];
      { float raw[4]; ember_load<4>(t0 + pos, raw); _Pragma("unroll") for (int l = 0; l < 4; ++l) { v0[l] = ember_f(raw[l]); } }
      float v1[4];
      idx r_ = pos;
      const idx c1 = r_ % (idx)p.s[2]; r_ /= (idx)p.s[2];
      const idx c0 = r_;
      const idx o1 = c0 * (idx)p.s[4] + c1 * (idx)p.s[1];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v1[l] = ember_f(t1[o1 + l * (idx)p.s[1]]); }
      float v2[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v2[l] = expf(v0[l]); }
      float v3[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v3[l] = (v2[l] + v1[l]); }
      { float raw[4]; _Pragma("unroll") for (int l = 0; l < 4; ++l) { raw[l] = ember_to_f32(v3[l]); } ember_store<4>(t2 + pos, raw); }
    }
  }
  for (idx pos = nvec * 4 + (idx)blockIdx.x * blockDim.x + threadIdx.x; pos < count; pos += stride) {
    {
      float v0[1];
      { const int l = 0; v0[l] = ember_f(t0[pos + l]); }
      float v1[1];
      idx r_ = pos;
      const idx c1 = r_ % (idx)p.s[2]; r_ /= (idx)p.s[2];
      const idx c0 = r_;
      const idx o1 = c0 * (idx)p.s[4] + c1 * (idx)p.s[1];
      { const int l = 0; v1[l] = ember_f(t1[o1 + l * (idx)p.s[1]]); }
      float v2[1];
      { const int l = 0; v2[l] = expf(v0[l]); }
      float v3[1];
      { const int l = 0; v3[l] = (v2[l] + v1[l]); }
      { const int l = 0; t2[pos + l] = ember_to_f32(v3[l]); }
    }
  }
}

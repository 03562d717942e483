// trace:
//   input 0: t0 [1,2]
//   output 0: t3 [0,2]
//   scalar 0: placeholder 0 as f32
//   block 0 over [1,2]:
//     read  l0:f32 = Assign(in0:f32)
//     op    l1:f32 = Exp(l0:f32)
//     write b0.v0:f32 = Assign(l1:f32)
//   reduce Sum axis 0 of b0.v0:f32 -> l0:f32 (acc f32)
//   block 1 over [0,2]:
//     op    l1:f32 = Mul(l0:f32, s0:f32)
//     write out0:f32 = Assign(l1:f32)
// kernel 0: grid 2 x 256 threads, 0 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=2 block=0 width=1 index64=false threads=256 group=1 shared=false b0:10 b1:01 dt:aa ua:11 full:10
struct Params { unsigned long long s[6]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(256) ember_fused(const Params p) {
  const float* __restrict__ t0 = (const float*)p.s[4];
  float* __restrict__ t1 = (float*)p.s[5];
  const idx units = (idx)p.s[0];
  const idx L = (idx)p.s[1];
  const idx inner = (idx)p.s[2];
  const idx columns = units * inner;
  for (idx col = (idx)blockIdx.x * blockDim.x + threadIdx.x; col < columns;
       col += (idx)gridDim.x * blockDim.x) {
    const idx u = col / inner, j = col % inner;
    double acc0;
    ember_start<0>(acc0);
    for (idx a = 0; a < L; ++a) {
      const idx pos = (u * L + a) * inner + j;
      {
        float v0[1];
        { const int l = 0; v0[l] = ember_f(t0[pos + l]); }
        float v1[1];
        { const int l = 0; v1[l] = expf(v0[l]); }
        { const int l = 0; ember_fold<0>(acc0, (double)v1[l]); }
      }
    }
    const float rs0 = ember_finish_f<0>(acc0, (i64)L);
    {
      const idx pos = u * inner + j;
      (void)pos;
      {
        float v0[1];
        { const int l = 0; v0[l] = rs0; }
        float v1[1];
        { const int l = 0; v1[l] = __uint_as_float((unsigned)p.s[3]); }
        float v2[1];
        { const int l = 0; v2[l] = (v0[l] * v1[l]); }
        { const int l = 0; t1[pos + l] = ember_to_f32(v2[l]); }
      }
    }
  }
}

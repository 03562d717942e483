// trace:
//   input 0: t0 [1,2]
//   output 0: t2 [1,0]
//   scalar 0: placeholder 0 as f32
//   block 0 over [1,2]:
//     read  l0:f32 = Assign(in0:f32)
//     op    l1:f32 = Mul(l0:f32, s0:f32)
//     write b0.v0:f32 = Assign(l1:f32)
//   reduce ArgMax axis 1 of b0.v0:f32 -> l0:i64 (acc f32)
//   block 1 over [1,0]:
//     write out0:i64 = Assign(l0:i64)
// kernel 0: grid 100 x 64 threads, 1024 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=1 block=0 width=1 index64=false threads=64 shared=true b0:10 b1:01 dt:ae ua:11 full:10
struct Params { unsigned long long s[5]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(64) ember_fused(const Params p) {
  const float* __restrict__ t0 = (const float*)p.s[3];
  i64* __restrict__ t1 = (i64*)p.s[4];
  extern __shared__ __align__(16) unsigned char ember_smem[];
  __shared__ double ember_rd[32];
  __shared__ i64 ember_rl[32];
  __shared__ i64 ember_rx[32];
  (void)ember_rd;
  (void)ember_rl;
  (void)ember_rx;
  const idx units = (idx)p.s[0];
  const idx L = (idx)p.s[1];
  for (idx u = blockIdx.x; u < units; u += gridDim.x) {
    ember_acc<double> acc0 = ember_acc_start<5, double>();
    for (idx i = (idx)threadIdx.x * 1; i < L; i += (idx)blockDim.x * 1) {
      const idx pos = u * L + i;
      {
        float v0[1];
        { const int l = 0; v0[l] = ember_f(t0[pos + l]); }
        float v1[1];
        { const int l = 0; v1[l] = __uint_as_float((unsigned)p.s[2]); }
        float v2[1];
        { const int l = 0; v2[l] = (v0[l] * v1[l]); }
        { const int l = 0; ember_fold<5>(acc0, (double)v2[l], (i64)(i + l)); }
      }
    }
    acc0 = ember_block_reduce<5>(acc0, ember_rd, ember_rx);
    const i64 rs0 = ember_finish_index(acc0);
    {
      const idx pos = u;
      (void)pos;
      {
        i64 v0[1];
        { const int l = 0; v0[l] = rs0; }
        if (threadIdx.x == 0) {
        { const int l = 0; t1[pos + l] = ember_to_i64(v0[l]); }
        }
      }
    }
  }
}

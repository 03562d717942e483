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
// kernel 0: grid 50 x 32 threads, 0 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=1 block=0 width=1 index64=false threads=32 group=16 shared=true b0:10 b1:01 dt:ae ua:11 full:10
struct Params { unsigned long long s[5]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(32) ember_fused(const Params p) {
  const float* __restrict__ t0 = (const float*)p.s[3];
  i64* __restrict__ t1 = (i64*)p.s[4];
  extern __shared__ __align__(16) unsigned char ember_smem[];
  __shared__ __align__(16) unsigned char ember_red[32 * 16];
  (void)ember_smem;
  (void)ember_red;
  const idx units = (idx)p.s[0];
  const idx L = (idx)p.s[1];
  const int ember_sub = (int)threadIdx.x / 16;
  const int ember_t = (int)threadIdx.x % 16;
  for (idx ember_first = (idx)blockIdx.x * 2; ember_first < units;
       ember_first += (idx)gridDim.x * 2) {
    const bool ember_live = ember_first + ember_sub < units;
    const idx u = ember_live ? ember_first + ember_sub : units - 1;
    ember_ext<float, idx> acc0;
    ember_start<5>(acc0);
#pragma unroll 4
    for (idx i = (idx)ember_t * 1; i < L; i += (idx)16) {
      const idx pos = u * L + i;
      {
        float v0[1];
        { const int l = 0; v0[l] = ember_f(t0[pos + l]); }
        float v1[1];
        { const int l = 0; v1[l] = __uint_as_float((unsigned)p.s[2]); }
        float v2[1];
        { const int l = 0; v2[l] = (v0[l] * v1[l]); }
        { const int l = 0; ember_fold<5>(acc0, v2[l], (idx)(i + l)); }
      }
    }
    acc0 = ember_group_reduce<5, 16>(acc0, (ember_ext<float, idx>*)ember_red);
    const i64 rs0 = ember_finish_index(acc0);
    {
      const idx pos = u;
      (void)pos;
      {
        i64 v0[1];
        { const int l = 0; v0[l] = rs0; }
        if (ember_t == 0 && ember_live) {
        { const int l = 0; t1[pos + l] = ember_to_i64(v0[l]); }
        }
      }
    }
  }
}

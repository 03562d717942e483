// trace:
//   input 0: t0 [1,2]
//   output 0: t2 [1,0]
//   scalar 0: placeholder 0 as i64
//   block 0 over [1,2]:
//     read  l0:i64 = Assign(in0:i64)
//     op    l1:i64 = Mul(l0:i64, s0:i64)
//     write b0.v0:i64 = Assign(l1:i64)
//   reduce Max axis 1 of b0.v0:i64 -> l0:i64 (acc i64)
//   block 1 over [1,0]:
//     write out0:i64 = Assign(l0:i64)
// kernel 0: grid 300 x 128 threads, 0 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=1 block=0 width=2 index64=false threads=128 group=128 shared=true b0:20 b1:01 dt:ee ua:11 full:10
struct Params { unsigned long long s[5]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(128) ember_fused(const Params p) {
  const i64* __restrict__ t0 = (const i64*)p.s[3];
  i64* __restrict__ t1 = (i64*)p.s[4];
  extern __shared__ __align__(16) unsigned char ember_smem[];
  __shared__ __align__(16) unsigned char ember_red[32 * 16];
  (void)ember_smem;
  (void)ember_red;
  const idx units = (idx)p.s[0];
  const idx L = (idx)p.s[1];
  const int ember_t = (int)threadIdx.x % 128;
  for (idx u = blockIdx.x; u < units; u += gridDim.x) {
    ember_ext<i64, idx> acc0;
    ember_start<3>(acc0);
#pragma unroll 4
    for (idx i = (idx)ember_t * 2; i < L; i += (idx)256) {
      const idx pos = u * L + i;
      {
        i64 v0[2];
        { i64 raw[2]; ember_load<2>(t0 + pos, raw); _Pragma("unroll") for (int l = 0; l < 2; ++l) { v0[l] = ember_i(raw[l]); } }
        i64 v1[2];
        _Pragma("unroll") for (int l = 0; l < 2; ++l) { v1[l] = (i64)p.s[2]; }
        i64 v2[2];
        _Pragma("unroll") for (int l = 0; l < 2; ++l) { v2[l] = ember_mul(v0[l], v1[l]); }
        _Pragma("unroll") for (int l = 0; l < 2; ++l) { ember_fold<3>(acc0, v2[l], (idx)(i + l)); }
      }
    }
    acc0 = ember_group_reduce<3, 128>(acc0, (ember_ext<i64, idx>*)ember_red);
    const i64 rs0 = ember_finish_i<3>(acc0, (i64)L);
    {
      const idx pos = u;
      (void)pos;
      {
        i64 v0[1];
        { const int l = 0; v0[l] = rs0; }
        if (ember_t == 0) {
        { const int l = 0; t1[pos + l] = ember_to_i64(v0[l]); }
        }
      }
    }
  }
}

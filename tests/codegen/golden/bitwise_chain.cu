// trace:
//   input 0: t0 [1,2]
//   input 1: t1 [1,0]
//   output 0: t7 [1,2]
//   scalar 0: placeholder 0 as i32
//   scalar 1: placeholder 1 as i32
//   block 0 over [1,2]:
//     read  l0:i32 = Assign(in0:i32)
//     read  l1:i32 = Assign(in1:i32)
//     op    l2:i32 = BitwiseAnd(l0:i32, l1:i32)
//     op    l3:i32 = BitwiseXor(l2:i32, s0:i32)
//     op    l4:i32 = BitwiseLeftShift(l3:i32, l1:i32)
//     op    l5:i32 = BitwiseRightShift(l4:i32, s1:i32)
//     op    l6:i32 = BitwiseOr(l5:i32, l0:i32)
//     op    l7:i32 = BitwiseNot(l6:i32)
//     write out0:i32 = Assign(l7:i32)
// kernel 0: grid 2 x 256 threads, 0 bytes of shared memory
// <prelude: codegen/prelude.cpp>

// mode=0 block=0 width=4 index64=false threads=256 group=1 shared=false b0:252 dt:ddd ua:111 full:1
struct Params { unsigned long long s[10]; };
typedef int idx;

extern "C" __global__ void __launch_bounds__(256) ember_fused(const Params p) {
  const int* __restrict__ t0 = (const int*)p.s[7];
  const int* __restrict__ t1 = (const int*)p.s[8];
  int* __restrict__ t2 = (int*)p.s[9];
  const idx count = (idx)p.s[0];
  const idx nvec = count / 4;
  const idx stride = (idx)gridDim.x * blockDim.x;
  for (idx v = (idx)blockIdx.x * blockDim.x + threadIdx.x; v < nvec; v += stride) {
    const idx pos = v * 4;
    {
      i64 v0[4];
      { int raw[4]; ember_load<4>(t0 + pos, raw); _Pragma("unroll") for (int l = 0; l < 4; ++l) { v0[l] = ember_i(raw[l]); } }
      i64 v1[4];
      idx r_ = pos;
      const idx c1 = r_ % (idx)p.s[1]; r_ /= (idx)p.s[1];
      const idx c0 = r_;
      const idx o1 = c0 * (idx)p.s[3] + c1 * (idx)p.s[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v1[l] = ember_i(t1[o1]); }
      i64 v2[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v2[l] = (v0[l] & v1[l]); }
      i64 v3[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v3[l] = ember_i(ember_to_i32(v2[l])); }
      i64 v4[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v4[l] = (i64)p.s[5]; }
      i64 v5[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v5[l] = (v3[l] ^ v4[l]); }
      i64 v6[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v6[l] = ember_i(ember_to_i32(v5[l])); }
      i64 v7[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v7[l] = ((u64)v1[l] < 64ULL ? (i64)((u64)v6[l] << v1[l]) : (i64)0); }
      i64 v8[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v8[l] = ember_i(ember_to_i32(v7[l])); }
      i64 v9[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v9[l] = (i64)p.s[6]; }
      i64 v10[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v10[l] = (v8[l] >> ((u64)v9[l] < 64ULL ? v9[l] : (i64)63)); }
      i64 v11[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v11[l] = ember_i(ember_to_i32(v10[l])); }
      i64 v12[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v12[l] = (v11[l] | v0[l]); }
      i64 v13[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v13[l] = ember_i(ember_to_i32(v12[l])); }
      i64 v14[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v14[l] = (~v13[l]); }
      i64 v15[4];
      _Pragma("unroll") for (int l = 0; l < 4; ++l) { v15[l] = ember_i(ember_to_i32(v14[l])); }
      { int raw[4]; _Pragma("unroll") for (int l = 0; l < 4; ++l) { raw[l] = ember_to_i32(v15[l]); } ember_store<4>(t2 + pos, raw); }
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
      { const int l = 0; v2[l] = (v0[l] & v1[l]); }
      i64 v3[1];
      { const int l = 0; v3[l] = ember_i(ember_to_i32(v2[l])); }
      i64 v4[1];
      { const int l = 0; v4[l] = (i64)p.s[5]; }
      i64 v5[1];
      { const int l = 0; v5[l] = (v3[l] ^ v4[l]); }
      i64 v6[1];
      { const int l = 0; v6[l] = ember_i(ember_to_i32(v5[l])); }
      i64 v7[1];
      { const int l = 0; v7[l] = ((u64)v1[l] < 64ULL ? (i64)((u64)v6[l] << v1[l]) : (i64)0); }
      i64 v8[1];
      { const int l = 0; v8[l] = ember_i(ember_to_i32(v7[l])); }
      i64 v9[1];
      { const int l = 0; v9[l] = (i64)p.s[6]; }
      i64 v10[1];
      { const int l = 0; v10[l] = (v8[l] >> ((u64)v9[l] < 64ULL ? v9[l] : (i64)63)); }
      i64 v11[1];
      { const int l = 0; v11[l] = ember_i(ember_to_i32(v10[l])); }
      i64 v12[1];
      { const int l = 0; v12[l] = (v11[l] | v0[l]); }
      i64 v13[1];
      { const int l = 0; v13[l] = ember_i(ember_to_i32(v12[l])); }
      i64 v14[1];
      { const int l = 0; v14[l] = (~v13[l]); }
      i64 v15[1];
      { const int l = 0; v15[l] = ember_i(ember_to_i32(v14[l])); }
      { const int l = 0; t2[pos + l] = ember_to_i32(v15[l]); }
    }
  }
}

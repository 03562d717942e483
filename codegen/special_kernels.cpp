#include "codegen/special_kernels.h"

#include <fmt/format.h>

#include "codegen/cuda_expr.h"
#include "codegen/prelude.h"

namespace ember::codegen {
namespace {

GeneratedKernel Make(std::string name, std::string body, int slots) {
  GeneratedKernel k;
  k.name = std::move(name);
  k.source = std::string(CudaPrelude());
  k.source += fmt::format("\nstruct Params {{ unsigned long long s[{}]; }};\n", slots);
  k.source += body;
  return k;
}

}  // namespace

GeneratedKernel RandomKernel(Distribution::Kind kind, DType dtype) {
  const bool uniform = kind == Distribution::Kind::kUniform;
  std::string body = R"cuda(
__device__ __forceinline__ u64 ember_mix(u64 z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
__device__ __forceinline__ double ember_unit(u64 key, u64 counter) {
  const u64 bits = ember_mix(key + (counter + 1) * 0x9e3779b97f4a7c15ull);
  return (double)(bits >> 11) * 0x1p-53;
}
__device__ __forceinline__ unsigned short ember_next_down16(unsigned short h) {
  if ((h & 0x7fffu) == 0) return 0x8001u;
  return (h & 0x8000u) ? h + 1 : h - 1;
}
)cuda";
  body += fmt::format(
      "extern \"C\" __global__ void ember_random(const Params p) {{\n"
      "  {0}* out = ({0}*)p.s[0];\n"
      "  const i64 n = (i64)p.s[1];\n"
      "  const u64 key = p.s[2], first = p.s[3];\n"
      "  const double a = __longlong_as_double((i64)p.s[4]), b = "
      "__longlong_as_double((i64)p.s[5]);\n"
      "  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n;\n"
      "       i += (i64)gridDim.x * blockDim.x) {{\n",
      StorageType(dtype));
  if (uniform) {
    body +=
        "    double x = a + (b - a) * ember_unit(key, first + (u64)i);\n"
        "    if (x >= b && b > a) x = nextafter(b, a);\n";
  } else {
    body +=
        "    const u64 c = first + 2 * (u64)(i / 2);\n"
        "    const double u1 = 1.0 - ember_unit(key, c), u2 = ember_unit(key, c + 1);\n"
        "    const double radius = sqrt(-2.0 * log(u1));\n"
        "    const double angle = 2.0 * 3.141592653589793 * u2;\n"
        "    const double x = a + b * (radius * ((i & 1) == 0 ? cos(angle) : sin(angle)));\n";
  }
  if (IsFloat(dtype)) {
    // The excluded upper bound of a non-empty uniform range survives the narrowing.
    body += fmt::format(
        "    float f = (float)x;\n"
        "    const bool bounded = {0};\n"
        "    if (bounded && (double)f >= b) f = nextafterf(f, -__int_as_float(0x7f800000));\n"
        "    {1} v = {2};\n",
        uniform ? "b > a" : "false", StorageType(dtype), StoreExpr(dtype, "f"));
    if (dtype == DType::kF16) {
      body +=
          "    if (bounded) { unsigned short h = __half_as_ushort(v);\n"
          "      while ((double)__half2float(__ushort_as_half(h)) >= b) h = ember_next_down16(h);\n"
          "      v = __ushort_as_half(h); }\n";
    } else if (dtype == DType::kBF16) {
      body +=
          "    if (bounded) { unsigned short h = __bfloat16_as_ushort(v);\n"
          "      while ((double)__bfloat162float(__ushort_as_bfloat16(h)) >= b) h = "
          "ember_next_down16(h);\n"
          "      v = __ushort_as_bfloat16(h); }\n";
    }
    body += "    out[i] = v;\n";
  } else {
    body += fmt::format("    out[i] = {};\n", StoreExpr(dtype, "ember_sat_i64(floor(x))"));
  }
  body += "  }\n}\n";
  return Make("ember_random", body, 6);
}

GeneratedKernel IndexKernel(bool select, DType dtype, DType index_dtype) {
  const int r = kMaxSpecialRank;
  std::string body = fmt::format(
      "extern \"C\" __global__ void ember_index(const Params p) {{\n"
      "  {0}* out = ({0}*)p.s[0];\n"
      "  const {0}* x = (const {0}*)p.s[1];\n"
      "  const {1}* indices = (const {1}*)p.s[2];\n"
      "  const i64 n = (i64)p.s[3];\n"
      "  const int rank = (int)p.s[4], dim = (int)p.s[5];\n"
      "  const i64 size = (i64)p.s[6];\n"
      "  for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < n;\n"
      "       e += (i64)gridDim.x * blockDim.x) {{\n"
      "    i64 rest = e, offset = 0, index_offset = 0, at = 0;\n"
      "    for (int d = rank - 1; d >= 0; --d) {{\n"
      "      const i64 extent = (i64)p.s[7 + d];\n"
      "      const i64 c = rest % extent;\n"
      "      rest /= extent;\n"
      "      if (d == dim) at = c; else offset += c * (i64)p.s[7 + {2} + d];\n"
      "      index_offset += c * (i64)p.s[7 + {3} + d];\n"
      "    }}\n",
      StorageType(dtype), StorageType(index_dtype), r, 2 * r);
  body += select ? fmt::format("    const i64 k = (i64)indices[at * (i64)p.s[{}]];\n", 7 + 2 * r)
                 : std::string("    const i64 k = (i64)indices[index_offset];\n");
  body += fmt::format(
      "    (void)index_offset;\n"
      "    if (k < 0 || k >= size) {{ out[e] = {0}; continue; }}\n"
      "    out[e] = x[offset + k * (i64)p.s[7 + {1} + dim]];\n"
      "  }}\n}}\n",
      StoreExpr(dtype, "(i64)0"), r);
  return Make("ember_index", body, 7 + 3 * r);
}

GeneratedKernel IntMatmulKernel(DType dtype) {
  const char* t = StorageType(dtype);
  std::string body = fmt::format(
      "extern \"C\" __global__ void ember_int_matmul(const Params p) {{\n"
      "  {0}* out = ({0}*)p.s[0];\n"
      "  const {0}* lhs = (const {0}*)p.s[1];\n"
      "  const {0}* rhs = (const {0}*)p.s[2];\n"
      "  const i64 batch = (i64)p.s[3], m = (i64)p.s[4], n = (i64)p.s[5], k = (i64)p.s[6];\n"
      "  const i64 total = batch * m * n;\n"
      "  for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < total;\n"
      "       e += (i64)gridDim.x * blockDim.x) {{\n"
      "    const i64 col = e % n, row = (e / n) % m, b = e / (m * n);\n"
      "    const {0}* a = lhs + (b * m + row) * k;\n"
      "    const {0}* c = rhs + b * k * n + col;\n"
      "    i64 acc = 0;\n"
      "    for (i64 q = 0; q < k; ++q) acc = ember_add(acc, ember_mul(ember_i(a[q]), ember_i(c[q * "
      "n])));\n"
      "    out[e] = {1};\n"
      "  }}\n}}\n",
      t, StoreExpr(dtype, "acc"));
  return Make("ember_int_matmul", body, 7);
}

}  // namespace ember::codegen

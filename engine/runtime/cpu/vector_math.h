// Vectorised transcendental functions for the CPU kernels: SLEEF (Debian's libsleef), its
// 1.0-ULP ("u10") single-precision functions, the vector width picked once per process from
// the CPU that runs the binary (the build stays baseline x86-64):
//   AVX2 + FMA   8 lanes (Sleef_*f8_u10avx2)
//   otherwise    4 lanes (Sleef_*f4_u10, SLEEF's own SSE2/SSE4.1 dispatcher), or on any
//                machine with EMBER_CPU_VECTOR_MATH=sse (docs/CONFIGURATION.md)
// Every element goes through the vector function, a partial last vector padded, so a result
// does not depend on where its element sits in a tile or a chunk: the unfused kernels and the
// fused interpreter (both through ElementTile, kernels.h) agree bit for bit on one machine.
// Accuracy, as SLEEF documents and tests/runtime/cpu_vector_math_test.cpp checks against a
// double-precision reference: at most 1 ULP (exp, log, log1p, sin, cos, tanh, erf; log1p above
// 1e38, where SLEEF's overflows, is SLEEF's log: vector_math.cpp), with
// IEEE special values (NaN in, NaN out; exp(-inf) = 0; log(0) = -inf; tanh(+-inf) = +-1).
// glibc's scalar functions are within 1 ULP too, so a result may differ from std::exp's by
// one unit in the last place, never more than both bounds allow.
#pragma once

#include <cstdint>
#include <string_view>

namespace ember::cpu {

enum class VectorFn : uint8_t { kExp, kLog, kLog1p, kSin, kCos, kTanh, kErf };

// out[i] = fn(in[i]) for i in [0, n). `in` and `out` may be the same array.
void ApplyVectorFn(VectorFn fn, const float* in, float* out, int64_t n);

// "avx2" or "sse": the implementation this process uses.
std::string_view VectorMathTarget();

// Whether EMBER_CPU_VECTOR_MATH=sse asks for the path machines without AVX2 take; the
// elementwise tile functions (kernels.h, ElementTileTarget) follow it too.
bool VectorMathForcedSse();

}  // namespace ember::cpu

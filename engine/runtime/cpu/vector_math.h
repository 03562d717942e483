// Vectorised transcendental functions for the CPU kernels: SLEEF (Debian's libsleef), its
// single-precision functions of the accuracy [cpu] math asks for (Note [CPU math accuracy]), the
// vector width picked once per process from the CPU that runs the binary (the build stays
// baseline x86-64):
//   AVX2 + FMA   8 lanes (Sleef_*f8_u10avx2, Sleef_*f8_u35avx2)
//   otherwise    4 lanes (Sleef_*f4_u10, Sleef_*f4_u35: SLEEF's own SSE2/SSE4.1 dispatcher), or
//                on any machine with EMBER_CPU_VECTOR_MATH=sse (docs/CONFIGURATION.md)
// Every element goes through the vector function, a partial last vector padded, so a result
// does not depend on where its element sits in a tile or a chunk: the unfused kernels and the
// fused interpreter (both through ElementTile, kernels.h) agree bit for bit on one machine.
//
// Note [CPU math accuracy]: the bound every CPU path keeps, fused and unfused alike (both call
// ApplyVectorFn, so a setting changes both at once). Measured over all 2^32 floats against a
// double-precision reference (docs/BENCHMARKS.md, issue 47 fourth part; log1p not measured so):
//   u10 (the default)  SLEEF's 1-ULP functions: exp, log, log1p, sin, cos, tanh, erf at most
//                      1 ULP (log1p above 1e38, where SLEEF's overflows, is SLEEF's log:
//                      vector_math.cpp), except at two edges: sin and cos above 6e7 (up to
//                      1.09 ULP, seven inputs) and erf for |x| < 4e-38, whose results sit at the
//                      bottom of the normal range (1.10 ULP on AVX2, 2.03 on SSE4.1).
//                      tests/runtime/cpu/cpu_vector_math_test.cpp samples inside those edges.
//   u35                log, sin, cos and tanh take SLEEF's 3.5-ULP functions, 2-3x cheaper:
//                      SLEEF documents 3.5 ULP; measured at most 2.84 (log), 2.47 (sin), 2.49
//                      (cos), 2.86 (tanh; 2.77 on SSE2/SSE4.1) on every path.
//                      tests/runtime/cpu/cpu_vector_math_u35_test.cpp. SLEEF 3.5 has no
//                      3.5-ULP exp, log1p or erf: those stay the 1-ULP functions, bit for bit.
// Either way the IEEE special values hold (NaN in, NaN out; exp(-inf) = 0; log(0) = -inf;
// tanh(+-inf) = +-1; sin(-0) = -0). glibc's scalar functions are within 1 ULP, so a u10 result
// may differ from std::exp's by one unit in the last place, never more than both bounds allow.
// The accuracy is the process's, set by the CPU device when it starts (UseCpuMath, from [cpu]
// math, engine/api/device_setup.cpp) and recorded in the environment fingerprint when it is not
// u10 (store/codec/environment_fingerprint.h), so that no stored plan or fact crosses bounds.
#pragma once

#include <cstdint>
#include <string_view>

#include "engine/core/config.h"

namespace ember::cpu {

enum class VectorFn : uint8_t { kExp, kLog, kLog1p, kSin, kCos, kTanh, kErf };

// out[i] = fn(in[i]) for i in [0, n), at the process's accuracy (UseCpuMath). `in` and `out`
// may be the same array.
void ApplyVectorFn(VectorFn fn, const float* in, float* out, int64_t n);

// Sets the process's accuracy; u10 until called. REQUIRES: no CPU kernel runs meanwhile (the
// CPU device calls it as it starts, before its first op; tests between devices).
void UseCpuMath(CpuMath math);

// The accuracy ApplyVectorFn uses now.
CpuMath CurrentCpuMath();

// "avx2" or "sse": the implementation this process uses.
std::string_view VectorMathTarget();

// Whether EMBER_CPU_VECTOR_MATH=sse asks for the path machines without AVX2 take; the
// elementwise tile functions (kernels.h, ElementTileTarget) follow it too.
bool VectorMathForcedSse();

}  // namespace ember::cpu

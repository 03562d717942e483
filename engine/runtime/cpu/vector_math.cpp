#include "engine/runtime/cpu/vector_math.h"

#include <immintrin.h>
#include <sleef.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>

// The 256-bit functions take and return AVX registers, which this baseline (SSE2) translation
// unit may not use: sleef.h declares them only under __AVX__, so they are declared here, with
// the library's names and ABI, and called only from the functions below that are compiled for
// AVX2, after a CPU check.
// Clang also refuses a direct call with an __m256 argument unless the callee is declared for
// AVX ("changes the ABI", an error; the EMBER_FUZZ build is the first clang build of this file),
// so there the declarations say what the library's functions are: AVX2 code.
#pragma GCC diagnostic ignored "-Wpsabi"
#ifdef __clang__
#define EMBER_SLEEF_AVX2 __attribute__((target("avx2,fma")))
#else
#define EMBER_SLEEF_AVX2
#endif
extern "C" {
EMBER_SLEEF_AVX2 __m256 Sleef_expf8_u10avx2(__m256);
EMBER_SLEEF_AVX2 __m256 Sleef_logf8_u10avx2(__m256);
EMBER_SLEEF_AVX2 __m256 Sleef_log1pf8_u10avx2(__m256);
EMBER_SLEEF_AVX2 __m256 Sleef_sinf8_u10avx2(__m256);
EMBER_SLEEF_AVX2 __m256 Sleef_cosf8_u10avx2(__m256);
EMBER_SLEEF_AVX2 __m256 Sleef_tanhf8_u10avx2(__m256);
EMBER_SLEEF_AVX2 __m256 Sleef_erff8_u10avx2(__m256);
EMBER_SLEEF_AVX2 __m256 Sleef_logf8_u35avx2(__m256);
EMBER_SLEEF_AVX2 __m256 Sleef_sinf8_u35avx2(__m256);
EMBER_SLEEF_AVX2 __m256 Sleef_cosf8_u35avx2(__m256);
EMBER_SLEEF_AVX2 __m256 Sleef_tanhf8_u35avx2(__m256);
}
#undef EMBER_SLEEF_AVX2

namespace ember::cpu {
namespace {

template <auto F>
__attribute__((target("avx2,fma"))) void Loop8(const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, F(_mm256_loadu_ps(in + i)));
  if (i == n) return;
  alignas(32) float lanes[8] = {};
  std::copy(in + i, in + n, lanes);
  _mm256_store_ps(lanes, F(_mm256_load_ps(lanes)));
  std::copy(lanes, lanes + (n - i), out + i);
}

template <auto F>
void Loop4(const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) _mm_storeu_ps(out + i, F(_mm_loadu_ps(in + i)));
  if (i == n) return;
  alignas(16) float lanes[4] = {};
  std::copy(in + i, in + n, lanes);
  _mm_store_ps(lanes, F(_mm_load_ps(lanes)));
  std::copy(lanes, lanes + (n - i), out + i);
}

// SLEEF's log1pf keeps its 1-ULP bound only below 1e38 and returns +inf above (SLEEF's
// documented domain; found against the CUDA backend, which gives log(FLT_MAX) = 88.72). There
// log1p(x) = log(x) + log1p(1/x) and the second term is below 1e-38, far under half an ULP of
// the first (about 4e-6), so the lanes above 1e38 take SLEEF's log, also 1 ULP.
constexpr float kLog1pDomain = 1e38f;

__attribute__((target("avx2,fma"))) __m256 Log1p8(__m256 x) {
  const __m256 y = Sleef_log1pf8_u10avx2(x);
  const __m256 big = _mm256_cmp_ps(x, _mm256_set1_ps(kLog1pDomain), _CMP_GT_OQ);
  if (_mm256_movemask_ps(big) == 0) return y;
  return _mm256_blendv_ps(y, Sleef_logf8_u10avx2(x), big);
}

__m128 Log1p4(__m128 x) {
  const __m128 y = Sleef_log1pf4_u10(x);
  const __m128 big = _mm_cmpgt_ps(x, _mm_set1_ps(kLog1pDomain));
  if (_mm_movemask_ps(big) == 0) return y;
  return _mm_or_ps(_mm_and_ps(big, Sleef_logf4_u10(x)), _mm_andnot_ps(big, y));
}

using Loop = void (*)(const float*, float*, int64_t);

struct Table {
  Loop fn[7];
  std::string_view target;
};

// EMBER_CPU_VECTOR_MATH=sse takes the 4-lane path on a machine that has AVX2, so that the path
// machines without AVX2 run is tested on any machine (tests/CMakeLists.txt runs the vector math
// tests both ways); unset, empty or "auto" picks by the CPU. Read once, at the first use.
bool ReadForcedSse() {
  const char* forced = std::getenv("EMBER_CPU_VECTOR_MATH");
  if (forced == nullptr || *forced == '\0' || std::string_view(forced) == "auto") return false;
  if (std::string_view(forced) == "sse") return true;
  std::fprintf(stderr, "ember: EMBER_CPU_VECTOR_MATH must be auto or sse, got \"%s\"; using auto\n",
               forced);
  return false;
}

bool UseAvx2() {
  return !VectorMathForcedSse() && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

// Note [CPU math accuracy] (vector_math.h): u35 replaces the functions SLEEF has at 3.5 ULP
// (log, sin, cos, tanh); exp, log1p and erf are the 1-ULP ones in both tables.
Table Pick(CpuMath math) {
  const bool u35 = math == CpuMath::kU35;
  if (UseAvx2()) {
    return {
        {Loop8<Sleef_expf8_u10avx2>, u35 ? Loop8<Sleef_logf8_u35avx2> : Loop8<Sleef_logf8_u10avx2>,
         Loop8<Log1p8>, u35 ? Loop8<Sleef_sinf8_u35avx2> : Loop8<Sleef_sinf8_u10avx2>,
         u35 ? Loop8<Sleef_cosf8_u35avx2> : Loop8<Sleef_cosf8_u10avx2>,
         u35 ? Loop8<Sleef_tanhf8_u35avx2> : Loop8<Sleef_tanhf8_u10avx2>,
         Loop8<Sleef_erff8_u10avx2>},
        "avx2"};
  }
  return {{Loop4<Sleef_expf4_u10>, u35 ? Loop4<Sleef_logf4_u35> : Loop4<Sleef_logf4_u10>,
           Loop4<Log1p4>, u35 ? Loop4<Sleef_sinf4_u35> : Loop4<Sleef_sinf4_u10>,
           u35 ? Loop4<Sleef_cosf4_u35> : Loop4<Sleef_cosf4_u10>,
           u35 ? Loop4<Sleef_tanhf4_u35> : Loop4<Sleef_tanhf4_u10>, Loop4<Sleef_erff4_u10>},
          "sse"};
}

// Both accuracies' tables, picked once, indexed by CpuMath; UseCpuMath chooses between them.
const Table& TableFor(CpuMath math) {
  static const Table tables[] = {Pick(CpuMath::kU10), Pick(CpuMath::kU35)};
  return tables[static_cast<int>(math)];
}

std::atomic<CpuMath> g_math{CpuMath::kU10};

const Table& Chosen() { return TableFor(g_math.load(std::memory_order_relaxed)); }

}  // namespace

void ApplyVectorFn(VectorFn fn, const float* in, float* out, int64_t n) {
  Chosen().fn[static_cast<int>(fn)](in, out, n);
}

std::string_view VectorMathTarget() { return Chosen().target; }

void UseCpuMath(CpuMath math) { g_math.store(math, std::memory_order_relaxed); }

CpuMath CurrentCpuMath() { return g_math.load(std::memory_order_relaxed); }

bool VectorMathForcedSse() {
  static const bool forced = ReadForcedSse();
  return forced;
}

}  // namespace ember::cpu

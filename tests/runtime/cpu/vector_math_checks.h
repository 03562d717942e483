// Checks shared by the CPU vector math tests (cpu_vector_math_test.cpp for the u10 table,
// cpu_vector_math_u35_test.cpp for the u35 one): the error of a result in ULP, and that a result
// does not depend on where its element sits in the array.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "engine/runtime/cpu/vector_math.h"

namespace ember::cpu::testing {

// The error of `got` in units of the float spacing at the exact value `want` (below the normal
// range, the smallest subnormal's). A NaN or an infinity must be met exactly, and a NaN or
// infinite result for a finite value counts as a huge error (never as NaN, which a maximum
// would skip).
inline double UlpError(float got, double want) {
  if (std::isnan(want)) return std::isnan(got) ? 0 : 1e9;
  if (std::isinf(want)) return static_cast<double>(got) == want ? 0 : 1e9;
  if (!std::isfinite(got)) return 1e9;
  const float rounded = static_cast<float>(want);
  const float inf = std::numeric_limits<float>::infinity();
  const double spacing =
      std::abs(static_cast<double>(std::nextafter(rounded, inf)) - static_cast<double>(rounded));
  const double unit =
      std::max(spacing, static_cast<double>(std::numeric_limits<float>::denorm_min()));
  return std::abs(static_cast<double>(got) - want) / unit;
}

// The unfused kernels cut an array into chunks, the fused interpreter into tiles: an element's
// result must not depend on which, nor on its lane. Applies `fn` to all of `in`, then to runs
// of 1, 3 and 9 elements from every start, and compares bit for bit.
inline void ExpectPositionIndependent(VectorFn fn, const char* name, const std::vector<float>& in) {
  std::vector<float> whole(in.size());
  ApplyVectorFn(fn, in.data(), whole.data(), static_cast<int64_t>(in.size()));
  for (size_t start = 0; start < in.size(); ++start) {
    for (const size_t len : {size_t{1}, size_t{3}, size_t{9}}) {
      if (start + len > in.size()) continue;
      std::vector<float> part(len);
      ApplyVectorFn(fn, in.data() + start, part.data(), static_cast<int64_t>(len));
      for (size_t i = 0; i < len; ++i) {
        ASSERT_EQ(std::bit_cast<uint32_t>(part[i]), std::bit_cast<uint32_t>(whole[start + i]))
            << name << " at " << start + i;
      }
    }
  }
}

}  // namespace ember::cpu::testing

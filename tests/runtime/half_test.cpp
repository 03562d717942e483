// engine/core/half.h: exhaustive round trips and round-to-nearest-even against an
// independent reference built from the list of all representable values.
#include "engine/core/half.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace ember {
namespace {

bool IsHalfNan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }

// Correct rounding of |value| to a half code, from the sorted list of all finite halves plus
// 2^16 standing for the infinity (the value the next code would have), ties to the even code.
uint16_t ReferenceHalf(float value) {
  static const std::vector<double> table = [] {
    std::vector<double> t;
    for (uint32_t code = 0; code <= 0x7c00u; ++code) {
      t.push_back(code == 0x7c00u ? 65536.0 : HalfToFloat(static_cast<uint16_t>(code)));
    }
    return t;
  }();
  const uint16_t sign = std::signbit(value) ? 0x8000u : 0;
  const double a = std::fabs(static_cast<double>(value));
  if (a >= 65536.0) return sign | 0x7c00u;
  const auto hi = std::lower_bound(table.begin(), table.end(), a);
  const uint32_t hi_code = static_cast<uint32_t>(hi - table.begin());
  if (*hi == a) return static_cast<uint16_t>(sign | hi_code);
  const uint32_t lo_code = hi_code - 1;
  const double down = a - table[lo_code], up = *hi - a;
  const uint32_t code = down < up   ? lo_code
                        : up < down ? hi_code
                                    : (lo_code % 2 == 0 ? lo_code : hi_code);
  return static_cast<uint16_t>(sign | code);
}

uint16_t ReferenceBFloat16(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint32_t sign = bits & 0x80000000u;
  const uint32_t lo = bits & 0x7fff0000u;  // truncated magnitude
  const uint32_t hi = lo + 0x10000u;
  const double a = std::fabs(static_cast<double>(value));
  const double lo_value = std::bit_cast<float>(lo);
  const double hi_value = hi == 0x7f800000u ? 0x1p128 : std::bit_cast<float>(hi);
  const double down = a - lo_value, up = hi_value - a;
  const uint32_t pick = down < up ? lo : up < down ? hi : (((lo >> 16) % 2 == 0) ? lo : hi);
  return static_cast<uint16_t>((sign | pick) >> 16);
}

std::vector<float> SampleFloats() {
  std::vector<float> values = {0.0f,
                               -0.0f,
                               1.0f,
                               -1.0f,
                               65504.0f,
                               65519.99f,
                               65520.0f,
                               65536.0f,
                               0x1p-24f,
                               0x1p-25f,
                               0x1.8p-25f,
                               0x1p-26f,
                               0x1.8p-24f,
                               0x1p-14f,
                               0x1.ffcp-15f,
                               std::numeric_limits<float>::max(),
                               std::numeric_limits<float>::denorm_min(),
                               std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity()};
  uint64_t state = 42;
  for (int i = 0; i < 2'000'000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const uint32_t r = static_cast<uint32_t>(state >> 32);
    if (i % 2 == 0) {
      values.push_back(std::bit_cast<float>(r));  // any pattern
    } else {
      // Concentrate on the half range: exponents 2^-27 .. 2^17.
      const uint32_t exponent = 127 - 27 + (r >> 23) % 45;
      values.push_back(std::bit_cast<float>((r & 0x807fffffu) | (exponent << 23)));
    }
  }
  return values;
}

TEST(Half, EveryHalfRoundTripsExactly) {
  for (uint32_t code = 0; code <= 0xffffu; ++code) {
    const uint16_t h = static_cast<uint16_t>(code);
    const float f = HalfToFloat(h);
    ASSERT_EQ(FloatToHalf(f), h) << std::hex << code;
    ASSERT_EQ(std::isnan(f), IsHalfNan(h)) << std::hex << code;
  }
}

TEST(Half, EveryBFloat16RoundTripsExactly) {
  for (uint32_t code = 0; code <= 0xffffu; ++code) {
    const uint16_t h = static_cast<uint16_t>(code);
    ASSERT_EQ(FloatToBFloat16(BFloat16ToFloat(h)), h) << std::hex << code;
    ASSERT_EQ(std::bit_cast<uint32_t>(BFloat16ToFloat(h)), code << 16);
  }
}

TEST(Half, DecodesKnownValues) {
  EXPECT_EQ(HalfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(HalfToFloat(0xc000), -2.0f);
  EXPECT_EQ(HalfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(HalfToFloat(0x0001), 0x1p-24f);
  EXPECT_EQ(HalfToFloat(0x03ff), 0x1.ff8p-15f);
  EXPECT_EQ(HalfToFloat(0x0400), 0x1p-14f);
  EXPECT_TRUE(std::signbit(HalfToFloat(0x8000)));
  EXPECT_EQ(HalfToFloat(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(HalfToFloat(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7e00)));
}

TEST(Half, RoundsToNearestEvenAtTheEdges) {
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToHalf(65519.99f), 0x7bff);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7c00);  // tie goes to the even code: the infinity
  EXPECT_EQ(FloatToHalf(1e10f), 0x7c00);
  EXPECT_EQ(FloatToHalf(-1e10f), 0xfc00);
  EXPECT_EQ(FloatToHalf(0x1p-25f), 0x0000);           // half of the smallest subnormal: tie to 0
  EXPECT_EQ(FloatToHalf(0x1.8p-25f), 0x0001);         // above the tie
  EXPECT_EQ(FloatToHalf(0x1.8p-24f), 0x0002);         // 1.5 units: tie to even 2
  EXPECT_EQ(FloatToHalf(0x1.ffcp-15f), 0x0400);       // rounds up into the smallest normal
  EXPECT_EQ(FloatToHalf(1.0f + 0x1p-11f), 0x3c00);    // tie: even mantissa stays
  EXPECT_EQ(FloatToHalf(1.0f + 0x1.8p-10f), 0x3c02);  // tie between 1 and 2 units: even 2
  EXPECT_EQ(FloatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::denorm_min()), 0x0000);
}

TEST(Half, NanStaysNan) {
  const float quiet = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(IsHalfNan(FloatToHalf(quiet)));
  EXPECT_TRUE(IsHalfNan(FloatToHalf(-quiet)));
  // A payload only in the low bits, which the conversion drops, still gives a NaN.
  EXPECT_TRUE(IsHalfNan(FloatToHalf(std::bit_cast<float>(0x7f800001u))));
  EXPECT_EQ(FloatToBFloat16(std::bit_cast<float>(0x7f800001u)) & 0x7f80u, 0x7f80u);
  EXPECT_NE(FloatToBFloat16(std::bit_cast<float>(0x7f800001u)) & 0x7fu, 0);
  EXPECT_TRUE(std::isnan(BFloat16ToFloat(FloatToBFloat16(quiet))));
}

TEST(Half, MatchesReferenceRoundingOnSampledFloats) {
  for (float f : SampleFloats()) {
    if (std::isnan(f)) {
      ASSERT_TRUE(IsHalfNan(FloatToHalf(f)));
      continue;
    }
    ASSERT_EQ(FloatToHalf(f), ReferenceHalf(f)) << std::hexfloat << f;
  }
}

TEST(BFloat16, MatchesReferenceRoundingOnSampledFloats) {
  for (float f : SampleFloats()) {
    if (std::isnan(f)) {
      ASSERT_TRUE(std::isnan(BFloat16ToFloat(FloatToBFloat16(f))));
      continue;
    }
    ASSERT_EQ(FloatToBFloat16(f), ReferenceBFloat16(f)) << std::hexfloat << f;
  }
}

TEST(BFloat16, RoundsToNearestEvenAndOverflowsToInfinity) {
  EXPECT_EQ(FloatToBFloat16(1.0f), 0x3f80);
  EXPECT_EQ(FloatToBFloat16(std::bit_cast<float>(0x3f808000u)), 0x3f80);  // tie, even stays
  EXPECT_EQ(FloatToBFloat16(std::bit_cast<float>(0x3f818000u)), 0x3f82);  // tie, odd rounds up
  EXPECT_EQ(FloatToBFloat16(std::bit_cast<float>(0x3f808001u)), 0x3f81);
  EXPECT_EQ(FloatToBFloat16(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(FloatToBFloat16(-std::numeric_limits<float>::infinity()), 0xff80);
  EXPECT_EQ(FloatToBFloat16(std::numeric_limits<float>::denorm_min()), 0x0000);
}

}  // namespace
}  // namespace ember

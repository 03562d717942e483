// IEEE binary16 (f16) and bfloat16 (bf16) conversions, bit-exact and portable (no compiler
// half types, no intrinsics), so that every backend and test rounds the same way.
//
// Contract:
//  * Float -> 16 bits rounds to nearest, ties to even; values beyond the largest finite value
//    round to infinity; values below the smallest subnormal round to (signed) zero.
//  * Infinities keep their sign. NaN stays NaN: its sign and the top payload bits are kept, and
//    a payload that would become zero is made quiet (so a NaN never turns into an infinity).
//  * 16 bits -> float is exact (every f16 and bf16 value is representable in f32).
//  * Round trips: for every 16-bit pattern h, FloatToHalf(HalfToFloat(h)) == h and
//    FloatToBFloat16(BFloat16ToFloat(h)) == h (NaN payloads included).
// The functions are inline because kernels call them once per element. They assume the default
// floating-point environment (round to nearest, no -ffast-math).
#pragma once

#include <bit>
#include <cstdint>

namespace ember {

inline uint16_t FloatToHalf(float value) {
  const uint32_t x = std::bit_cast<uint32_t>(value);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // Inf or NaN
    if (abs == 0x7f800000u) return sign | 0x7c00u;
    uint32_t payload = (abs >> 13) & 0x3ffu;
    if (payload == 0) payload = 0x200u;  // keep it a NaN
    return static_cast<uint16_t>(sign | 0x7c00u | payload);
  }
  // 65520 is halfway between the largest half (65504) and 2^16; the tie goes to the even
  // neighbour, which is the infinity.
  if (abs >= 0x477ff000u) return sign | 0x7c00u;
  if (abs < 0x38800000u) {  // below 2^-14, the smallest normal half: subnormal or zero
    // Adding 0.5 puts the value's bits at the ulp of 0.5 (2^-24, the subnormal half unit), so
    // the hardware add rounds to nearest even for us; a carry into 2^-14 yields the smallest
    // normal half, which is also the right encoding.
    const float shifted = std::bit_cast<float>(abs) + 0.5f;
    return static_cast<uint16_t>(sign | (std::bit_cast<uint32_t>(shifted) - 0x3f000000u));
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped bits to nearest even.
  // A mantissa carry rolls into the exponent, which is the correct result.
  const uint32_t odd = (abs >> 13) & 1u;
  abs += 0xc8000fffu + odd;  // -(112 << 23) + 0xfff, modulo 2^32
  return static_cast<uint16_t>(sign | (abs >> 13));
}

inline float HalfToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1fu;
  const uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24 is exact in f32.
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(magnitude));
  }
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

inline uint16_t FloatToBFloat16(float value) {
  const uint32_t x = std::bit_cast<uint32_t>(value);
  if ((x & 0x7fffffffu) > 0x7f800000u) {  // NaN: truncate, but never to an infinity
    uint16_t high = static_cast<uint16_t>(x >> 16);
    if ((high & 0x7fu) == 0) high |= 0x40u;
    return high;
  }
  // Round to nearest even on the 16 dropped bits; overflow carries into the infinity.
  const uint32_t odd = (x >> 16) & 1u;
  return static_cast<uint16_t>((x + 0x7fffu + odd) >> 16);
}

inline float BFloat16ToFloat(uint16_t bf16) {
  return std::bit_cast<float>(static_cast<uint32_t>(bf16) << 16);
}

}  // namespace ember

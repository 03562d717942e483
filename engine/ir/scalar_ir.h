// ScalarIr: a scalar attribute of an op (burn's ScalarIr: Float(f64) | Int(i64) | UInt(u64) |
// Bool). Stored as a tag plus 64 raw bits so that equality and the canonical bytes compare
// floats bit-wise: NaN equals NaN and -0.0 differs from 0.0, which makes every op equal to
// itself (burn's f64 PartialEq does not). In a relative op every scalar is the placeholder
// UInt(index) (Note [Relative form]).
#pragma once

#include <bit>
#include <cstdint>
#include <limits>

namespace ember {

// A double as an i64 by the float -> int rule used everywhere (casts, int scalars, random ints):
// truncate toward zero, saturate at the i64 range, NaN -> 0 (a plain cast would be undefined
// behaviour for NaN and out-of-range values).
inline int64_t SaturatingToInt64(double v) {
  if (!(v == v)) return 0;
  if (v >= 9223372036854775808.0) return INT64_MAX;
  if (v < -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(v);
}

// The same rule into i32's range (saturating at i32's own bounds, not through i64).
inline int32_t SaturatingToInt32(double v) {
  if (!(v == v)) return 0;
  if (v >= 2147483648.0) return INT32_MAX;
  if (v < -2147483648.0) return INT32_MIN;
  return static_cast<int32_t>(v);
}

struct ScalarIr {
  // Stored numbers: never renumber.
  enum class Kind : uint8_t { kFloat = 0, kInt = 1, kUInt = 2, kBool = 3 };

  Kind kind = Kind::kFloat;
  uint64_t bits = 0;

  static ScalarIr Float(double v) { return {Kind::kFloat, std::bit_cast<uint64_t>(v)}; }
  static ScalarIr Int(int64_t v) { return {Kind::kInt, static_cast<uint64_t>(v)}; }
  static ScalarIr UInt(uint64_t v) { return {Kind::kUInt, v}; }
  static ScalarIr Bool(bool v) { return {Kind::kBool, v ? 1u : 0u}; }

  // The value as a double, whatever the kind (used by kernels that compute in floating point).
  double AsDouble() const {
    switch (kind) {
      case Kind::kFloat: return std::bit_cast<double>(bits);
      case Kind::kInt: return static_cast<double>(static_cast<int64_t>(bits));
      case Kind::kUInt: return static_cast<double>(bits);
      case Kind::kBool: return bits != 0 ? 1.0 : 0.0;
    }
    return 0.0;
  }
  // The value as an integer; floats by SaturatingToInt64.
  int64_t AsInt() const {
    switch (kind) {
      case Kind::kFloat: return SaturatingToInt64(std::bit_cast<double>(bits));
      case Kind::kInt: return static_cast<int64_t>(bits);
      case Kind::kUInt: return static_cast<int64_t>(bits);
      case Kind::kBool: return bits != 0 ? 1 : 0;
    }
    return 0;
  }

  bool operator==(const ScalarIr&) const = default;
};

}  // namespace ember

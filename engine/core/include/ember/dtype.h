// Element types of ember tensors. Part of the public API (installed with ember.h).
//
// The numeric values are stored on disk (plan database, canonical op bytes): they are
// append-only and never renumbered (see Note [Canonical bytes] in engine/ir/canonical.h).
#pragma once

#include <cstdint>
#include <string_view>

namespace ember {

enum class DType : uint8_t {
  kF32 = 0,
  kF16 = 1,
  kBF16 = 2,
  kI32 = 3,
  kI64 = 4,
  kBool = 5,
};

inline constexpr int kNumDTypes = 6;

// "f32", "f16", "bf16", "i32", "i64", "bool".
std::string_view DTypeName(DType dtype);
// Bytes per element in host and device buffers (bool is one byte).
int DTypeSize(DType dtype);
bool IsFloat(DType dtype);  // f32, f16, bf16
bool IsInt(DType dtype);    // i32, i64

}  // namespace ember

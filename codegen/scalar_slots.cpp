#include "codegen/scalar_slots.h"

#include <bit>
#include <cmath>
#include <limits>

#include "engine/core/half.h"

namespace ember::codegen {
namespace {

uint64_t FloatBits(float f) { return std::bit_cast<uint32_t>(f); }

}  // namespace

uint64_t ScalarSlotValue(ScalarIr value, DType dtype, bool fill) {
  if (!fill) {
    if (IsFloat(dtype)) return FloatBits(static_cast<float>(value.AsDouble()));
    return static_cast<uint64_t>(value.AsInt());
  }
  switch (dtype) {
    case DType::kF32: return FloatBits(static_cast<float>(value.AsDouble()));
    case DType::kF16:
      return FloatBits(HalfToFloat(FloatToHalf(static_cast<float>(value.AsDouble()))));
    case DType::kBF16:
      return FloatBits(BFloat16ToFloat(FloatToBFloat16(static_cast<float>(value.AsDouble()))));
    case DType::kBool: return value.AsDouble() != 0.0 ? 1 : 0;
    case DType::kI32: {
      const int64_t v = value.kind == ScalarIr::Kind::kFloat
                            ? SaturatingToInt32(value.AsDouble())
                            : static_cast<int32_t>(static_cast<uint32_t>(value.AsInt()));
      return static_cast<uint64_t>(v);
    }
    case DType::kI64: return static_cast<uint64_t>(value.AsInt());
  }
  return 0;
}

}  // namespace ember::codegen

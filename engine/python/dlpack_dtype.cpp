#include "engine/python/dlpack_dtype.h"

#include <string>

namespace ember::python {

#if DLPACK_VERSION >= 80
static_assert(kDLBool == kDLBoolCode, "DLPack's bool code");
#endif

DLDataType ToDLDataType(DType dtype) {
  switch (dtype) {
    case DType::kF32: return {kDLFloat, 32, 1};
    case DType::kF16: return {kDLFloat, 16, 1};
    case DType::kBF16: return {kDLBfloat, 16, 1};
    case DType::kI32: return {kDLInt, 32, 1};
    case DType::kI64: return {kDLInt, 64, 1};
    case DType::kBool: return {kDLBoolCode, 8, 1};
  }
  throw py::type_error("ember: __dlpack__: unknown dtype");
}

DType FromDLDataType(const DLDataType& t) {
  if (t.lanes == 1) {
    if (t.code == kDLFloat && t.bits == 32) return DType::kF32;
    if (t.code == kDLFloat && t.bits == 16) return DType::kF16;
    if (t.code == kDLBfloat && t.bits == 16) return DType::kBF16;
    if (t.code == kDLInt && t.bits == 32) return DType::kI32;
    if (t.code == kDLInt && t.bits == 64) return DType::kI64;
    if (t.code == kDLBoolCode && t.bits == 8) return DType::kBool;
  }
  throw py::type_error("ember: from_dlpack: DLPack dtype (code " + std::to_string(t.code) + ", " +
                       std::to_string(t.bits) + " bits, " + std::to_string(t.lanes) +
                       " lanes) has no ember dtype; expected float32, float16, bfloat16, int32, "
                       "int64 or bool (cast it first)");
}

}  // namespace ember::python

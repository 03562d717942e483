// ember's dtypes as DLPack data types, both ways, for the module's DLPack export
// (exchange_bindings.cpp) and import (import_bindings.cpp).
#pragma once

#include <dlpack/dlpack.h>

#include "engine/python/bindings.h"

namespace ember::python {

// DLPack 0.8's kDLBool (one byte, 0 or 1). Debian's libdlpack-dev is DLPack 0.6, which has no
// bool code; the value is fixed by the standard, so it is written here.
inline constexpr uint8_t kDLBoolCode = 6;

// TypeError for a dtype ember does not know.
DLDataType ToDLDataType(DType dtype);
// TypeError, naming the DLPack type, for one ember has no dtype for.
DType FromDLDataType(const DLDataType& t);

}  // namespace ember::python

// The 8 bytes a scalar slot carries (Note [Kernel arguments], kernel_plan.h), by the CPU's
// rules: as an op operand a scalar enters the domain of its dtype (f32 bits for the float
// domain, an i64 for the int one: engine/runtime/cpu/map_tiles.h, Operand::Scalar); assigned to
// a local (a fused Full) it is first stored as that dtype (engine/runtime/cpu/cast.cpp,
// EncodeFill) and loaded back.
#pragma once

#include <cstdint>

#include <ember/dtype.h>

#include "engine/ir/scalar_ir.h"

namespace ember::codegen {

// `fill`: stored as `dtype` and loaded back; else the operand value in dtype's domain.
uint64_t ScalarSlotValue(ScalarIr value, DType dtype, bool fill);

}  // namespace ember::codegen

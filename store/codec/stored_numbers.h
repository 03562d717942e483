// Which raw numbers read from a stored message name a value of the engine's enums. A number is
// checked before it is used as an enum; every Known below is an exhaustive switch (no
// default), so a new enum value fails to build (-Werror=switch) until the decoders accept it.
// A raw number outside an enum is well defined for an enum with a fixed underlying type and
// simply matches no case. Pure functions.
#pragma once

#include "engine/ir/operation_ir.h"
#include "engine/ir/tensor_ir.h"
#include "engine/stream/plan.h"
#include "engine/trace/fuse_trace.h"

namespace ember {

bool Known(TensorStatus status);
bool Known(ScalarIr::Kind kind);
bool Known(Distribution::Kind kind);
bool Known(ExecutionTrigger::Kind kind);
bool Known(FuseOpKind kind);
bool Known(FuseArgKind kind);
bool Known(FuseView::Kind kind);
bool Known(ReduceStage::Kind kind);

}  // namespace ember

// The plan_execute fuzz target's (plan_execute_fuzz.cpp) bounds on a plan it materializes, and
// its choice of dims: relative shape id 0 is dim 1, id s >= 1 is dim s + 1 (distinct, never 1).
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/ir/tensor_ir.h"

namespace ember::fuzz::plan_execute {

inline constexpr const char* kTarget = "plan_execute";
inline constexpr size_t kMaxOps = 128;
inline constexpr int64_t kMaxShapeId = 7;  // dims 1..8
inline constexpr int64_t kMaxElements = 4096;
inline constexpr TensorId kFirstId = 1000;

inline int64_t DimOf(int64_t shape_id) { return shape_id == 0 ? 1 : shape_id + 1; }

}  // namespace ember::fuzz::plan_execute

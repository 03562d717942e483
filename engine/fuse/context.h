// Context: what an optimization needs to run its relative ops against the real queue (burn's
// Context): the global tensor of each relative id, the real value of each scalar and range
// placeholder, the real size of each relative shape id, and the device's handles. The maps
// come from the queue's OperationConverter and cover the whole queue (Note [Relative form]).
//
// Valid for one strategy execution; built by OperationQueue, used under the server's lock.
#pragma once

#include <span>

#include <ember/slice.h>

#include "engine/ir/scalar_ir.h"
#include "engine/ir/tensor_ir.h"
#include "engine/runtime/handle_container.h"

namespace ember {

struct Context {
  std::span<const TensorIr> tensors;  // relative id -> global TensorIr
  std::span<const int64_t> shapes;    // relative shape id -> dim size
  std::span<const ScalarIr> scalars;  // placeholder index -> real scalar
  std::span<const Slice> ranges;      // placeholder index -> real slice
  HandleContainer* handles = nullptr;
};

}  // namespace ember

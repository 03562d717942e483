// Internal helpers shared by the files that define the Tensor ops (tensor_math.cpp,
// tensor_shape.cpp, tensor_reduce.cpp).
#pragma once

#include <utility>

#include "engine/api/checks.h"
#include "engine/api/tensor_node.h"
#include "engine/ir/builders.h"

// Defines both forms of a Tensor method from one implementation that takes the tensor by value:
// the lvalue form passes a copy (the input stays alive: ReadOnly), the rvalue form moves it (it
// may be the last reference: ReadWrite).
#define EMBER_DEFINE_METHOD(Name, Impl, PARAMS, ...)                                           \
  Tensor Tensor::Name PARAMS const& { return Impl(Tensor(*this) __VA_OPT__(, ) __VA_ARGS__); } \
  Tensor Tensor::Name PARAMS&& { return Impl(std::move(*this) __VA_OPT__(, ) __VA_ARGS__); }

namespace ember::detail {

// Queues `op` on the calling thread's stream of `server`.
inline void Queue(const std::shared_ptr<DeviceServer>& server, OperationIr op) {
  server->Register(CurrentStreamId(), std::move(op));
}

}  // namespace ember::detail

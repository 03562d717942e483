// The tensors and scalars of ops built by hand, the one copy every suite uses (the ops
// themselves come from engine/ir/builders.h). T is a tensor as an op names it; Ro, Rw and Out
// are its three uses: read and kept alive (ReadOnly), read for the last time (ReadWrite), and
// an op's output, which has no handle yet (NotInit). A shape left out is [1, 1]: a 2-d tensor
// whose dimensions are one relative dimension id (Note [Relative form]), as the fusers see ops.
#pragma once

#include <cstdint>
#include <utility>

#include "engine/ir/operation_ir.h"

namespace ember::test {

inline TensorIr T(TensorId id, Shape shape, TensorStatus status = TensorStatus::kReadOnly,
                  DType dtype = DType::kF32) {
  return TensorIr{.id = id, .shape = std::move(shape), .status = status, .dtype = dtype};
}
inline TensorIr Ro(TensorId id, Shape shape = {1, 1}, DType dtype = DType::kF32) {
  return T(id, std::move(shape), TensorStatus::kReadOnly, dtype);
}
inline TensorIr Rw(TensorId id, Shape shape = {1, 1}, DType dtype = DType::kF32) {
  return T(id, std::move(shape), TensorStatus::kReadWrite, dtype);
}
inline TensorIr Out(TensorId id, Shape shape = {1, 1}, DType dtype = DType::kF32) {
  return T(id, std::move(shape), TensorStatus::kNotInit, dtype);
}

// A scalar of a global op, and the placeholder a relative op has in its place (the segment's
// `k`th scalar, Note [Relative form]).
inline ScalarIr F(double value) { return ScalarIr::Float(value); }
inline ScalarIr P(uint64_t k) { return ScalarIr::UInt(k); }

}  // namespace ember::test

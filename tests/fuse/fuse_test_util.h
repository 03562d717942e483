// Relative ops for the fuser tests, written the way the queue would hand them over: tensors
// are (relative id, relative shape ids, status), scalars are placeholders.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/fuse/fuser.h"
#include "engine/ir/builders.h"

namespace ember::fuse_test {

inline TensorIr T(TensorId id, Shape shape, TensorStatus status, DType dtype = DType::kF32) {
  return TensorIr{id, std::move(shape), status, dtype};
}
// An op's output (NotInit), a read that leaves the tensor alive, a last use.
inline TensorIr Out(TensorId id, Shape shape = {1, 1}, DType dtype = DType::kF32) {
  return T(id, std::move(shape), TensorStatus::kNotInit, dtype);
}
inline TensorIr Ro(TensorId id, Shape shape = {1, 1}, DType dtype = DType::kF32) {
  return T(id, std::move(shape), TensorStatus::kReadOnly, dtype);
}
inline TensorIr Rw(TensorId id, Shape shape = {1, 1}, DType dtype = DType::kF32) {
  return T(id, std::move(shape), TensorStatus::kReadWrite, dtype);
}
inline ScalarIr P(uint64_t k) { return ScalarIr::UInt(k); }

// Feeds `ops` in order; returns how many were taken before the fuser closed.
inline size_t FeedAll(OperationFuser& fuser, const std::vector<OperationIr>& ops) {
  for (const OperationIr& op : ops) fuser.Fuse(op);
  return fuser.len();
}

}  // namespace ember::fuse_test

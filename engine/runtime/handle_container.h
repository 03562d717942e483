// HandleContainer: tensor id -> handle, for one device (burn's HandleContainer).
//
// Get(tensor) follows burn: reading a tensor whose status is ReadWrite (its last use) removes
// the handle, so the op that reads it may reuse the buffer; ReadOnly leaves it. Owned by the
// device server; every call happens under the server's lock.
#pragma once

#include <optional>

#include "engine/core/flat_map.h"
#include "engine/ir/tensor_ir.h"
#include "engine/runtime/handle.h"

namespace ember {

class HandleContainer {
 public:
  void Register(TensorId id, TensorHandle handle);
  bool Has(TensorId id) const { return handles_.count(id) != 0; }
  // REQUIRES: Has(tensor.id). Removes the handle when tensor.status is ReadWrite.
  TensorHandle Get(const TensorIr& tensor);
  // The handle without changing the container; nullptr when absent. Valid until the next
  // Register, Get, Free or Remove (a FlatMap moves entries on insert and erase).
  const TensorHandle* Peek(TensorId id) const;
  // Removes the handle if tensor.status is ReadWrite (burn's free: only last uses free).
  void Free(const TensorIr& tensor);
  // Removes unconditionally.
  void Remove(TensorId id) { handles_.erase(id); }
  size_t size() const { return handles_.size(); }

 private:
  FlatMap<TensorId, TensorHandle> handles_;
};

}  // namespace ember

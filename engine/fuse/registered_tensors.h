// RegisteredTensors: an ordered set of relative tensors keyed by id, whose entries keep the
// *latest* TensorIr seen for that id (burn's RegisteredTensors): the status of a tensor's last
// use inside a trace decides whether the kernel writes it (Note [Fused trace]). Small; linear
// search beats a map at the sizes traces have (tens of tensors).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/ir/tensor_ir.h"

namespace ember {

class RegisteredTensors {
 public:
  // The position of `tensor.id`, inserting it at the end if new (an existing entry is kept).
  uint32_t Insert(const TensorIr& tensor);
  // Replaces the entry with `tensor.id`, if any, by `tensor` (a later use: newer status).
  void Update(const TensorIr& tensor);
  std::optional<uint32_t> IndexOf(TensorId id) const;
  const TensorIr* Get(TensorId id) const;
  bool Contains(TensorId id) const { return IndexOf(id).has_value(); }

  const std::vector<TensorIr>& tensors() const { return tensors_; }
  size_t size() const { return tensors_.size(); }

 private:
  std::vector<TensorIr> tensors_;
};

}  // namespace ember

#include "engine/fuse/registered_tensors.h"

namespace ember {

uint32_t RegisteredTensors::Insert(const TensorIr& tensor) {
  if (auto index = IndexOf(tensor.id)) return *index;
  tensors_.push_back(tensor);
  return static_cast<uint32_t>(tensors_.size() - 1);
}

void RegisteredTensors::Update(const TensorIr& tensor) {
  if (auto index = IndexOf(tensor.id)) tensors_[*index] = tensor;
}

std::optional<uint32_t> RegisteredTensors::IndexOf(TensorId id) const {
  for (size_t i = 0; i < tensors_.size(); ++i) {
    if (tensors_[i].id == id) return static_cast<uint32_t>(i);
  }
  return std::nullopt;
}

const TensorIr* RegisteredTensors::Get(TensorId id) const {
  auto index = IndexOf(id);
  return index ? &tensors_[*index] : nullptr;
}

}  // namespace ember

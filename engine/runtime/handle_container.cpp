#include "engine/runtime/handle_container.h"

#include "engine/core/check.h"

namespace ember {

void HandleContainer::Register(TensorId id, TensorHandle handle) {
  handles_.insert_or_assign(id, std::move(handle));
}

TensorHandle HandleContainer::Get(const TensorIr& tensor) {
  auto it = handles_.find(tensor.id);
  EMBER_CHECK(it != handles_.end(), "no handle for tensor t{}", tensor.id);
  if (tensor.status == TensorStatus::kReadWrite) {
    TensorHandle h = std::move(it.value());
    handles_.erase(it);
    return h;
  }
  return it->second;
}

const TensorHandle* HandleContainer::Peek(TensorId id) const {
  auto it = handles_.find(id);
  return it == handles_.end() ? nullptr : &it->second;
}

void HandleContainer::Free(const TensorIr& tensor) {
  if (tensor.status == TensorStatus::kReadWrite) handles_.erase(tensor.id);
}

}  // namespace ember

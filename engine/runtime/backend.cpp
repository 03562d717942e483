#include "engine/runtime/backend.h"

#include <fmt/format.h>

#include <ember/error.h>

namespace ember {

std::vector<TensorHandle> TakeInputs(const OperationIr& op, HandleContainer& handles) {
  std::vector<TensorHandle> in;
  if (op.kind == OpKind::kDrop) return in;
  in.reserve(op.inputs.size());
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    TensorIr t = op.inputs[i];
    for (size_t j = i + 1; j < op.inputs.size(); ++j) {
      if (op.inputs[j].id == t.id) t.status = TensorStatus::kReadOnly;
    }
    in.push_back(handles.Get(t));
  }
  return in;
}

std::vector<TensorHandle> Backend::ExecuteFused(const FusedLaunch& /*launch*/) {
  throw Error(fmt::format("the {} backend has no fused kernels", name()));
}

std::shared_ptr<Buffer> Backend::Borrow(void* /*data*/, size_t /*bytes*/,
                                        std::shared_ptr<const void> /*owner*/) {
  throw Error(fmt::format("the {} backend cannot read memory it does not own", name()));
}

}  // namespace ember

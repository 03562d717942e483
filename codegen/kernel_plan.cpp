#include "codegen/kernel_plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <ember/error.h>

namespace ember::codegen {

int64_t Positions(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<int64_t> StridesOver(const BoundTensor& tensor, const Shape& ref) {
  const Shape& shape = tensor.shape;
  if (shape.size() > ref.size()) {
    throw Error(fmt::format("a tensor of shape {} does not broadcast to {}", shape, ref));
  }
  std::vector<int64_t> strides(ref.size(), 0);
  const size_t lead = ref.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == ref[lead + d] && shape[d] != 1) {
      strides[lead + d] = tensor.strides[d];
    } else if (shape[d] != 1) {
      throw Error(fmt::format("a tensor of shape {} does not broadcast to {}", shape, ref));
    }
  }
  return strides;
}

}  // namespace ember::codegen

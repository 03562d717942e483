// TensorHandle: a strided view of elements in a Buffer. The shape is the tensor's real shape;
// `strides` and `offset` are counted in elements (not bytes). A stride of 0 broadcasts.
#pragma once

#include <memory>
#include <vector>

#include "engine/ir/tensor_ir.h"
#include "engine/runtime/buffer.h"

namespace ember {

struct TensorHandle {
  std::shared_ptr<Buffer> buffer;
  Shape shape;
  Shape strides;  // inline like the shape: every op's output handle has strides
  int64_t offset = 0;
  DType dtype = DType::kF32;

  // Row-major strides for `shape`.
  static Shape ContiguousStrides(const Shape& shape);
  // True when the elements are laid out row-major without gaps (dims of size 1 ignored).
  bool IsContiguous() const;
  int64_t NumElements() const { return ember::NumElements(shape); }
};

}  // namespace ember

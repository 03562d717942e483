#include "engine/ir/builders.h"

#include <utility>

namespace ember::ir {
namespace {

OperationIr Make(OpKind kind, std::vector<TensorIr> inputs, TensorIr out) {
  OperationIr op;
  op.kind = kind;
  op.dtype = inputs.empty() ? out.dtype : inputs.front().dtype;
  op.inputs = std::move(inputs);
  op.outputs = {std::move(out)};
  return op;
}

OperationIr Checked(OperationIr op) {
  ValidateOperation(op);
  return op;
}

}  // namespace

OperationIr Init(TensorIr out) { return Checked(Make(OpKind::kInit, {}, std::move(out))); }

OperationIr Drop(TensorIr tensor) {
  OperationIr op;
  op.kind = OpKind::kDrop;
  op.dtype = tensor.dtype;
  op.inputs = {std::move(tensor)};
  return Checked(std::move(op));
}

OperationIr Random(TensorIr out, Distribution distribution) {
  OperationIr op = Make(OpKind::kRandom, {}, std::move(out));
  op.distribution = distribution;
  return Checked(std::move(op));
}

OperationIr Creation(OpKind kind, TensorIr out) { return Checked(Make(kind, {}, std::move(out))); }

OperationIr Full(TensorIr out, ScalarIr value) {
  OperationIr op = Make(OpKind::kFull, {}, std::move(out));
  op.scalars = {value};
  return Checked(std::move(op));
}

OperationIr Unary(OpKind kind, TensorIr input, TensorIr out) {
  return Checked(Make(kind, {std::move(input)}, std::move(out)));
}

OperationIr Binary(OpKind kind, TensorIr lhs, TensorIr rhs, TensorIr out) {
  return Checked(Make(kind, {std::move(lhs), std::move(rhs)}, std::move(out)));
}

OperationIr Scalar(OpKind kind, TensorIr lhs, ScalarIr rhs, TensorIr out) {
  OperationIr op = Make(kind, {std::move(lhs)}, std::move(out));
  op.scalars = {rhs};
  return Checked(std::move(op));
}

OperationIr Clamp(TensorIr input, ScalarIr min, ScalarIr max, TensorIr out) {
  OperationIr op = Make(OpKind::kClamp, {std::move(input)}, std::move(out));
  op.scalars = {min, max};
  return Checked(std::move(op));
}

OperationIr MaskWhere(TensorIr tensor, TensorIr mask, TensorIr value, TensorIr out) {
  return Checked(Make(OpKind::kMaskWhere, {std::move(tensor), std::move(mask), std::move(value)},
                      std::move(out)));
}

OperationIr MaskFill(TensorIr tensor, TensorIr mask, ScalarIr value, TensorIr out) {
  OperationIr op = Make(OpKind::kMaskFill, {std::move(tensor), std::move(mask)}, std::move(out));
  op.scalars = {value};
  return Checked(std::move(op));
}

OperationIr SwapDims(TensorIr input, int64_t dim1, int64_t dim2, TensorIr out) {
  OperationIr op = Make(OpKind::kSwapDims, {std::move(input)}, std::move(out));
  op.dims = {dim1, dim2};
  return Checked(std::move(op));
}

OperationIr Permute(TensorIr input, std::vector<int64_t> axes, TensorIr out) {
  OperationIr op = Make(OpKind::kPermute, {std::move(input)}, std::move(out));
  op.dims = std::move(axes);
  return Checked(std::move(op));
}

OperationIr SliceOp(TensorIr input, std::vector<Slice> ranges, TensorIr out) {
  OperationIr op = Make(OpKind::kSlice, {std::move(input)}, std::move(out));
  op.ranges = std::move(ranges);
  return Checked(std::move(op));
}

OperationIr Cat(std::vector<TensorIr> tensors, int64_t dim, TensorIr out) {
  OperationIr op = Make(OpKind::kCat, std::move(tensors), std::move(out));
  op.dims = {dim};
  return Checked(std::move(op));
}

OperationIr Indexed(OpKind kind, TensorIr tensor, int64_t dim, TensorIr indices, TensorIr out) {
  OperationIr op = Make(kind, {std::move(tensor), std::move(indices)}, std::move(out));
  op.dims = {dim};
  return Checked(std::move(op));
}

OperationIr ReduceDim(OpKind kind, TensorIr input, int64_t axis, TensorIr out) {
  OperationIr op = Make(kind, {std::move(input)}, std::move(out));
  op.dims = {axis};
  return Checked(std::move(op));
}

OperationIr Reduce(OpKind kind, TensorIr input, TensorIr out) {
  return Checked(Make(kind, {std::move(input)}, std::move(out)));
}

}  // namespace ember::ir

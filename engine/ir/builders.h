// Constructors for every op layout (Note [Op layouts], engine/ir/operation_ir.h). They set the
// family dtype from the first input (or the output) and validate the layout, so a hand-built op
// cannot silently miss a field.
#pragma once

#include <span>
#include <vector>

#include "engine/ir/operation_ir.h"

namespace ember::ir {

OperationIr Init(TensorIr out);
OperationIr Drop(TensorIr tensor);
OperationIr Random(TensorIr out, Distribution distribution);
// kind: Zeros or Ones.
OperationIr Creation(OpKind kind, TensorIr out);
OperationIr Full(TensorIr out, ScalarIr value);
// Abs, Neg, the float math ops (Exp, Log, ...), Cast, Reshape, Expand.
OperationIr Unary(OpKind kind, TensorIr input, TensorIr out);
// Add Sub Mul Div Rem Powf Equal Lower Greater LowerEqual GreaterEqual Matmul.
OperationIr Binary(OpKind kind, TensorIr lhs, TensorIr rhs, TensorIr out);
// *Scalar and *Elem forms.
OperationIr Scalar(OpKind kind, TensorIr lhs, ScalarIr rhs, TensorIr out);
OperationIr Clamp(TensorIr input, ScalarIr min, ScalarIr max, TensorIr out);
OperationIr MaskWhere(TensorIr tensor, TensorIr mask, TensorIr value, TensorIr out);
OperationIr MaskFill(TensorIr tensor, TensorIr mask, ScalarIr value, TensorIr out);
OperationIr SwapDims(TensorIr input, int64_t dim1, int64_t dim2, TensorIr out);
OperationIr Permute(TensorIr input, std::vector<int64_t> axes, TensorIr out);
OperationIr SliceOp(TensorIr input, std::vector<Slice> ranges, TensorIr out);
OperationIr Cat(std::vector<TensorIr> tensors, int64_t dim, TensorIr out);
// kind: Gather or Select.
OperationIr Indexed(OpKind kind, TensorIr tensor, int64_t dim, TensorIr indices, TensorIr out);
// SumDim MeanDim ProdDim MaxDim MinDim ArgMax ArgMin.
OperationIr ReduceDim(OpKind kind, TensorIr input, int64_t axis, TensorIr out);
// Sum or Mean over all elements.
OperationIr Reduce(OpKind kind, TensorIr input, TensorIr out);

}  // namespace ember::ir

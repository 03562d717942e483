// OperationIr: one op as queued on a stream (burn's OperationIr), plain data.
//
// ember stores every op kind in one struct, ggml-style, instead of one descriptor type per
// variant: a kind, the family dtype, tensors, scalars, slice ranges, integer attributes and a
// random distribution. Which fields an op uses is fixed per kind (see engine/ir/builders.h,
// the only place ops are constructed, and ValidateOperation) and documented in
// Note [Op layouts] below.
//
// Note [Op layouts]
// `inputs` lists tensors in burn's inputs() order, which is also the order in which the
// relative converter visits them (burn visits inputs, then outputs, for every op in ember's
// set). `outputs` is burn's outputs(). Drop has one input (status ReadWrite) and no output;
// Init, Random, Zeros, Ones and Full have no input and one output.
//   unary (Abs, Neg, the float math ops Exp, Log, ... and Cast): inputs {x}
//   binary (Add Sub Mul Div Rem Powf Equal Lower Greater LowerEqual GreaterEqual Matmul):
//       inputs {lhs, rhs}
//   scalar (*Scalar, *Elem): inputs {lhs}, scalars {rhs}
//   Full: scalars {value}; Clamp: inputs {x}, scalars {min, max}
//   MaskWhere: inputs {tensor, mask, value}; MaskFill: inputs {tensor, mask}, scalars {value}
//   Reshape, Expand: inputs {x}, the target shape is the output's shape
//   SwapDims: dims {dim1, dim2}; Permute: dims = axes; Cat: inputs = tensors, dims {dim}
//   Slice: inputs {x}, ranges = one Slice per sliced dim (leading dims)
//   Gather, Select: inputs {tensor, indices}, dims {dim}
//   *Dim reductions, ArgMax, ArgMin: dims {axis}; Sum, Mean: no attribute
//   Random: distribution
// `dtype` is the family dtype (Note [Op families]): the dtype of the first input, or of the
// output for ops without inputs. It is burn's DType payload and part of the op's identity.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <vector>

#include <ember/slice.h>

#include "engine/core/status.h"
#include "engine/ir/op_kind.h"
#include "engine/ir/scalar_ir.h"
#include "engine/ir/tensor_ir.h"

namespace ember {

// The distribution of a Random op. Copied verbatim into the relative form (burn does not
// relativize it); parameters compare bit-wise.
struct Distribution {
  enum class Kind : uint8_t { kUniform = 0, kNormal = 1 };  // stored numbers
  Kind kind = Kind::kUniform;
  double a = 0.0;  // uniform: low;  normal: mean
  double b = 1.0;  // uniform: high; normal: standard deviation

  bool operator==(const Distribution& o) const {
    return kind == o.kind && std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(o.a) &&
           std::bit_cast<uint64_t>(b) == std::bit_cast<uint64_t>(o.b);
  }
};

struct OperationIr {
  OpKind kind = OpKind::kInit;
  DType dtype = DType::kF32;
  std::vector<TensorIr> inputs;
  std::vector<TensorIr> outputs;
  std::vector<ScalarIr> scalars;
  std::vector<Slice> ranges;
  std::vector<int64_t> dims;
  Distribution distribution;

  // Equality is exact and bit-wise on floats (ScalarIr, Distribution).
  bool operator==(const OperationIr&) const = default;

  // Inputs followed by outputs (burn's nodes()).
  std::vector<TensorIr> Nodes() const;
  // True when any node has global/relative id `id`.
  bool References(TensorId id) const;
};

// "NumericFloat::Add" for this op.
std::string OpName(const OperationIr& op);

// CHECKs that `op` has the layout its kind requires (Note [Op layouts]). For builders; user
// input is validated earlier, at the API, with ember::Error.
void ValidateOperation(const OperationIr& op);

// The same check without aborting, for ops read from outside the process (the plan codec): a
// kind or family dtype outside the known numbers, or a layout its kind does not have, gives
// Status::Corruption naming the problem.
Status CheckOperationLayout(const OperationIr& op);

}  // namespace ember

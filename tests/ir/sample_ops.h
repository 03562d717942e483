// Test helpers for the IR suites: one well-formed sample op per OpKind, built through
// engine/ir/builders.h and tests/common/ir_builders.h, and two sample programs. SampleOp builds the
// generic groups' ops from op_list.def by themselves and is an exhaustive switch over the
// special ones, so a special op kind fails to build this suite until it has a sample (and
// thereby relative, canonical and format coverage).
#pragma once

#include <utility>
#include <vector>

#include "engine/ir/builders.h"
#include "engine/ir/op_group.h"
#include "engine/ir/operation_ir.h"
#include "engine/trace/fuse_trace.h"
#include "tests/common/ir_builders.h"

namespace ember::ir_test {

using test::Out;
using test::Rw;
using test::T;

inline std::vector<OpKind> AllOpKinds() {
  std::vector<OpKind> kinds;
  for (int i = 0; i < kNumOpKinds; ++i) kinds.push_back(static_cast<OpKind>(i));
  return kinds;
}

// The seed program `(a * b + c * s).exp()` as the API queues it (the 630-point example of
// docs/FUSERS.md): a, b, c are named tensors that outlive the expression (ReadOnly), each temporary
// is read once (its last use, ReadWrite). Global ids base+1 .. base+7 as in the seed's log (t1..t7
// for base 0).
inline std::vector<OperationIr> SeedProgram(TensorId base, Shape shape, double s) {
  const auto ro = [&](TensorId id) { return T(base + id, shape); };
  const auto rw = [&](TensorId id) { return T(base + id, shape, TensorStatus::kReadWrite); };
  const auto out = [&](TensorId id) { return Out(base + id, shape); };
  return {
      ir::Binary(OpKind::kMul, ro(1), ro(2), out(4)),
      ir::Scalar(OpKind::kMulScalar, ro(3), ScalarIr::Float(s), out(5)),
      ir::Binary(OpKind::kAdd, rw(4), rw(5), out(6)),
      ir::Unary(OpKind::kExp, rw(6), out(7)),
  };
}

// A softmax over the rows of a [4, 8] tensor, scaled first: x * 0.7, max, subtract, exp, sum,
// divide, as the API queues it (the scaled x and the exp are each read twice). ReduceBroadcasted
// fuses all six ops. Global ids 1 (the input, kept by the user) .. 7 (the result).
inline std::vector<OperationIr> SoftmaxProgram() {
  const Shape r = {4, 8}, p = {4, 1};
  return {
      ir::Scalar(OpKind::kMulScalar, T(1, r), ScalarIr::Float(0.7), Out(2, r)),
      ir::ReduceDim(OpKind::kMaxDim, T(2, r), 1, Out(3, p)),
      ir::Binary(OpKind::kSub, Rw(2, r), Rw(3, p), Out(4, r)),
      ir::Unary(OpKind::kExp, Rw(4, r), Out(5, r)),
      ir::ReduceDim(OpKind::kSumDim, T(5, r), 1, Out(6, p)),
      ir::Binary(OpKind::kDiv, Rw(5, r), Rw(6, p), Out(7, r)),
  };
}

// Global ids start at 100 so that relative ids (0, 1, ...) can never coincide with them.
inline OperationIr SampleOp(OpKind kind) {
  const TensorIr x = T(100, {4, 8});
  const TensorIr y = T(101, {4, 8});
  const TensorIr out = Out(102, {4, 8});
  // The generic groups (op_list.def, Group column) by their fused op's form: a new unary,
  // binary or scalar op gets its sample here by itself.
  const bool comparison =
      HasFusedKind(kind) && FormOf(FusedKindOf(kind)) == FuseOpForm::kComparison;
  const TensorIr result = comparison ? Out(102, {4, 8}, DType::kBool) : out;
  switch (GroupOf(kind)) {
    case OpGroup::kUnary: return ir::Unary(kind, x, result);
    case OpGroup::kBinary: return ir::Binary(kind, x, y, result);
    case OpGroup::kScalar:
      return ir::Scalar(kind, x, ScalarIr::Float(comparison ? 0.5 : 2.0), result);
    case OpGroup::kSpecial: break;
  }
  switch (*SpecialOf(kind)) {
    case SpecialOp::kInit: return ir::Init(Out(100, {4, 8}));
    case SpecialOp::kDrop: return ir::Drop(T(100, {4, 8}, TensorStatus::kReadWrite));
    case SpecialOp::kRandom:
      return ir::Random(out, Distribution{.kind = Distribution::Kind::kNormal, .a = 0.5, .b = 2.0});
    case SpecialOp::kZeros:
    case SpecialOp::kOnes: return ir::Creation(kind, out);
    case SpecialOp::kFull: return ir::Full(out, ScalarIr::Float(3.5));
    case SpecialOp::kMatmul: return ir::Binary(kind, x, T(101, {8, 16}), Out(102, {4, 16}));
    case SpecialOp::kCast: return ir::Unary(kind, x, Out(102, {4, 8}, DType::kF16));
    case SpecialOp::kReshape: return ir::Unary(kind, x, Out(102, {32}));
    case SpecialOp::kExpand: return ir::Unary(kind, T(100, {1, 8}), Out(102, {4, 8}));
    case SpecialOp::kClamp: return ir::Clamp(x, ScalarIr::Float(-1.0), ScalarIr::Float(1.0), out);
    case SpecialOp::kMaskWhere:
      return ir::MaskWhere(x, T(101, {4, 8}, TensorStatus::kReadOnly, DType::kBool), T(103, {4, 8}),
                           out);
    case SpecialOp::kMaskFill:
      return ir::MaskFill(x, T(101, {4, 8}, TensorStatus::kReadOnly, DType::kBool),
                          ScalarIr::Float(0.0), out);
    case SpecialOp::kSwapDims: return ir::SwapDims(x, 0, 1, Out(102, {8, 4}));
    case SpecialOp::kPermute: return ir::Permute(x, {1, 0}, Out(102, {8, 4}));
    case SpecialOp::kSlice:
      return ir::SliceOp(x, {Slice{1, 3, 1}, Slice{0, std::nullopt, 1}}, Out(102, {2, 8}));
    case SpecialOp::kCat: return ir::Cat({x, y}, 0, Out(102, {8, 8}));
    case SpecialOp::kGather:
    case SpecialOp::kSelect:
      return ir::Indexed(kind, x, 1, T(101, {4, 2}, TensorStatus::kReadOnly, DType::kI64),
                         Out(102, {4, 2}));
    case SpecialOp::kSumDim:
    case SpecialOp::kMeanDim:
    case SpecialOp::kProdDim:
    case SpecialOp::kMaxDim:
    case SpecialOp::kMinDim: return ir::ReduceDim(kind, x, 1, Out(102, {4, 1}));
    case SpecialOp::kArgMax:
    case SpecialOp::kArgMin: return ir::ReduceDim(kind, x, 1, Out(102, {4, 1}, DType::kI64));
    case SpecialOp::kSum:
    case SpecialOp::kMean: return ir::Reduce(kind, x, Out(102, {1}));
  }
  return {};
}

}  // namespace ember::ir_test

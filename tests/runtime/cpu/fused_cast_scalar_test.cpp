// Fused casts (Assign between dtypes), scalars and literals on the CPU backend, compared byte
// for byte with Cast, the *Scalar ops, Zeros, Ones and Full run unfused.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/runtime/fused_test_util.h"

namespace ember::testing {
namespace {

const Shape kShape = {5, 411};
const int64_t kCount = 5 * 411;

// Every cast of a chain stores and reloads exactly as Cast does: saturation into i32, wrap
// from i64 to i32, NaN to int 0 and to bool true, rounding into f16 and bf16.
TEST(FusedCast, CastChainsMatchUnfusedCasts) {
  const std::vector<DType> chain = {DType::kF32, DType::kI32,  DType::kF16, DType::kBool,
                                    DType::kI64, DType::kBF16, DType::kF32, DType::kI64,
                                    DType::kI32, DType::kF16,  DType::kI64, DType::kBool};
  Harness h(2);
  std::vector<double> data = AwkwardData(kCount, -5e9, 5e9, 1);
  for (int64_t i = 0; i < kCount; i += 5) data[i] = data[i] * 1e-9;  // fractions too
  const TensorIr x = h.Input(kShape, DType::kF32, data);
  FuseBlock block;
  block.reads.push_back(Assign(Local(0, chain[0]), InArg(0, chain[0])));
  TensorIr unfused = x;
  for (uint32_t k = 1; k < chain.size(); ++k) {
    block.ops.push_back(Assign(Local(k, chain[k]), Local(k - 1, chain[k - 1])));
    unfused = h.Exec(ir::Unary(OpKind::kCast, unfused, h.Output(kShape, chain[k])));
    // Every step is also an output, so each intermediate is checked.
    block.writes.push_back(Assign(OutArg(k - 1, chain[k]), Local(k, chain[k])));
  }
  FuseTrace trace;
  trace.blocks.push_back(block);
  trace.resources = Resources(1, chain.size() - 1);
  std::vector<TensorIr> outputs;
  for (size_t k = 1; k < chain.size(); ++k) outputs.push_back(OutIr(kShape, chain[k]));
  const auto fused = RunFused(h, trace, {x}, outputs, {kShape});
  ExpectSameBytes(h.backend(), fused.back(), h.Handle(unfused), "end of chain");
  // Replay the chain unfused step by step to compare every intermediate.
  TensorIr step = x;
  for (size_t k = 1; k < chain.size(); ++k) {
    step = h.Exec(ir::Unary(OpKind::kCast, step, h.Output(kShape, chain[k])));
    ExpectSameBytes(h.backend(), fused[k - 1], h.Handle(step), DTypeName(chain[k]).data());
  }
}

// x op s for a scalar s read in the scalar's dtype, as MapTiles reads a scalar operand.
TEST(FusedScalar, ScalarOperandsMatchTheScalarOps) {
  struct Case {
    FuseOpKind fused;
    OpKind unfused;
    DType dtype;
    ScalarIr value;
  };
  const Case cases[] = {
      {FuseOpKind::kAdd, OpKind::kAddScalar, DType::kF16, ScalarIr::Float(0.1)},
      {FuseOpKind::kMul, OpKind::kMulScalar, DType::kBF16, ScalarIr::Float(1.0 / 3)},
      {FuseOpKind::kSub, OpKind::kSubScalar, DType::kF32, ScalarIr::Float(1e-3)},
      {FuseOpKind::kDiv, OpKind::kDivScalar, DType::kI32, ScalarIr::Int(3)},
      {FuseOpKind::kRem, OpKind::kRemScalar, DType::kI64, ScalarIr::Int(-3)},
      {FuseOpKind::kRem, OpKind::kRemScalar, DType::kF32, ScalarIr::Float(-0.75)},
      {FuseOpKind::kPowf, OpKind::kPowfScalar, DType::kF32, ScalarIr::Float(2.5)},
      {FuseOpKind::kMul, OpKind::kMulScalar, DType::kI32, ScalarIr::Float(3e9)},  // beyond i32
      {FuseOpKind::kLower, OpKind::kLowerElem, DType::kF16, ScalarIr::Float(0.3)},
      {FuseOpKind::kEqual, OpKind::kEqualElem, DType::kI32, ScalarIr::Int(2)},
      {FuseOpKind::kGreaterEqual, OpKind::kGreaterEqualElem, DType::kBF16, ScalarIr::Int(1)},
  };
  for (const Case& c : cases) {
    Harness h(1);
    const bool is_int = !IsFloat(c.dtype);
    const TensorIr x = h.Input(kShape, c.dtype, AwkwardData(kCount, -9, 9, 2, !is_int));
    const bool compare = c.fused == FuseOpKind::kLower || c.fused == FuseOpKind::kEqual ||
                         c.fused == FuseOpKind::kGreaterEqual;
    const DType out = compare ? DType::kBool : c.dtype;
    const TensorIr unfused = h.Exec(ir::Scalar(c.unfused, x, c.value, h.Output(kShape, out)));
    FuseTrace trace;
    trace.blocks.push_back(
        {.reads = {Assign(Local(0, c.dtype), InArg(0, c.dtype))},
         .ops = {Op(c.fused, Local(1, out), Local(0, c.dtype), ScalarArg(0, c.dtype))},
         .writes = {Assign(OutArg(0, out), Local(1, out))}});
    trace.resources = Resources(1, 1, {c.dtype});
    const auto fused = RunFused(h, trace, {x}, {OutIr(kShape, out)}, {kShape}, {c.value});
    const std::string what =
        std::string(FuseOpKindName(c.fused)) + " " + std::string(DTypeName(c.dtype));
    ExpectSameBytes(h.backend(), fused[0], h.Handle(unfused), what.c_str());
  }
}

// MaskFill: ConditionalAssign(mask, scalar, tensor).
TEST(FusedScalar, MaskFillWithAScalarValue) {
  for (DType dtype : {DType::kF16, DType::kI32}) {
    Harness h(1);
    const TensorIr x = h.Input(kShape, dtype, AwkwardData(kCount, -9, 9, 3, false));
    const TensorIr mask = h.Input(kShape, DType::kBool, TestData(kCount, -1, 1, 4));
    const ScalarIr value = ScalarIr::Float(7.3);
    const TensorIr unfused = h.Exec(ir::MaskFill(x, mask, value, h.Output(kShape, dtype)));
    FuseTrace trace;
    trace.blocks.push_back(
        {.reads = {Assign(Local(0, dtype), InArg(0, dtype)),
                   Assign(Local(1, DType::kBool), InArg(1, DType::kBool))},
         .ops = {Op(FuseOpKind::kConditionalAssign, Local(2, dtype), Local(1, DType::kBool),
                    ScalarArg(0, dtype), Local(0, dtype))},
         .writes = {Assign(OutArg(0, dtype), Local(2, dtype))}});
    trace.resources = Resources(2, 1, {dtype});
    const auto fused = RunFused(h, trace, {x, mask}, {OutIr(kShape, dtype)}, {kShape}, {value});
    ExpectSameBytes(h.backend(), fused[0], h.Handle(unfused), DTypeName(dtype).data());
  }
}

// Zeros and Ones are literals; Full assigns a scalar and follows Fill's rule (a float into i32
// saturates at i32's range, into bool it is value != 0).
TEST(FusedScalar, LiteralsAndFullMatchTheCreationOps) {
  for (DType dtype :
       {DType::kF32, DType::kF16, DType::kBF16, DType::kI32, DType::kI64, DType::kBool}) {
    Harness h(1);
    for (const ScalarIr value : {ScalarIr::Float(3e9), ScalarIr::Float(0.5), ScalarIr::Float(-0.1),
                                 ScalarIr::Int(-70000)}) {
      const TensorIr full = h.Exec(ir::Full(h.Output(kShape, dtype), value));
      const TensorIr zeros = h.Exec(ir::Creation(OpKind::kZeros, h.Output(kShape, dtype)));
      const TensorIr ones = h.Exec(ir::Creation(OpKind::kOnes, h.Output(kShape, dtype)));
      FuseTrace trace;
      trace.blocks.push_back({.ops = {Assign(Local(0, dtype), ScalarArg(0, dtype)),
                                      Assign(Local(1, dtype), Literal(0, dtype)),
                                      Assign(Local(2, dtype), Literal(1, dtype))},
                              .writes = {Assign(OutArg(0, dtype), Local(0, dtype)),
                                         Assign(OutArg(1, dtype), Local(1, dtype)),
                                         Assign(OutArg(2, dtype), Local(2, dtype))}});
      trace.resources = Resources(0, 3, {dtype});
      const auto fused =
          RunFused(h, trace, {}, {OutIr(kShape, dtype), OutIr(kShape, dtype), OutIr(kShape, dtype)},
                   {kShape}, {value});
      ExpectSameBytes(h.backend(), fused[0], h.Handle(full), "full");
      ExpectSameBytes(h.backend(), fused[1], h.Handle(zeros), "zeros");
      ExpectSameBytes(h.backend(), fused[2], h.Handle(ones), "ones");
    }
  }
}

// A literal or scalar used as an operand: x * 2 - 1 with literal 1 and a scalar 2.
TEST(FusedScalar, LiteralOperandsInAChain) {
  Harness h(1);
  const TensorIr x = h.Input(kShape, DType::kF32, AwkwardData(kCount, -9, 9, 5));
  const TensorIr t =
      h.Exec(ir::Scalar(OpKind::kMulScalar, x, ScalarIr::Float(2), h.Output(kShape)));
  const TensorIr unfused =
      h.Exec(ir::Scalar(OpKind::kSubScalar, t, ScalarIr::Int(1), h.Output(kShape)));
  FuseTrace trace;
  trace.blocks.push_back({.reads = {Assign(Local(0), InArg(0))},
                          .ops = {Op(FuseOpKind::kMul, Local(1), Local(0), ScalarArg(0)),
                                  Op(FuseOpKind::kSub, Local(2), Local(1), Literal(1))},
                          .writes = {Assign(OutArg(0), Local(2))}});
  trace.resources = Resources(1, 1, {DType::kF32});
  const auto fused = RunFused(h, trace, {x}, {OutIr(kShape)}, {kShape}, {ScalarIr::Float(2)});
  ExpectSameBytes(h.backend(), fused[0], h.Handle(unfused));
}

}  // namespace
}  // namespace ember::testing

// The printers shared by logs, the trace table and ember-plans (engine/ir/format.h), including
// the cases of burn's trace.rs tests.
#include "engine/ir/format.h"

#include <gtest/gtest.h>

#include <limits>

#include "engine/ir/builders.h"
#include "engine/ir/relative.h"
#include "tests/ir/sample_ops.h"

namespace ember {
namespace {

using test::Out;
using test::T;

// --- burn's tests (crates/burn-fusion/src/stream/execution/trace.rs) ------------------------

TEST(Format, TensorIsCompact) { EXPECT_EQ(FormatTensor(T(42, {2, 3, 4})), "t42:f32[2,3,4]"); }

TEST(Format, TensorsAreCommaSeparated) {
  const std::vector<TensorIr> tensors = {T(1, {8}), T(2, {})};
  EXPECT_EQ(FormatTensors(tensors), "t1:f32[8], t2:f32[]");
}

TEST(Format, OpNameIncludesFamilyAndKind) {
  EXPECT_EQ(OpName(ir::Permute(T(1, {4, 2}), {1, 0}, Out(2, {2, 4}))), "BaseFloat::Permute");
  EXPECT_EQ(OpName(ir::Unary(OpKind::kExp, T(1, {4}), Out(2, {4}))), "Float::Exp");
}

// --- ember's own ----------------------------------------------------------------------------

TEST(Format, TensorShowsDType) {
  EXPECT_EQ(FormatTensor(T(3, {4}, TensorStatus::kReadOnly, DType::kBool)), "t3:bool[4]");
  EXPECT_EQ(FormatTensor(T(0, {}, TensorStatus::kReadOnly, DType::kBF16)), "t0:bf16[]");
  EXPECT_EQ(FormatTensors({}), "");
}

TEST(Format, Scalars) {
  EXPECT_EQ(FormatScalar(ScalarIr::Float(2.0)), "2.0");
  EXPECT_EQ(FormatScalar(ScalarIr::Float(-0.0)), "-0.0");
  EXPECT_EQ(FormatScalar(ScalarIr::Float(0.1)), "0.1");
  EXPECT_EQ(FormatScalar(ScalarIr::Float(1e-7)), "1e-07");
  EXPECT_EQ(FormatScalar(ScalarIr::Float(std::numeric_limits<double>::infinity())), "inf");
  EXPECT_EQ(FormatScalar(ScalarIr::Float(std::numeric_limits<double>::quiet_NaN())), "nan");
  EXPECT_EQ(FormatScalar(ScalarIr::Int(-3)), "-3");
  EXPECT_EQ(FormatScalar(ScalarIr::Int(std::numeric_limits<int64_t>::min())),
            "-9223372036854775808");
  EXPECT_EQ(FormatScalar(ScalarIr::UInt(7)), "7u");
  EXPECT_EQ(FormatScalar(ScalarIr::Bool(true)), "true");
  EXPECT_EQ(FormatScalar(ScalarIr::Bool(false)), "false");
}

TEST(Format, Ranges) {
  EXPECT_EQ(FormatRange(Slice{2, 8, 1}), "2:8");
  EXPECT_EQ(FormatRange(Slice{2, std::nullopt, 1}), "2:");
  EXPECT_EQ(FormatRange(Slice{0, 8, 2}), "0:8:2");
  EXPECT_EQ(FormatRange(Slice{-1, std::nullopt, -1}), "-1::-1");
}

TEST(Format, BinaryOp) {
  EXPECT_EQ(FormatOp(ir::Binary(OpKind::kAdd, T(1, {64, 64}), T(2, {64, 64}), Out(4, {64, 64}))),
            "NumericFloat::Add(t1:f32[64,64], t2:f32[64,64]) -> t4:f32[64,64]");
  EXPECT_EQ(FormatOp(ir::Binary(OpKind::kAdd, T(1, {2}, TensorStatus::kReadOnly, DType::kI32),
                                T(2, {2}, TensorStatus::kReadOnly, DType::kI32),
                                Out(3, {2}, DType::kI32))),
            "NumericInt::Add(t1:i32[2], t2:i32[2]) -> t3:i32[2]");
}

TEST(Format, OpsWithScalars) {
  EXPECT_EQ(FormatOp(ir::Scalar(OpKind::kMulScalar, T(3, {64, 64}), ScalarIr::Float(2.0),
                                Out(5, {64, 64}))),
            "NumericFloat::MulScalar(t3:f32[64,64], 2.0) -> t5:f32[64,64]");
  EXPECT_EQ(FormatOp(ir::Clamp(T(1, {4}), ScalarIr::Float(0.0), ScalarIr::Float(6.0), Out(2, {4}))),
            "NumericFloat::Clamp(t1:f32[4], 0.0, 6.0) -> t2:f32[4]");
  EXPECT_EQ(FormatOp(ir::Full(Out(2, {3}), ScalarIr::Float(1.5))),
            "NumericFloat::Full(1.5) -> t2:f32[3]");
}

TEST(Format, OpsWithRangesDimsAndDistribution) {
  EXPECT_EQ(FormatOp(ir::SliceOp(T(1, {8, 8}), {Slice{0, 4, 1}, Slice{2, std::nullopt, 1}},
                                 Out(2, {4, 6}))),
            "BaseFloat::Slice(t1:f32[8,8], ranges=[0:4, 2:]) -> t2:f32[4,6]");
  EXPECT_EQ(FormatOp(ir::ReduceDim(OpKind::kSumDim, T(1, {4, 8}), 1, Out(2, {4, 1}))),
            "NumericFloat::SumDim(t1:f32[4,8], dims=[1]) -> t2:f32[4,1]");
  EXPECT_EQ(FormatOp(ir::Cat({T(1, {2}), T(2, {3})}, 0, Out(3, {5}))),
            "BaseFloat::Cat(t1:f32[2], t2:f32[3], dims=[0]) -> t3:f32[5]");
  EXPECT_EQ(FormatOp(ir::Permute(T(1, {2, 3, 4}), {2, 0, 1}, Out(2, {4, 2, 3}))),
            "BaseFloat::Permute(t1:f32[2,3,4], dims=[2,0,1]) -> t2:f32[4,2,3]");
  EXPECT_EQ(FormatOp(ir::Random(Out(3, {4}), Distribution{})),
            "Float::Random(uniform(0.0, 1.0)) -> t3:f32[4]");
  EXPECT_EQ(
      FormatOp(ir::Random(Out(3, {4}),
                          Distribution{.kind = Distribution::Kind::kNormal, .a = 0.0, .b = 0.02})),
      "Float::Random(normal(0.0, 0.02)) -> t3:f32[4]");
}

TEST(Format, InitAndDrop) {
  EXPECT_EQ(FormatOp(ir::Init(Out(1, {2, 2}))), "Init() -> t1:f32[2,2]");
  EXPECT_EQ(FormatOp(ir::Drop(T(3, {4}, TensorStatus::kReadWrite))), "Drop(t3:f32[4])");
}

TEST(Format, RelativeOpShowsIdsShapeIdsAndPlaceholders) {
  OperationConverter converter;
  converter.ToRelative(ir::Binary(OpKind::kMul, T(1, {64, 64}), T(2, {64, 64}), Out(4, {64, 64})));
  const OperationIr rel = converter.ToRelative(
      ir::Scalar(OpKind::kMulScalar, T(3, {64, 64}), ScalarIr::Float(2.0), Out(5, {64, 64})));
  EXPECT_EQ(FormatOp(rel), "NumericFloat::MulScalar(t3:f32[1,1], 0u) -> t4:f32[1,1]");
  const OperationIr slice =
      converter.ToRelative(ir::SliceOp(T(5, {64, 64}), {Slice{3, 9, 1}}, Out(6, {6, 64})));
  EXPECT_EQ(FormatOp(slice), "BaseFloat::Slice(t4:f32[1,1], ranges=[0:]) -> t5:f32[2,1]");
}

TEST(Format, EveryOpKindPrintsItsName) {
  for (OpKind kind : ir_test::AllOpKinds()) {
    const OperationIr op = ir_test::SampleOp(kind);
    EXPECT_EQ(FormatOp(op).rfind(OpName(op) + "(", 0), 0u) << FormatOp(op);
  }
}

}  // namespace
}  // namespace ember

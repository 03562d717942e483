// MatchBlasEpilogue (codegen/blas_epilogue.h) over traces the real Matmul fuser builds: which
// epilogue blocks are exactly a cuBLASLt epilogue, and that everything else refuses.
#include "codegen/blas_epilogue.h"

#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/fuse/matmul_fuser.h"
#include "engine/ir/builders.h"
#include "tests/codegen/codegen_test_util.h"
#include "tests/codegen/golden_cases.h"

namespace ember::codegen_test {
namespace {

using ops::kUnlimited;
using test::Out;
using test::P;
using test::Ro;
using test::Rw;

const Shape kLhs = {1, 2}, kRhs = {2, 3}, kProduct = {1, 3}, kRowBias = {0, 3};
const std::map<int64_t, int64_t> kDims = {{1, 64}, {2, 32}, {3, 48}};

FuseTrace MatmulThen(DType dtype, std::vector<OperationIr> epilogue) {
  MatmulFuser f(kUnlimited);
  std::vector<OperationIr> ops = {
      ir::Binary(OpKind::kMatmul, Ro(0, kLhs, dtype), Ro(1, kRhs, dtype), Out(3, kProduct, dtype))};
  ops.insert(ops.end(), epilogue.begin(), epilogue.end());
  return TraceOf(f, ops);
}

FuseTrace MatmulThen(std::vector<OperationIr> epilogue) {
  return MatmulThen(DType::kF32, std::move(epilogue));
}

// Matches `trace` launched over kDims with these scalar values (per trace scalar).
BlasEpilogueResult Match(const FuseTrace& trace, std::vector<double> scalars,
                         const std::function<void(TraceLaunch&)>& edit = {}) {
  LaunchMaker maker(kDims);
  TraceLaunch launch = maker.Make(trace);
  launch.scalars.clear();
  for (double s : scalars) launch.scalars.push_back(ScalarIr::Float(s));
  if (edit) edit(launch);
  return MatchBlasEpilogue(launch);
}

// The input a trace reads `id` from.
int InputOf(const FuseTrace& trace, TensorId id) {
  for (size_t i = 0; i < trace.resources.inputs.size(); ++i) {
    if (trace.resources.inputs[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

OperationIr AddBias(TensorId out = 4) {
  return ir::Binary(OpKind::kAdd, Rw(3, kProduct), Ro(2, kRowBias), Out(out, kProduct));
}

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(BlasEpilogue, AcceptsRowBias) {
  const FuseTrace trace = MatmulThen({AddBias()});
  const BlasEpilogueResult r = Match(trace, {});
  ASSERT_TRUE(r.match) << r.refusal;
  EXPECT_EQ(r.match->kind, BlasEpilogueKind::kBias);
  EXPECT_EQ(r.match->bias_input, InputOf(trace, 2));
  EXPECT_FALSE(r.match->has_alpha);
}

TEST(BlasEpilogue, AcceptsBiasAddedOnTheLeftAndAsAVector) {
  const FuseTrace trace =
      MatmulThen({ir::Binary(OpKind::kAdd, Ro(2, {3}), Rw(3, kProduct), Out(4, kProduct))});
  const BlasEpilogueResult r = Match(trace, {});
  ASSERT_TRUE(r.match) << r.refusal;
  EXPECT_EQ(r.match->kind, BlasEpilogueKind::kBias);
}

TEST(BlasEpilogue, AcceptsClampAsReluThatKeepsNan) {
  const FuseTrace trace = MatmulThen({ir::Clamp(Rw(3, kProduct), P(0), P(1), Out(4, kProduct))});
  const BlasEpilogueResult r = Match(trace, {0.0, kInf});
  ASSERT_TRUE(r.match) << r.refusal;
  EXPECT_EQ(r.match->kind, BlasEpilogueKind::kRelu);
  EXPECT_EQ(r.match->relu, (ReluRule{.keeps_nan = true, .keeps_negative_zero = true}));
}

TEST(BlasEpilogue, RefusesClampWithOtherBounds) {
  const FuseTrace trace = MatmulThen({ir::Clamp(Rw(3, kProduct), P(0), P(1), Out(4, kProduct))});
  EXPECT_FALSE(Match(trace, {0.0, 6.0}).match);                                // relu6 is not relu
  EXPECT_FALSE(Match(trace, {-0.0, kInf}).match);                              // -0 for negatives
  EXPECT_FALSE(Match(trace, {0.0, std::numeric_limits<float>::max()}).match);  // inf -> max
}

TEST(BlasEpilogue, AcceptsBiasThenMaskFillRelu) {
  const FuseTrace trace = MatmulThen(
      {AddBias(),
       ir::Scalar(OpKind::kLowerElem, Ro(4, kProduct), P(0), Out(5, kProduct, DType::kBool)),
       ir::MaskFill(Rw(4, kProduct), Rw(5, kProduct, DType::kBool), P(1), Out(6, kProduct))});
  const BlasEpilogueResult r = Match(trace, {0.0, 0.0});
  ASSERT_TRUE(r.match) << r.refusal;
  EXPECT_EQ(r.match->kind, BlasEpilogueKind::kBiasRelu);
  EXPECT_EQ(r.match->bias_input, InputOf(trace, 2));
  EXPECT_EQ(r.match->relu, (ReluRule{.keeps_nan = true, .keeps_negative_zero = true}));
}

TEST(BlasEpilogue, ReluRuleFollowsTheComparison) {
  auto rule = [](OpKind test) {
    const FuseTrace trace = MatmulThen(
        {ir::Scalar(test, Ro(3, kProduct), P(0), Out(5, kProduct, DType::kBool)),
         ir::MaskFill(Rw(3, kProduct), Rw(5, kProduct, DType::kBool), P(1), Out(6, kProduct))});
    return Match(trace, {0.0, 0.0});
  };
  const BlasEpilogueResult le = rule(OpKind::kLowerEqualElem);
  ASSERT_TRUE(le.match) << le.refusal;
  EXPECT_EQ(le.match->relu, (ReluRule{.keeps_nan = true, .keeps_negative_zero = false}));
  // y > 0 filled with 0 where true is not a relu at all.
  EXPECT_FALSE(rule(OpKind::kGreaterElem).match);
}

TEST(BlasEpilogue, AcceptsMaskWhereOfZerosAsReluThatZerosNan) {
  const FuseTrace trace = MatmulThen(
      {ir::Creation(OpKind::kZeros, Out(4, kProduct)),
       ir::Scalar(OpKind::kGreaterElem, Ro(3, kProduct), P(0), Out(5, kProduct, DType::kBool)),
       ir::MaskWhere(Rw(4, kProduct), Rw(5, kProduct, DType::kBool), Rw(3, kProduct),
                     Out(6, kProduct))});
  const BlasEpilogueResult r = Match(trace, {0.0});
  ASSERT_TRUE(r.match) << r.refusal;
  EXPECT_EQ(r.match->kind, BlasEpilogueKind::kRelu);
  EXPECT_EQ(r.match->relu, (ReluRule{.keeps_nan = false, .keeps_negative_zero = false}));
}

TEST(BlasEpilogue, AcceptsAlphaBeforeBiasAndRelu) {
  const FuseTrace trace =
      MatmulThen({ir::Scalar(OpKind::kMulScalar, Rw(3, kProduct), P(0), Out(7, kProduct)),
                  ir::Binary(OpKind::kAdd, Rw(7, kProduct), Ro(2, kRowBias), Out(4, kProduct)),
                  ir::Clamp(Rw(4, kProduct), P(1), P(2), Out(6, kProduct))});
  const BlasEpilogueResult r = Match(trace, {0.125, 0.0, kInf});
  ASSERT_TRUE(r.match) << r.refusal;
  EXPECT_EQ(r.match->kind, BlasEpilogueKind::kBiasRelu);
  EXPECT_TRUE(r.match->has_alpha);
  EXPECT_EQ(r.match->alpha, 0.125f);
}

TEST(BlasEpilogue, AcceptsAlphaAlone) {
  const FuseTrace trace =
      MatmulThen({ir::Scalar(OpKind::kMulScalar, Rw(3, kProduct), P(0), Out(4, kProduct))});
  const BlasEpilogueResult r = Match(trace, {3.0});
  ASSERT_TRUE(r.match) << r.refusal;
  EXPECT_EQ(r.match->kind, BlasEpilogueKind::kNone);
  EXPECT_EQ(r.match->alpha, 3.0f);
}

TEST(BlasEpilogue, RefusesAlphaAfterBias) {
  // (y + b) * s is not s * y + b.
  const FuseTrace trace = MatmulThen(
      {AddBias(), ir::Scalar(OpKind::kMulScalar, Rw(4, kProduct), P(0), Out(5, kProduct))});
  const BlasEpilogueResult r = Match(trace, {2.0});
  EXPECT_FALSE(r.match);
  EXPECT_EQ(r.refusal, "an op cuBLASLt has no epilogue for");
}

TEST(BlasEpilogue, RefusesErfGelu) {
  const FuseTrace trace = ops::MatmulBiasGelu();
  const BlasEpilogueResult r = Match(trace, {0.7071067811865476, 1.0, 0.5});
  EXPECT_FALSE(r.match);
  EXPECT_EQ(r.refusal, "an op cuBLASLt has no epilogue for");
}

TEST(BlasEpilogue, RefusesIntegerProducts) {
  const FuseTrace trace = MatmulThen(
      DType::kI32, {ir::Binary(OpKind::kAdd, Rw(3, kProduct, DType::kI32),
                               Ro(2, kRowBias, DType::kI32), Out(4, kProduct, DType::kI32))});
  const BlasEpilogueResult r = Match(trace, {});
  EXPECT_FALSE(r.match);
  EXPECT_EQ(r.refusal, "the product is not an f32 local");
}

TEST(BlasEpilogue, RefusesBiasThatIsNotOneRow) {
  // A full matrix, a column, and a row read with a stride.
  for (const Shape& shape : {Shape{1, 3}, Shape{1, 0}}) {
    const FuseTrace trace =
        MatmulThen({ir::Binary(OpKind::kAdd, Rw(3, kProduct), Ro(2, shape), Out(4, kProduct))});
    const BlasEpilogueResult r = Match(trace, {});
    EXPECT_FALSE(r.match);
    EXPECT_THAT(r.refusal, testing::HasSubstr("not one row")) << shape[1];
  }
  const FuseTrace trace = MatmulThen({AddBias()});
  const int bias = InputOf(trace, 2);
  const BlasEpilogueResult r =
      Match(trace, {}, [&](TraceLaunch& l) { l.inputs[bias].strides.back() = 2; });
  EXPECT_FALSE(r.match);
  EXPECT_THAT(r.refusal, testing::HasSubstr("not one row"));
}

TEST(BlasEpilogue, RefusesBiasThatVariesByBatch) {
  MatmulFuser f(kUnlimited);
  const Shape lhs = {4, 1, 2}, rhs = {4, 2, 3}, product = {4, 1, 3};
  const FuseTrace trace =
      TraceOf(f, {ir::Binary(OpKind::kMatmul, Ro(0, lhs), Ro(1, rhs), Out(3, product)),
                  ir::Binary(OpKind::kAdd, Rw(3, product), Ro(2, {4, 0, 3}), Out(5, product))});
  LaunchMaker maker({{1, 64}, {2, 32}, {3, 48}, {4, 5}});
  const BlasEpilogueResult r = MatchBlasEpilogue(maker.Make(trace));
  EXPECT_FALSE(r.match);
  EXPECT_THAT(r.refusal, testing::HasSubstr("not one row"));
}

TEST(BlasEpilogue, RefusesExtraOps) {
  const FuseTrace trace =
      MatmulThen({AddBias(), ir::Unary(OpKind::kExp, Rw(4, kProduct), Out(5, kProduct))});
  const BlasEpilogueResult r = Match(trace, {});
  EXPECT_FALSE(r.match);
  EXPECT_EQ(r.refusal, "an op cuBLASLt has no epilogue for");
}

TEST(BlasEpilogue, RefusesASecondOutput) {
  // The product stays alive (read-only), so the trace writes it as well as the sum.
  const FuseTrace trace =
      MatmulThen({ir::Binary(OpKind::kAdd, Ro(3, kProduct), Ro(2, kRowBias), Out(4, kProduct))});
  const BlasEpilogueResult r = Match(trace, {});
  EXPECT_FALSE(r.match);
  EXPECT_EQ(r.refusal, "more than one output");
}

}  // namespace
}  // namespace ember::codegen_test

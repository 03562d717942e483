// The ElementWise fuser: what it accepts, where it closes, and its exact score (Scoring,
// engine/fuse/scoring.h, and docs/FUSERS.md; hand-computed below each case).
#include <gtest/gtest.h>

#include "engine/fuse/elementwise_fuser.h"
#include "engine/fuse/scoring.h"
#include "engine/fuse/trace_op_fuser.h"
#include "engine/fuse/trace_optimization.h"
#include "tests/fuse/fuse_test_util.h"

namespace ember {
namespace {

using namespace fuse_test;
using test::Out;
using test::P;
using test::Ro;
using test::Rw;
using test::T;
constexpr uint32_t kUnlimited = 0xffffffffu;

// (a*b + c*2).exp() with a, b, c held by the user: after each op, unfused 3, 5, 8, 10 accesses
// against fused 3, 5, 4, 4, so scores 0, 10, 420, 630 (Scoring, engine/fuse/scoring.h).
std::vector<OperationIr> SeedOps(TensorStatus t1_use = TensorStatus::kReadWrite) {
  return {ir::Binary(OpKind::kMul, Ro(0), Ro(1), Out(3)),
          ir::Scalar(OpKind::kMulScalar, Ro(2), P(0), Out(4)),
          ir::Binary(OpKind::kAdd, T(3, {1, 1}, t1_use), Rw(4), Out(5)),
          ir::Unary(OpKind::kExp, Rw(5), Out(6))};
}

TEST(ElementWiseFuser, SeedExpressionScoresAsTheNoteTable) {
  ElementWiseFuser fuser(kUnlimited);
  const auto ops = SeedOps();
  const uint64_t expected[] = {0, 10, 420, 630};
  for (size_t i = 0; i < ops.size(); ++i) {
    fuser.Fuse(ops[i]);
    EXPECT_EQ(fuser.properties().score, expected[i]) << "after op " << i;
    EXPECT_TRUE(fuser.properties().ready);
    EXPECT_EQ(fuser.status(), FuserStatus::kOpen);
  }
  EXPECT_EQ(fuser.len(), 4u);
  auto opt = std::dynamic_pointer_cast<TraceOptimization>(fuser.Finish());
  ASSERT_NE(opt, nullptr);
  EXPECT_EQ(opt->name(), "ElementWise");
  EXPECT_EQ(opt->len(), 4u);
  const FuseTrace& trace = opt->trace();
  ASSERT_EQ(trace.blocks.size(), 1u);
  EXPECT_EQ(trace.blocks[0].reads.size(), 3u);  // a, b, c
  EXPECT_EQ(trace.blocks[0].ops.size(), 4u);
  EXPECT_EQ(trace.blocks[0].writes.size(), 1u);  // only the exp result
  ASSERT_EQ(trace.resources.outputs.size(), 1u);
  EXPECT_EQ(trace.resources.outputs[0].id, 6u);
  ASSERT_EQ(trace.resources.scalars.size(), 1u);
  EXPECT_EQ(trace.resources.scalars[0].placeholder, 0u);
}

TEST(ElementWiseFuser, SeedTraceListingIsTheOneInTheDocs) {
  ElementWiseFuser fuser(kUnlimited);
  FeedAll(fuser, SeedOps());
  auto opt = std::dynamic_pointer_cast<TraceOptimization>(fuser.Finish());
  EXPECT_EQ(FormatFuseTrace(opt->trace()),
            "input 0: t0 [1,1]\n"
            "input 1: t1 [1,1]\n"
            "input 2: t2 [1,1]\n"
            "output 0: t6 [1,1]\n"
            "scalar 0: placeholder 0 as f32\n"
            "block 0 over [1,1]:\n"
            "  read  l0:f32 = Assign(in0:f32)\n"
            "  read  l1:f32 = Assign(in1:f32)\n"
            "  read  l3:f32 = Assign(in2:f32)\n"
            "  op    l2:f32 = Mul(l0:f32, l1:f32)\n"
            "  op    l4:f32 = Mul(l3:f32, s0:f32)\n"
            "  op    l5:f32 = Add(l2:f32, l4:f32)\n"
            "  op    l6:f32 = Exp(l5:f32)\n"
            "  write out0:f32 = Assign(l6:f32)\n");
}

TEST(ElementWiseFuser, KeepingAnIntermediateAliveCostsItsWrite) {
  ElementWiseFuser fuser(kUnlimited);
  FeedAll(fuser, SeedOps(TensorStatus::kReadOnly));
  EXPECT_EQ(fuser.properties().score, 530u);  // t1 is written: 5 accesses instead of 4
}

TEST(ElementWiseFuser, SingleOpScoresZero) {
  ElementWiseFuser fuser(kUnlimited);
  fuser.Fuse(ir::Scalar(OpKind::kAddScalar, Ro(0), P(0), Out(1)));
  EXPECT_TRUE(fuser.properties().ready);
  EXPECT_EQ(fuser.properties().score, 0u);
}

TEST(ElementWiseFuser, EightOpChainsScoreAsTheSeed) {
  // One chain: x -> 8 unary/scalar ops; 16 unfused accesses, 2 fused, 7 launches saved.
  ElementWiseFuser fuser(kUnlimited);
  std::vector<OperationIr> ops;
  TensorId next = 0;
  for (int chain = 0; chain < 5; ++chain) {
    const TensorId x = next++;
    TensorId prev = x;
    for (int k = 0; k < 8; ++k) {
      const TensorId out = next++;
      const TensorIr in = k == 0 ? Ro(prev) : Rw(prev);
      ops.push_back(k % 2 == 0 ? ir::Scalar(OpKind::kMulScalar, in, P(chain * 8 + k), Out(out))
                               : ir::Unary(OpKind::kExp, in, Out(out)));
      prev = out;
    }
  }
  FeedAll(fuser, ops);
  EXPECT_EQ(fuser.len(), 40u);
  EXPECT_EQ(fuser.properties().score, 7390u);  // (80 - 10) * 100 + 39 * 10
}

TEST(ElementWiseFuser, ClosesOnAnUnsupportedOpAndIgnoresTheRest) {
  ElementWiseFuser fuser(kUnlimited);
  fuser.Fuse(ir::Unary(OpKind::kExp, Ro(0), Out(1)));
  fuser.Fuse(ir::ReduceDim(OpKind::kSumDim, Rw(1), 1, Out(2, {1, 0})));
  EXPECT_EQ(fuser.status(), FuserStatus::kClosed);
  fuser.Fuse(ir::Unary(OpKind::kExp, Ro(0), Out(3)));
  EXPECT_EQ(fuser.len(), 1u);
}

TEST(ElementWiseFuser, DropFirstClosesDropLaterCountsAndSkipsTheWrite) {
  ElementWiseFuser first(kUnlimited);
  first.Fuse(ir::Drop(Rw(0)));
  EXPECT_EQ(first.status(), FuserStatus::kClosed);
  EXPECT_FALSE(first.properties().ready);

  // exp(x) -> y (kept), then the user drops y: it is no longer written.
  ElementWiseFuser fuser(kUnlimited);
  fuser.Fuse(ir::Unary(OpKind::kExp, Ro(0), Out(1)));
  fuser.Fuse(ir::Unary(OpKind::kLog, Ro(1), Out(2)));
  fuser.Fuse(ir::Drop(Rw(1)));
  // unfused: reads 1+1+1, writes 2 = 5; fused: read x, write t2 = 2; 2 launches saved.
  EXPECT_EQ(fuser.properties().score, (5 - 2) * 100 + 2 * 10u);
  auto opt = std::dynamic_pointer_cast<TraceOptimization>(fuser.Finish());
  EXPECT_EQ(opt->trace().resources.dropped, std::vector<TensorId>{1});
  ASSERT_EQ(opt->trace().resources.outputs.size(), 1u);
  EXPECT_EQ(opt->trace().resources.outputs[0].id, 2u);
}

TEST(ElementWiseFuser, BroadcastsOnRelativeShapeIdsAndGrowsTheReference) {
  ElementWiseFuser fuser(kUnlimited);
  // [m,1] + [m,n]: the reference grows from [1,0] to [1,2]; a [3,2] output is refused.
  fuser.Fuse(ir::Unary(OpKind::kExp, Ro(0, {1, 0}), Out(1, {1, 0})));
  fuser.Fuse(ir::Binary(OpKind::kAdd, Rw(1, {1, 0}), Ro(2, {1, 2}), Out(3, {1, 2})));
  EXPECT_EQ(fuser.status(), FuserStatus::kOpen);
  fuser.Fuse(ir::Unary(OpKind::kExp, Ro(4, {1, 0}), Out(5, {1, 0})));  // smaller: fine
  EXPECT_EQ(fuser.len(), 3u);
  fuser.Fuse(ir::Unary(OpKind::kExp, Ro(6, {3, 2}), Out(7, {3, 2})));
  EXPECT_EQ(fuser.status(), FuserStatus::kClosed);
  EXPECT_EQ(fuser.len(), 3u);
  // A rank change closes too.
  ElementWiseFuser ranks(kUnlimited);
  ranks.Fuse(ir::Unary(OpKind::kExp, Ro(0, {1}), Out(1, {1})));
  ranks.Fuse(ir::Unary(OpKind::kExp, Ro(2, {1, 1}), Out(3, {1, 1})));
  EXPECT_EQ(ranks.len(), 1u);
}

TEST(ElementWiseFuser, ViewsFuseOnlyForAnInputAlreadyReadAndCostAPenalty) {
  // swap_dims(x) of an x read in the block: fused, one view read (+1 read, -50).
  ElementWiseFuser fuser(kUnlimited);
  fuser.Fuse(ir::Unary(OpKind::kExp, Ro(0, {1, 1}), Out(1, {1, 1})));
  fuser.Fuse(ir::SwapDims(Ro(0, {1, 1}), 0, 1, Out(2, {1, 1})));
  fuser.Fuse(ir::Binary(OpKind::kAdd, Rw(1), Rw(2), Out(3)));
  EXPECT_EQ(fuser.len(), 3u);
  // unfused: reads 1+1+2, writes 3 = 7; fused: read x, view read, write t3 = 3 -> 400 + 20
  // - 50.
  EXPECT_EQ(fuser.properties().score, 370u);

  // A view of a tensor the kernel produced, or of one never read, closes the fuser.
  ElementWiseFuser produced(kUnlimited);
  produced.Fuse(ir::Unary(OpKind::kExp, Ro(0), Out(1)));
  produced.Fuse(ir::SwapDims(Rw(1), 0, 1, Out(2)));
  EXPECT_EQ(produced.status(), FuserStatus::kClosed);
  ElementWiseFuser unseen(kUnlimited);
  unseen.Fuse(ir::Unary(OpKind::kExp, Ro(0), Out(1)));
  unseen.Fuse(ir::SwapDims(Ro(5), 0, 1, Out(2)));
  EXPECT_EQ(unseen.status(), FuserStatus::kClosed);
}

TEST(ElementWiseFuser, RankReducingReshapeCloses) {
  ElementWiseFuser fuser(kUnlimited);
  fuser.Fuse(ir::Unary(OpKind::kExp, Ro(0, {1, 2}), Out(1, {1, 2})));
  OperationIr reshape = ir::Unary(OpKind::kReshape, Ro(0, {1, 2}), Out(2, {3}));
  fuser.Fuse(reshape);
  EXPECT_EQ(fuser.status(), FuserStatus::kClosed);
}

TEST(ElementWiseFuser, MaskClampCastFullAndComparisonsFuse) {
  ElementWiseFuser fuser(kUnlimited);
  fuser.Fuse(ir::Scalar(OpKind::kGreaterElem, Ro(0), P(0), Out(1, {1, 1}, DType::kBool)));
  fuser.Fuse(ir::MaskFill(Ro(0), Rw(1, {1, 1}, DType::kBool), P(1), Out(2)));
  fuser.Fuse(ir::Clamp(Rw(2), P(2), P(3), Out(3)));
  fuser.Fuse(ir::Unary(OpKind::kCast, Rw(3), Out(4, {1, 1}, DType::kF16)));
  fuser.Fuse(ir::Full(Out(5), P(4)));
  EXPECT_EQ(fuser.len(), 5u);
  EXPECT_EQ(fuser.status(), FuserStatus::kOpen);
  auto opt = std::dynamic_pointer_cast<TraceOptimization>(fuser.Finish());
  EXPECT_EQ(opt->trace().resources.scalars.size(), 5u);
  EXPECT_EQ(opt->trace().resources.inputs.size(), 1u);
}

// burn's conversions (issue 17): a cast within a family and Int::IntoFloat fuse; Float::IntoInt
// and the Bool ops (Bool::IntoFloat, Bool::IntoInt) do not. ember's one Cast decides by the
// source and target families.
TEST(ElementWiseFuser, CastsFuseExactlyAsBurnsConversions) {
  struct Case {
    DType from, to;
    bool fused;
  };
  const Case cases[] = {
      {DType::kF32, DType::kF16, true},   {DType::kF16, DType::kBF16, true},   // BaseFloat::Cast
      {DType::kI32, DType::kI64, true},                                        // BaseInt::Cast
      {DType::kBool, DType::kBool, true},                                      // BaseBool::Cast
      {DType::kI32, DType::kF32, true},   {DType::kI64, DType::kF16, true},    // Int::IntoFloat
      {DType::kF32, DType::kI32, false},  {DType::kBF16, DType::kI64, false},  // Float::IntoInt
      {DType::kBool, DType::kF32, false}, {DType::kBool, DType::kI32, false},  // Bool ops
      {DType::kF32, DType::kBool, false}, {DType::kI64, DType::kBool, false},  // none in burn
  };
  for (const Case& c : cases) {
    const std::string what = std::string(DTypeName(c.from)) + " -> " + std::string(DTypeName(c.to));
    EXPECT_EQ(CastIsFusable(c.from, c.to), c.fused) << what;
    // After an op of the source dtype, so that a refusal closes an open fuser.
    ElementWiseFuser fuser(kUnlimited);
    fuser.Fuse(ir::Unary(OpKind::kAbs, Ro(0, {1, 1}, c.from), Out(1, {1, 1}, c.from)));
    fuser.Fuse(ir::Unary(OpKind::kCast, Rw(1, {1, 1}, c.from), Out(2, {1, 1}, c.to)));
    EXPECT_EQ(fuser.len(), c.fused ? 2u : 1u) << what;
    EXPECT_EQ(fuser.status(), c.fused ? FuserStatus::kOpen : FuserStatus::kClosed) << what;
    // And as the first op: burn closes on a Bool op even then.
    ElementWiseFuser first(kUnlimited);
    first.Fuse(ir::Unary(OpKind::kCast, Ro(0, {1, 1}, c.from), Out(1, {1, 1}, c.to)));
    EXPECT_EQ(first.len(), c.fused ? 1u : 0u) << what;
  }
}

// docs/FIDELITY.md: Neg is fused (burn's frontend emits MulScalar(-1) instead, which fuses too).
// Gather, Select and Cat: tests/fuse/indexed_fusion_test.cpp.
TEST(ElementWiseFuser, NegFuses) {
  ElementWiseFuser neg(kUnlimited);
  neg.Fuse(ir::Unary(OpKind::kExp, Ro(0), Out(1)));
  neg.Fuse(ir::Unary(OpKind::kNeg, Rw(1), Out(2)));
  EXPECT_EQ(neg.len(), 2u);
  EXPECT_EQ(neg.status(), FuserStatus::kOpen);
}

// burn's IntOperationIr bitwise ops fuse (burn-cubecl-fusion's FuseOp::BitwiseAnd ...
// BitwiseNot): a chain of all eleven op kinds on i32 is one trace, the scalar forms included.
TEST(ElementWiseFuser, BitwiseOpsFuseIntoOneTrace) {
  ElementWiseFuser fuser(kUnlimited);
  const DType i = DType::kI32;
  const Shape s = {1, 1};
  const std::vector<OperationIr> ops = {
      ir::Binary(OpKind::kBitwiseAnd, Ro(0, s, i), Ro(1, s, i), Out(2, s, i)),
      ir::Scalar(OpKind::kBitwiseAndScalar, Rw(2, s, i), P(0), Out(3, s, i)),
      ir::Binary(OpKind::kBitwiseOr, Rw(3, s, i), Ro(1, s, i), Out(4, s, i)),
      ir::Scalar(OpKind::kBitwiseOrScalar, Rw(4, s, i), P(1), Out(5, s, i)),
      ir::Binary(OpKind::kBitwiseXor, Rw(5, s, i), Ro(0, s, i), Out(6, s, i)),
      ir::Scalar(OpKind::kBitwiseXorScalar, Rw(6, s, i), P(2), Out(7, s, i)),
      ir::Binary(OpKind::kBitwiseLeftShift, Rw(7, s, i), Ro(1, s, i), Out(8, s, i)),
      ir::Scalar(OpKind::kBitwiseLeftShiftScalar, Rw(8, s, i), P(3), Out(9, s, i)),
      ir::Binary(OpKind::kBitwiseRightShift, Rw(9, s, i), Ro(1, s, i), Out(10, s, i)),
      ir::Scalar(OpKind::kBitwiseRightShiftScalar, Rw(10, s, i), P(4), Out(11, s, i)),
      ir::Unary(OpKind::kBitwiseNot, Rw(11, s, i), Out(12, s, i))};
  for (const OperationIr& op : ops) fuser.Fuse(op);
  EXPECT_EQ(fuser.len(), ops.size());
  EXPECT_EQ(fuser.status(), FuserStatus::kOpen);
  EXPECT_TRUE(fuser.properties().ready);
  EXPECT_GT(fuser.properties().score, 0u);
}

// The ReLU-backward mask x.Greater(0).Cast(f32) * g: burn does not fuse across the bool ->
// float conversion, so the comparison stays alone (score 0) and the conversion closes the fuser.
TEST(ElementWiseFuser, TheReluBackwardMaskIsNotFusedAcrossItsConversion) {
  ElementWiseFuser fuser(kUnlimited);
  fuser.Fuse(ir::Scalar(OpKind::kGreaterElem, Ro(0), P(0), Out(1, {1, 1}, DType::kBool)));
  fuser.Fuse(ir::Unary(OpKind::kCast, Rw(1, {1, 1}, DType::kBool), Out(2)));
  EXPECT_EQ(fuser.status(), FuserStatus::kClosed);
  EXPECT_EQ(fuser.len(), 1u);
  EXPECT_EQ(fuser.properties().score, 0u);
  // After the conversion, the product fuses with what follows as usual.
  ElementWiseFuser after(kUnlimited);
  after.Fuse(ir::Binary(OpKind::kMul, Rw(2), Ro(3), Out(4)));
  after.Fuse(ir::Scalar(OpKind::kMulScalar, Rw(4), P(1), Out(5)));
  EXPECT_EQ(after.len(), 2u);
}

TEST(ElementWiseFuser, TheOpLimitStopsAtSixtyFiveOps) {
  // burn refuses an op once the trace already holds more than 64 fused ops.
  ElementWiseFuser fuser(kUnlimited);
  for (TensorId i = 0; i < 80; ++i) {
    fuser.Fuse(ir::Unary(OpKind::kExp, i == 0 ? Ro(0) : Rw(i), Out(i + 1)));
  }
  EXPECT_EQ(fuser.len(), 65u);
  EXPECT_EQ(fuser.status(), FuserStatus::kClosed);
}

TEST(ElementWiseFuser, AnOpRefusedAtTheLimitLeavesTheReferenceShape) {
  // 65 ops on a [1, n] row, then one whose output would grow the reference to [m, n]: it passes
  // the shape check but the op limit refuses it. The trace keeps the row's shape (burn keeps
  // the grown one), so that it depends on the fused ops alone (Note [Optimization proof],
  // store/codec/plan_proof.h).
  const Shape row = {0, 1}, full = {2, 1};
  ElementWiseFuser fuser(kUnlimited);
  for (TensorId i = 0; i < 65; ++i) {
    fuser.Fuse(ir::Unary(OpKind::kExp, i == 0 ? Ro(0, row) : Rw(i, row), Out(i + 1, row)));
  }
  fuser.Fuse(ir::Binary(OpKind::kAdd, Rw(65, row), Ro(66, full), Out(67, full)));
  EXPECT_EQ(fuser.len(), 65u);
  EXPECT_EQ(fuser.status(), FuserStatus::kClosed);
  auto opt = std::dynamic_pointer_cast<TraceOptimization>(fuser.Finish());
  ASSERT_NE(opt, nullptr);
  EXPECT_EQ(opt->trace().blocks.back().shape_ref, row);
}

TEST(ElementWiseFuser, TheBindingLimitRefusesAnOpThatNeedsOneMoreBuffer) {
  // 1 (metadata) + inputs + written outputs: with 4 bindings, exp(a) + b fits (a, b, out),
  // a third input does not.
  ElementWiseFuser fuser(4);
  fuser.Fuse(ir::Unary(OpKind::kExp, Ro(0), Out(1)));
  fuser.Fuse(ir::Binary(OpKind::kAdd, Rw(1), Ro(2), Out(3)));
  EXPECT_EQ(fuser.len(), 2u);
  fuser.Fuse(ir::Binary(OpKind::kAdd, Rw(3), Ro(4), Out(5)));
  EXPECT_EQ(fuser.len(), 2u);
  EXPECT_EQ(fuser.status(), FuserStatus::kClosed);
}

TEST(Scoring, FormulaMatchesBurnsCases) {
  Scoring s;
  s.Register(ir::Binary(OpKind::kAdd, Ro(0), Ro(1), Out(2)));  // 2 reads, 1 write
  s.Register(ir::Unary(OpKind::kExp, Rw(2), Out(3)));          // 1 read, 1 write
  // 5 unfused accesses.
  EXPECT_EQ(s.Calculate(2, 1, 0), 210u);
  EXPECT_EQ(s.Calculate(2, 1, 1), 160u);
  EXPECT_EQ(s.Calculate(5, 0, 0), 10u);
  EXPECT_EQ(s.Calculate(5, 0, 1), 0u);  // saturates
  EXPECT_EQ(Scoring().Calculate(0, 0, 0), 0u);
}

// burn's test_reset (burn-cubecl-fusion, engine/scoring.rs): Reset clears every counter, so a
// reset fuser scores its next ops from zero.
TEST(Scoring, ResetClearsEveryCounter) {
  Scoring s;
  for (int i = 0; i < 10; ++i) s.Register(ir::Binary(OpKind::kAdd, Ro(0), Ro(1), Out(2)));
  EXPECT_EQ(s.num_reads(), 20u);
  EXPECT_EQ(s.num_writes(), 10u);
  EXPECT_EQ(s.num_ops(), 10u);
  s.Reset();
  EXPECT_EQ(s.num_reads(), 0u);
  EXPECT_EQ(s.num_writes(), 0u);
  EXPECT_EQ(s.num_ops(), 0u);
  EXPECT_EQ(s.Calculate(0, 0, 0), 0u);
}

}  // namespace
}  // namespace ember

// ExplainMiss (engine/stream/miss_explanation.h, Note [Explaining a miss]) on relative ops built
// by hand: each cause named, the nearest candidate chosen, the concrete dims reported, and the
// pattern that groups a miss seen again. The same misses end to end, through the engine's log
// and a plan database: tests/end_to_end/miss_explanation_test.cpp.
#include "engine/stream/miss_explanation.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/ir/builders.h"
#include "tests/common/ir_builders.h"

namespace ember {
namespace {

using test::Out;
using test::P;
using test::Ro;
using test::Rw;
using ::testing::HasSubstr;

// The seed's (a * b + c * s).exp() in relative form, every tensor of shape `shape`.
std::vector<OperationIr> Seed(const Shape& shape) {
  return {
      ir::Binary(OpKind::kMul, Ro(1, shape), Ro(2, shape), Out(3, shape)),
      ir::Scalar(OpKind::kMulScalar, Ro(4, shape), P(0), Out(5, shape)),
      ir::Binary(OpKind::kAdd, Rw(3, shape), Rw(5, shape), Out(6, shape)),
      ir::Unary(OpKind::kExp, Rw(6, shape), Out(7, shape)),
  };
}

MissCandidate Candidate(const std::string& label, const std::vector<OperationIr>& ops,
                        const std::vector<ExecutionTrigger>& triggers,
                        const std::vector<int64_t>& dims = {}) {
  return {.label = label, .operations = ops, .triggers = triggers, .found_dims = dims};
}

const std::vector<ExecutionTrigger> kOnSync = {ExecutionTrigger::OnSync()};

TEST(ExplainMiss, NothingStoredForTheFirstOpKindIsAFirstSighting) {
  const std::vector<OperationIr> ops = Seed({1, 1});
  const MissExplanation miss = ExplainMiss({.operations = ops, .mode = ExecutionMode::kSync}, {});
  EXPECT_EQ(miss.cause, MissCause::kNoCandidate);
  EXPECT_EQ(miss.plan, "");
  EXPECT_EQ(miss.Line(),
            "[plan] miss (no_candidate): no stored plan starts with NumericFloat::Mul");
}

TEST(ExplainMiss, PlansOfAnotherFirstOpKindAreNotCandidates) {
  const std::vector<OperationIr> ops = Seed({1, 1});
  const std::vector<OperationIr> other = {ir::Unary(OpKind::kExp, Rw(1), Out(2))};
  const MissCandidate plans[] = {Candidate("#0", other, kOnSync)};
  EXPECT_EQ(ExplainMiss({.operations = ops, .mode = ExecutionMode::kSync}, plans).cause,
            MissCause::kNoCandidate);
}

// The seed's question: cached on 64×64, does 64×32 hit? No: [1,2] instead of [1,1].
TEST(ExplainMiss, TheSeeds64By32SegmentDiffersInShapeWithTheRealDimsOnBothSides) {
  const std::vector<OperationIr> stored = Seed({1, 1});
  const std::vector<OperationIr> ops = Seed({1, 2});
  const std::vector<int64_t> stored_dims = {1, 64};
  const std::vector<int64_t> dims = {1, 64, 32};
  const MissCandidate plans[] = {Candidate("#2", stored, kOnSync, stored_dims)};
  const MissExplanation miss =
      ExplainMiss({.operations = ops, .dims = dims, .mode = ExecutionMode::kSync}, plans);
  EXPECT_EQ(miss.cause, MissCause::kShape);
  EXPECT_EQ(miss.plan, "#2");
  EXPECT_EQ(miss.op, 0u);
  EXPECT_EQ(miss.op_name, "NumericFloat::Mul");
  EXPECT_EQ(
      miss.Line(),
      "[plan] miss (shape): nearest plan #2 differs at op 0 (NumericFloat::Mul): input 0 shape "
      "[1,2] vs [1,1] (64×32 gives [1,2], the stored plan has [1,1] from 64×64): dim 1 "
      "differs");
  EXPECT_EQ(miss.value_here, 32);
  EXPECT_EQ(miss.value_stored, 64);
}

TEST(ExplainMiss, WithoutTheStoredPlansDimsTheShapeIsStillNamed) {
  const std::vector<OperationIr> stored = Seed({1, 1});
  const std::vector<OperationIr> ops = Seed({1, 2});
  const std::vector<int64_t> dims = {1, 64, 32};
  const MissCandidate plans[] = {Candidate("stored plan 9", stored, kOnSync)};
  const MissExplanation miss =
      ExplainMiss({.operations = ops, .dims = dims, .mode = ExecutionMode::kSync}, plans);
  EXPECT_THAT(miss.difference,
              HasSubstr("(64×32 gives [1,2], the stored plan has [1,1]): dim 1 differs"));
  EXPECT_FALSE(miss.value_stored.has_value());
}

TEST(ExplainMiss, AScalarThatBecameATensorIsAnOpKindDifference) {
  const std::vector<OperationIr> stored = Seed({1, 1});
  std::vector<OperationIr> ops = Seed({1, 1});
  ops[1] = ir::Binary(OpKind::kMul, Ro(4), Ro(8), Out(5));
  const MissCandidate plans[] = {Candidate("#0", stored, kOnSync)};
  const MissExplanation miss =
      ExplainMiss({.operations = ops, .mode = ExecutionMode::kSync}, plans);
  EXPECT_EQ(miss.cause, MissCause::kOpKind);
  EXPECT_EQ(miss.op, 1u);
  EXPECT_THAT(miss.Line(), HasSubstr("differs at op 1 (NumericFloat::Mul): NumericFloat::Mul vs "
                                     "NumericFloat::MulScalar (a scalar operand became a tensor)"));
}

TEST(ExplainMiss, AValueKeptAliveIsAStatusDifference) {
  const std::vector<OperationIr> stored = Seed({1, 1});
  std::vector<OperationIr> ops = Seed({1, 1});
  ops[3] = ir::Unary(OpKind::kExp, Ro(6), Out(7));  // t6 read again later
  const MissCandidate plans[] = {Candidate("#0", stored, kOnSync)};
  const MissExplanation miss =
      ExplainMiss({.operations = ops, .mode = ExecutionMode::kSync}, plans);
  EXPECT_EQ(miss.cause, MissCause::kStatus);
  EXPECT_EQ(miss.op, 3u);
  EXPECT_THAT(miss.difference,
              HasSubstr("input 0 is ReadOnly vs ReadWrite (here still used after this op, in the "
                        "stored plan its last use)"));
}

TEST(ExplainMiss, ADTypeDifferenceIsNamedWithBothDTypes) {
  const std::vector<OperationIr> stored = {ir::Unary(OpKind::kExp, Rw(1), Out(2))};
  const std::vector<OperationIr> ops = {
      ir::Unary(OpKind::kExp, Rw(1, {1, 1}, DType::kF16), Out(2, {1, 1}, DType::kF16))};
  const MissCandidate plans[] = {Candidate("#0", stored, kOnSync)};
  const MissExplanation miss =
      ExplainMiss({.operations = ops, .mode = ExecutionMode::kSync}, plans);
  EXPECT_EQ(miss.cause, MissCause::kDType);
  EXPECT_THAT(miss.difference, HasSubstr("f16 vs f32"));
}

TEST(ExplainMiss, AnotherTensorAtTheSamePlaceIsADataFlowDifference) {
  const std::vector<OperationIr> stored = Seed({1, 1});
  std::vector<OperationIr> ops = Seed({1, 1});
  ops[2] = ir::Binary(OpKind::kAdd, Rw(3), Ro(4), Out(6));  // c instead of c * s
  const MissCandidate plans[] = {Candidate("#0", stored, kOnSync)};
  const MissExplanation miss =
      ExplainMiss({.operations = ops, .mode = ExecutionMode::kSync}, plans);
  EXPECT_EQ(miss.op, 2u);
  // t4 is read again here (ReadOnly): the status differs before the id does.
  EXPECT_EQ(miss.cause, MissCause::kStatus);
  ops[2] = ir::Binary(OpKind::kAdd, Rw(3), Rw(4), Out(6));
  EXPECT_EQ(ExplainMiss({.operations = ops, .mode = ExecutionMode::kSync}, plans).cause,
            MissCause::kDataFlow);
}

TEST(ExplainMiss, AnAxisIsAnAttributeDifference) {
  const std::vector<OperationIr> stored = {ir::ReduceDim(OpKind::kSumDim, Rw(1), 1, Out(2))};
  const std::vector<OperationIr> ops = {ir::ReduceDim(OpKind::kSumDim, Rw(1), 0, Out(2))};
  const MissCandidate plans[] = {Candidate("#0", stored, kOnSync)};
  const MissExplanation miss =
      ExplainMiss({.operations = ops, .mode = ExecutionMode::kSync}, plans);
  EXPECT_EQ(miss.cause, MissCause::kAttribute);
  EXPECT_THAT(miss.difference, HasSubstr("dims [0] vs [1]"));
}

TEST(ExplainMiss, ALongerSegmentAtASyncIsAnOpCountDifference) {
  const std::vector<OperationIr> seed = Seed({1, 1});
  const std::vector<OperationIr> stored(seed.begin(), seed.begin() + 2);
  const MissCandidate plans[] = {Candidate("#0", stored, kOnSync)};
  const MissExplanation miss =
      ExplainMiss({.operations = seed, .mode = ExecutionMode::kSync}, plans);
  EXPECT_EQ(miss.cause, MissCause::kOpCount);
  EXPECT_EQ(miss.op, 2u);
  EXPECT_THAT(miss.Line(), HasSubstr("nearest plan #0 matches the first 2 op(s), but the "
                                     "segment has 4 at a sync"));
}

TEST(ExplainMiss, AShorterSegmentThanThePlanIsAnOpCountDifference) {
  const std::vector<OperationIr> stored = Seed({1, 1});
  const std::vector<OperationIr> ops(stored.begin(), stored.begin() + 3);
  const MissCandidate plans[] = {Candidate("#0", stored, kOnSync)};
  const MissExplanation miss =
      ExplainMiss({.operations = ops, .mode = ExecutionMode::kSync}, plans);
  EXPECT_EQ(miss.cause, MissCause::kOpCount);
  EXPECT_THAT(miss.difference, HasSubstr("matches all 3 op(s) of the segment, but covers 4"));
}

TEST(ExplainMiss, LazyOpsAfterThePlanThatMatchNoTriggerAreATriggerDifference) {
  const std::vector<OperationIr> seed = Seed({1, 1});
  const std::vector<OperationIr> stored(seed.begin(), seed.begin() + 2);
  const std::vector<ExecutionTrigger> triggers = {
      ExecutionTrigger::OnOperations({ir::Binary(OpKind::kSub, Rw(3), Rw(5), Out(6))})};
  const MissCandidate plans[] = {Candidate("#1", stored, triggers)};
  const MissExplanation miss =
      ExplainMiss({.operations = seed, .mode = ExecutionMode::kLazy}, plans);
  EXPECT_EQ(miss.cause, MissCause::kTrigger);
  EXPECT_EQ(miss.op, 2u);
  EXPECT_THAT(miss.difference,
              HasSubstr("its trigger expects NumericFloat::Sub at op 2, here NumericFloat::Add"));

  const MissCandidate sync_only[] = {Candidate("#1", stored, kOnSync)};
  EXPECT_THAT(ExplainMiss({.operations = seed, .mode = ExecutionMode::kLazy}, sync_only).difference,
              HasSubstr("found at a sync (no trigger for lazy execution)"));
}

TEST(ExplainMiss, ThePlanAgreeingLongestIsTheNearest) {
  const std::vector<OperationIr> seed = Seed({1, 1});
  std::vector<OperationIr> early = seed;
  early[0] = ir::Binary(OpKind::kMul, Ro(1), Rw(2), Out(3));
  std::vector<OperationIr> late = seed;
  late[3] = ir::Unary(OpKind::kExp, Ro(6), Out(7));
  const MissCandidate plans[] = {Candidate("#0", early, kOnSync), Candidate("#1", late, kOnSync)};
  const MissExplanation miss =
      ExplainMiss({.operations = seed, .mode = ExecutionMode::kSync}, plans);
  EXPECT_EQ(miss.plan, "#1");
  EXPECT_EQ(miss.op, 3u);
}

TEST(ExplainMiss, APlanOfAnotherEnvironmentExplainsOnlyWhenNoneHereIsNear) {
  const std::vector<OperationIr> seed = Seed({1, 1});
  MissCandidate elsewhere = Candidate("stored plan 3", seed, kOnSync);
  elsewhere.environment_difference = "max_blocks: 3 here, 5 in the stored plan's";
  const MissCandidate only_elsewhere[] = {elsewhere};
  const MissExplanation miss =
      ExplainMiss({.operations = seed, .mode = ExecutionMode::kSync}, only_elsewhere);
  EXPECT_EQ(miss.cause, MissCause::kEnvironment);
  EXPECT_EQ(miss.plan, "stored plan 3");
  EXPECT_THAT(miss.Line(), HasSubstr("max_blocks: 3 here, 5 in the stored plan's"));

  // A plan of this environment, however far, is the one to explain with.
  const std::vector<OperationIr> far = {ir::Binary(OpKind::kMul, Rw(1), Rw(2), Out(3))};
  const MissCandidate both[] = {elsewhere, Candidate("#0", far, kOnSync)};
  EXPECT_EQ(ExplainMiss({.operations = seed, .mode = ExecutionMode::kSync}, both).plan, "#0");
}

TEST(ExplainMiss, TheSameMissWithOtherDimsHasTheSamePattern) {
  const std::vector<OperationIr> stored = Seed({1, 1});
  const std::vector<OperationIr> ops = Seed({1, 2});
  const std::vector<int64_t> dims32 = {1, 64, 32};
  const std::vector<int64_t> dims48 = {1, 64, 48};
  const MissCandidate plans[] = {Candidate("#0", stored, kOnSync)};
  const MissExplanation a =
      ExplainMiss({.operations = ops, .dims = dims32, .mode = ExecutionMode::kSync}, plans);
  const MissExplanation b =
      ExplainMiss({.operations = ops, .dims = dims48, .mode = ExecutionMode::kSync}, plans);
  EXPECT_EQ(a.pattern, b.pattern);
  EXPECT_NE(a.difference, b.difference);
  std::vector<OperationIr> status = Seed({1, 1});
  status[3] = ir::Unary(OpKind::kExp, Ro(6), Out(7));
  EXPECT_NE(ExplainMiss({.operations = status, .mode = ExecutionMode::kSync}, plans).pattern,
            a.pattern);
}

TEST(MissCause, NamesRoundTripAndAreTheStoredOnes) {
  for (size_t i = 0; i < kNumMissCauses; ++i) {
    const auto cause = static_cast<MissCause>(i);
    EXPECT_EQ(ParseMissCause(MissCauseName(cause)), cause);
  }
  EXPECT_EQ(MissCauseName(MissCause::kShape), "shape");
  EXPECT_EQ(MissCauseName(MissCause::kEnvironment), "environment");
  EXPECT_FALSE(ParseMissCause("shapes").has_value());
}

}  // namespace
}  // namespace ember

// Note [Plans per first op] (store/persistent_plans.h), issue 40 item 6: a stored row joins the
// store only when its plan_key, first_op_hash and num_ops are those of its ops, else it is
// quarantined; copies of one plan under made-up keys never reach the shared segment; a segment
// entry published under a key that is not its plan's is ignored, and said; at most the bound of
// plans of one first op is loaded, and the cut is said once.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/core/log.h"
#include "engine/ir/builders.h"
#include "engine/ir/relative.h"
#include "store/admin/plan_inventory.h"
#include "store/codec/plan_codec.h"
#include "store/persistent_plans.h"
#include "tests/common/repository_fixture.h"
#include "tests/store/one_op_plans.h"
#include "tests/store/shm_test_util.h"

namespace ember {
namespace {

using test::FirstOp;
using test::PlanStartingWith;
using testing::Contains;
using testing::HasSubstr;

// The plan exp -> `second` over [4, 8]: its first op is FirstOp(kExp), unfused.
ExecutionPlan ExpThen(OpKind second) {
  OperationConverter converter;
  const TensorIr x{.id = 100, .shape = {4, 8}};
  const TensorIr y{.id = 101, .shape = {4, 8}, .status = TensorStatus::kNotInit};
  const TensorIr y_read{.id = 101, .shape = {4, 8}, .status = TensorStatus::kReadOnly};
  const TensorIr z{.id = 102, .shape = {4, 8}, .status = TensorStatus::kNotInit};
  std::vector<OperationIr> ops = {converter.ToRelative(ir::Unary(OpKind::kExp, x, y)),
                                  converter.ToRelative(ir::Unary(second, y_read, z))};
  return {std::move(ops), {ExecutionTrigger::Always()}, BlockOptimization::Unfused(2)};
}

// The row of `plan` as the engine writes it (keys derived from its ops).
NewPlan RowOf(const ExecutionPlan& plan) {
  return {.first_op_hash = FirstOpHash(plan.operations),
          .plan_key = PlanKey(plan.operations),
          .ops_blob = EncodeOperations(plan.operations),
          .plan_blob = EncodeBlockOptimization(plan.optimization),
          .num_ops = static_cast<uint32_t>(plan.operations.size())};
}

class PlanKeyOnLoad : public test::ShmFixture {
 protected:
  void SetUp() override {
    repo_ = test::OpenRepository(db_);
    ASSERT_NE(repo_, nullptr);
    ASSERT_TRUE(repo_->EnsureEnvironment(test::SampleEnvironment(), &env_).ok());
  }

  PlanRowId Insert(const NewPlan& row) {
    InsertResult result;
    EXPECT_TRUE(repo_->InsertPlan(env_, row, &result).ok());
    EXPECT_EQ(result.outcome, InsertOutcome::kInserted);
    EXPECT_TRUE(repo_->AppendTriggers(result.plan_id, {{TriggerRow{.kind = 2}}}).ok());
    return result.plan_id;
  }

  std::unique_ptr<PersistentPlans> OpenPlans(bool shm, size_t bound = kMaxPlansPerFirstOp) {
    std::unique_ptr<PersistentPlans> plans;
    const Status s = PersistentPlans::Open({.path = db_,
                                            .environment = test::SampleEnvironment(),
                                            .workload = "serve",
                                            .shm = shm,
                                            .shm_bytes = uint64_t{4} << 20,
                                            .shm_wait_ms = 0,
                                            .max_plans_per_first_op = bound},
                                           &plans);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return plans;
  }

  // How many plans `plans` hands over for exp's first op.
  static size_t LoadExp(PersistentPlans& plans) {
    size_t added = 0;
    plans.Load(FirstOp(OpKind::kExp), [&](ExecutionPlan) { return added++; });
    return added;
  }

  std::unique_ptr<SqlitePlanRepository> repo_;
  EnvironmentRowId env_ = 0;
};

TEST_F(PlanKeyOnLoad, RowsWhoseKeysAreNotTheirOpsAreQuarantinedAndNeverLoaded) {
  const NewPlan good = RowOf(PlanStartingWith(OpKind::kExp));
  Insert(good);
  NewPlan made_up_key = good;
  made_up_key.plan_key = test::Key(1);
  Insert(made_up_key);
  NewPlan wrong_count = RowOf(ExpThen(OpKind::kTanh));
  wrong_count.num_ops = 7;
  Insert(wrong_count);
  // Another first op's plan filed under exp's first-op hash.
  NewPlan other_first = RowOf(PlanStartingWith(OpKind::kTanh));
  other_first.first_op_hash = good.first_op_hash;
  Insert(other_first);

  std::unique_ptr<PersistentPlans> plans = OpenPlans(/*shm=*/false);
  ASSERT_NE(plans, nullptr);
  EXPECT_EQ(LoadExp(*plans), 1u);
  EXPECT_EQ(plans->counters().rows_quarantined, 3u);
  plans->Close();

  std::vector<PlanRecord> quarantined;
  ASSERT_TRUE(ListPlans(repo_->sql(), {.status = "quarantined"}, &quarantined).ok());
  std::vector<std::string> reasons;
  for (const PlanRecord& p : quarantined) reasons.push_back(p.quarantine_reason);
  ASSERT_EQ(reasons.size(), 3u);
  EXPECT_THAT(reasons, Contains(HasSubstr("plan_key")));
  EXPECT_THAT(reasons, Contains(HasSubstr("num_ops")));
  EXPECT_THAT(reasons, Contains(HasSubstr("first_op_hash")));

  // The next run loads the good row alone and finds nothing more to set aside.
  std::unique_ptr<PersistentPlans> next = OpenPlans(/*shm=*/false);
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(LoadExp(*next), 1u);
  EXPECT_EQ(next->counters().rows_quarantined, 0u);
}

TEST_F(PlanKeyOnLoad, CopiesUnderMadeUpKeysNeverReachTheSharedSegment) {
  const NewPlan good = RowOf(PlanStartingWith(OpKind::kExp));
  Insert(good);
  for (uint64_t n = 1; n <= 50; ++n) {
    NewPlan copy = good;
    copy.plan_key = test::Key(n);
    Insert(copy);
  }
  std::unique_ptr<PersistentPlans> plans = OpenPlans(/*shm=*/true);
  ASSERT_NE(plans, nullptr);
  ASSERT_NE(plans->shared_tier(), nullptr);
  EXPECT_EQ(LoadExp(*plans), 1u);
  EXPECT_EQ(plans->counters().rows_quarantined, 50u);
  std::vector<SharedPlanTier::Entry> entries;
  ASSERT_TRUE(plans->shared_tier()->Lookup(good.first_op_hash, &entries).ok());
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].key, good.plan_key);
}

TEST_F(PlanKeyOnLoad, ASegmentEntryUnderAnotherKeyIsIgnoredAndSaid) {
  const ExecutionPlan plan = PlanStartingWith(OpKind::kExp);
  std::unique_ptr<SharedPlanTier> tier;
  ASSERT_TRUE(SharedPlanTier::Open({.database_path = db_,
                                    .environment = EnvironmentStableId(test::SampleEnvironment()),
                                    .bytes = uint64_t{4} << 20},
                                   &tier)
                  .ok());
  ASSERT_EQ(tier->Publish(FirstOpHash(plan.operations), test::Key(3), EncodePlan(plan)),
            SharedPlanTier::PublishOutcome::kPublished);

  ScopedLogCapture log(LogLevel::kBasic);
  std::unique_ptr<PersistentPlans> plans = OpenPlans(/*shm=*/true);
  ASSERT_NE(plans, nullptr);
  EXPECT_EQ(LoadExp(*plans), 0u);
  EXPECT_THAT(log.messages(), Contains(HasSubstr("not its ops'")));
}

TEST_F(PlanKeyOnLoad, AtMostTheBoundOfPlansOfOneFirstOpIsLoadedAndTheCutIsSaidOnce) {
  for (OpKind second : {OpKind::kTanh, OpKind::kSqrt, OpKind::kSin, OpKind::kNeg}) {
    Insert(RowOf(ExpThen(second)));
  }
  ScopedLogCapture log(LogLevel::kBasic);
  std::unique_ptr<PersistentPlans> plans = OpenPlans(/*shm=*/false, /*bound=*/2);
  ASSERT_NE(plans, nullptr);
  EXPECT_EQ(LoadExp(*plans), 2u);
  EXPECT_EQ(plans->counters().rows_quarantined, 0u);
  size_t said = 0;
  for (const std::string& m : log.messages()) {
    if (m.find("were left out") == std::string::npos) continue;
    ++said;
    EXPECT_THAT(m, HasSubstr("more than 2 stored plans; the rest, from"));
  }
  EXPECT_EQ(said, 1u);
  EXPECT_EQ(kMaxPlansPerFirstOp, 1024u);  // the documented bound
}

}  // namespace
}  // namespace ember

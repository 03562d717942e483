// The plan database's part in explaining misses, on every backend (store/repository/
// plan_repository_misses.cpp; Note [Explaining a miss]): plans found by their first op's kind
// with the dims they were found with, and a workload's misses counted by pattern.
#include <span>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/ir/builders.h"
#include "store/codec/plan_codec.h"
#include "tests/common/ir_builders.h"
#include "tests/store/repository_backends.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::OnSync;
using sqlite_test::SamplePlan;
using testing::ElementsAre;
using testing::IsEmpty;
using testing::SizeIs;

class MissRecords : public test::BackendFixture {
 protected:
  std::vector<PlanRowId> Publish(std::vector<PublishItem> items) {
    PublishBatch batch{.environment_id = env_, .plans = std::move(items)};
    PublishResult result;
    const Status s = repo_->Publish(batch, &result);
    EXPECT_TRUE(s.ok()) << s.ToString();
    std::vector<PlanRowId> ids;
    for (const InsertResult& r : result.plans) ids.push_back(r.plan_id);
    return ids;
  }
  LoadedPlans ByKind(int kind, size_t limit = 32, std::optional<EnvironmentRowId> env = {}) {
    LoadedPlans loaded;
    const Status s = repo_->LoadPlansByFirstKind(env.value_or(env_), kind, limit, &loaded);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return loaded;
  }
  WorkloadRowId Workload(const std::string& name = "w") {
    WorkloadRow row;
    EXPECT_TRUE(repo_->GetOrCreateWorkload(env_, name, &row).ok());
    return row.id;
  }
  std::vector<WorkloadMiss> Misses(std::optional<WorkloadRowId> workload) {
    std::vector<WorkloadMiss> out;
    const Status s = repo_->ListMisses(workload, &out);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }
};

NewPlan WithKind(uint64_t n, int kind, std::vector<int64_t> dims = {}) {
  NewPlan plan = SamplePlan(n);
  plan.first_op_kind = kind;
  plan.found_dims = std::move(dims);
  return plan;
}

TEST_P(MissRecords, PlansAreFoundByTheirFirstOpKindNewestFirstWithTheirDims) {
  const std::vector<PlanRowId> ids = Publish({{WithKind(1, 3, {1, 64}), {OnSync()}, {}},
                                              {WithKind(2, 3), {}, {}},
                                              {WithKind(3, 4), {}, {}}});
  const LoadedPlans mul = ByKind(3);
  ASSERT_THAT(mul.plans, SizeIs(2));
  EXPECT_EQ(mul.plans[0].id, ids[1]);
  EXPECT_EQ(mul.plans[1].id, ids[0]);
  EXPECT_THAT(mul.plans[1].found_dims, ElementsAre(1, 64));
  EXPECT_THAT(mul.plans[1].triggers, ElementsAre(OnSync()));
  EXPECT_THAT(mul.plans[0].found_dims, IsEmpty());
  EXPECT_THAT(ByKind(3, /*limit=*/1).plans, SizeIs(1));
  EXPECT_THAT(ByKind(4).plans, SizeIs(1));
  EXPECT_THAT(ByKind(5).plans, IsEmpty());
}

TEST_P(MissRecords, TheKindIsTakenFromTheOpsWhenThePublicationDoesNotSayIt) {
  const std::vector<OperationIr> ops = {ir::Unary(OpKind::kExp, test::Rw(1), test::Out(2))};
  NewPlan plan = SamplePlan(1);
  plan.ops_blob = EncodeOperations(ops);
  Publish({{plan, {}, {}}, {SamplePlan(2), {}, {}}});  // "ops-2" does not decode: no kind
  const LoadedPlans exp = ByKind(static_cast<int>(OpKind::kExp));
  ASSERT_THAT(exp.plans, SizeIs(1));
  EXPECT_EQ(exp.plans[0].ops_blob, plan.ops_blob);
  EXPECT_EQ(Raw("SELECT CAST(count(*) AS TEXT) FROM plans WHERE first_op_kind IS NULL"), "1");
}

TEST_P(MissRecords, MissesAddUpByPatternKeepTheLatestDetailAndMergeValues) {
  const WorkloadRowId w = Workload();
  WorkloadMiss miss{.pattern = 0x8000000000000001ull,  // the high bit round-trips
                    .cause = "shape",
                    .op_position = 0,
                    .op_name = "NumericFloat::Mul",
                    .nearest_plan = "stored plan 1",
                    .detail = "first",
                    .count = 2,
                    .values = {32, 48}};
  ASSERT_TRUE(repo_->RecordMisses(w, std::span(&miss, 1)).ok());
  miss.detail = "second";
  miss.count = 3;
  miss.values = {48, 17};
  WorkloadMiss other{.pattern = 7, .cause = "status", .op_position = 3, .detail = "x", .count = 1};
  const std::vector<WorkloadMiss> both = {miss, other};
  ASSERT_TRUE(repo_->RecordMisses(w, both).ok());
  Reopen();
  const std::vector<WorkloadMiss> rows = Misses(w);
  ASSERT_THAT(rows, SizeIs(2));
  EXPECT_EQ(rows[0].pattern, 0x8000000000000001ull);
  EXPECT_EQ(rows[0].count, 5);
  EXPECT_EQ(rows[0].first_detail, "first");
  EXPECT_EQ(rows[0].detail, "second");
  EXPECT_THAT(rows[0].values, ElementsAre(32, 48, 17));
  EXPECT_EQ(rows[0].cause, "shape");
  EXPECT_EQ(rows[0].workload_id, w);
  EXPECT_GT(rows[0].last_seen, 0);
  EXPECT_EQ(rows[1].cause, "status");
  EXPECT_EQ(rows[1].op_position, 3);
  EXPECT_THAT(Misses(Workload("other")), IsEmpty());
  EXPECT_THAT(Misses(std::nullopt), SizeIs(2));
}

TEST_P(MissRecords, SeenValuesStayBounded) {
  const WorkloadRowId w = Workload();
  for (int64_t step = 0; step < 50; ++step) {
    const WorkloadMiss miss{
        .pattern = 1, .cause = "shape", .detail = "d", .count = 1, .values = {100 + step}};
    ASSERT_TRUE(repo_->RecordMisses(w, std::span(&miss, 1)).ok());
  }
  const std::vector<WorkloadMiss> rows = Misses(w);
  ASSERT_THAT(rows, SizeIs(1));
  EXPECT_EQ(rows[0].count, 50);
  EXPECT_THAT(rows[0].values, SizeIs(WorkloadMiss::kMaxMissValues));
}

TEST_P(MissRecords, AReadOnlyDatabaseRefusesMissesAndChangesNothing) {
  const WorkloadRowId w = Workload();
  auto reader = Open(/*read_only=*/true);
  ASSERT_NE(reader, nullptr);
  const WorkloadMiss miss{.pattern = 1, .cause = "shape", .detail = "d", .count = 1};
  const Status s = reader->RecordMisses(w, std::span(&miss, 1));
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(Misses(w), IsEmpty());
}

EMBER_ON_EVERY_BACKEND(MissRecords);

}  // namespace
}  // namespace ember

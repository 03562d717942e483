// A read of one first op's plans is bounded (Note [Plans per first op], store/persistent_plans.h;
// issue 40, item 6): LoadPlansByFirstOp reads at most `limit` rows, the first by id, each with
// all its triggers and no trigger of a row it did not read, on both databases.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "tests/store/repository_backends.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::OnOps;
using sqlite_test::SamplePlan;

class LoadLimit : public test::BackendFixture {
 protected:
  // Five plans of first op 7, each with two triggers; their ids in order.
  std::vector<PlanRowId> InsertFive() {
    std::vector<PlanRowId> ids;
    for (uint64_t n = 1; n <= 5; ++n) {
      InsertResult result;
      EXPECT_TRUE(repo_->InsertPlan(env_, SamplePlan(n), &result).ok());
      size_t added = 0;
      EXPECT_TRUE(
          repo_->AppendTriggers(result.plan_id, std::vector{OnOps("a"), OnOps("b")}, &added).ok());
      ids.push_back(result.plan_id);
    }
    return ids;
  }
  LoadedPlans Load(size_t limit) {
    LoadedPlans loaded;
    const Status s = repo_->LoadPlansByFirstOp(env_, 7, &loaded, limit);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return loaded;
  }
};
EMBER_ON_EVERY_BACKEND(LoadLimit);

TEST_P(LoadLimit, AtMostTheLimitOfRowsIsReadFirstByIdWithTheirTriggers) {
  const std::vector<PlanRowId> ids = InsertFive();
  const LoadedPlans three = Load(3);
  ASSERT_EQ(three.plans.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(three.plans[i].id, ids[i]);
    EXPECT_EQ(three.plans[i].triggers.size(), 2u) << "plan " << ids[i];
  }
  EXPECT_EQ(Load(PlanRepository::kAllRows).plans.size(), 5u);
  EXPECT_EQ(Load(5).plans.size(), 5u);
  EXPECT_EQ(Load(1).plans.size(), 1u);
}

TEST_P(LoadLimit, ADamagedRowCountsTowardTheLimit) {
  const std::vector<PlanRowId> ids = InsertFive();
  RawExec("UPDATE plans SET checksum = checksum + 1 WHERE id = " + std::to_string(ids[0]));
  const LoadedPlans two = Load(2);
  ASSERT_EQ(two.plans.size(), 1u);
  EXPECT_EQ(two.plans[0].id, ids[1]);
  EXPECT_EQ(two.plans[0].triggers.size(), 2u);
}

}  // namespace
}  // namespace ember

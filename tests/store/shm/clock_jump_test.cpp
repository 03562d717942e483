// The fault matrix's clock rows (issue 20): the wall clock stepped forward or back (an NTP
// step, a corrected RTC), played with WallClockOffsetForTesting (engine/core/clock.h). A claim
// in the shared segment expires on the host's monotonic clock, so a step neither frees every
// claim at once nor makes a stuck claimer's claim last for as long as the step; a plan's
// last_hit never moves back, so a step back does not make used plans look old to `ember-plans
// gc --older-than`.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>

#include "engine/core/clock.h"
#include "tests/store/shm_test_util.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

constexpr int64_t kDay = int64_t{24} * 3600 * 1000;

// Sets the wall-clock offset for its lifetime.
class ClockStep {
 public:
  explicit ClockStep(int64_t ms) { WallClockOffsetForTesting().store(ms); }
  ~ClockStep() { WallClockOffsetForTesting().store(0); }
  ClockStep(const ClockStep&) = delete;
  ClockStep& operator=(const ClockStep&) = delete;
};

class ClockJumps : public test::ShmFixture {};

TEST_F(ClockJumps, AClaimOutlivesAWallClockStepEitherWayAndEndsWhenReleased) {
  auto owner = OpenTier();
  ASSERT_EQ(owner->Claim(5), SharedPlanTier::ClaimOutcome::kMine);
  for (const int64_t step : {kDay, -kDay}) {
    // A sibling whose wall clock stepped still sees the live claim.
    const pid_t child = test::ForkCheck([&] {
      WallClockOffsetForTesting().store(step);
      auto sibling = OpenTier();
      return sibling != nullptr && sibling->Claim(5) == SharedPlanTier::ClaimOutcome::kOther;
    });
    EXPECT_EQ(test::WaitChild(child), 0) << "step " << step << " ms";
  }
  owner->Release(5);
  const pid_t child = test::ForkCheck([&] {
    WallClockOffsetForTesting().store(-kDay);
    auto sibling = OpenTier();
    return sibling != nullptr && sibling->Claim(5) == SharedPlanTier::ClaimOutcome::kMine;
  });
  EXPECT_EQ(test::WaitChild(child), 0);
}

TEST(ClockJumpsDatabase, ALastHitNeverMovesBackWhenTheWallClockStepsBack) {
  sqlite_test::TempDir dir;
  const std::string path = dir.File("plans.db");
  std::unique_ptr<SqlitePlanRepository> repo = test::OpenRepository(path);
  EnvironmentRowId environment = 0;
  ASSERT_TRUE(repo->EnsureEnvironment(test::SampleEnvironment(), &environment).ok());
  WorkloadRow workload;
  ASSERT_TRUE(repo->GetOrCreateWorkload(environment, "serve", &workload).ok());
  InsertResult inserted;
  ASSERT_TRUE(repo->InsertPlan(environment, sqlite_test::SamplePlan(1), &inserted).ok());
  const std::pair<PlanRowId, int64_t> one_hit[] = {{inserted.plan_id, 1}};
  ASSERT_TRUE(repo->RecordHitCounts(one_hit, workload.id).ok());
  sqlite_test::RawDb raw(path);
  const std::string id = std::to_string(inserted.plan_id);
  const int64_t before = raw.Int("SELECT last_hit FROM plans WHERE id = " + id);
  const int64_t usage_before = raw.Int("SELECT last_hit FROM plan_usage WHERE plan_id = " + id);
  EXPECT_NEAR(static_cast<double>(before), static_cast<double>(NowUnixMillis()), 60000.0);
  {
    ClockStep back(-kDay);
    ASSERT_TRUE(repo->RecordHitCounts(one_hit, workload.id).ok());
  }
  EXPECT_EQ(raw.Int("SELECT hits FROM plans WHERE id = " + id), 2);
  EXPECT_EQ(raw.Int("SELECT last_hit FROM plans WHERE id = " + id), before);
  EXPECT_EQ(raw.Int("SELECT last_hit FROM plan_usage WHERE plan_id = " + id), usage_before);
  {
    ClockStep forward(kDay);
    ASSERT_TRUE(repo->RecordHitCounts(one_hit, workload.id).ok());
  }
  EXPECT_GE(raw.Int("SELECT last_hit FROM plans WHERE id = " + id), before + kDay - 1000);
}

}  // namespace
}  // namespace ember

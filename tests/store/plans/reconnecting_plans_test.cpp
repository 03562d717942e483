// ReconnectingPlans (store/reconnecting_plans.h) while its server never answers: the process
// runs from memory, the workload's cap is counted in the process, a sync waits for nothing, and
// at exit it says how many plans it could not store. The way back to a server that returns is
// PostgresFleet.AHostStartedWhileTheServerIsDownStoresItsPlansOnceItIsBack.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/core/log.h"
#include "store/reconnecting_plans.h"
#include "tests/common/repository_fixture.h"

namespace ember {
namespace {

using testing::HasSubstr;

PersistentPlansOptions Unreachable() {
  return {.path = "postgresql://ember:hunter2@127.0.0.1:1/plans?connect_timeout=1",
          .environment = test::SampleEnvironment(),
          .workload = "train",
          .max_explorations = 2};
}

std::string AllOf(const ScopedLogCapture& capture) {
  std::string text;
  for (const std::string& m : capture.messages()) text += m + "\n";
  return text;
}

TEST(ReconnectingPlans, WithoutItsServerItRunsFromMemoryCountsTheCapAndSaysWhatWasNotStored) {
  ScopedLogCapture capture;
  ReconnectingPlans plans(Unreachable(), Status::Unavailable("no connection to the server"));
  EXPECT_THAT(AllOf(capture), HasSubstr("connects again with backoff"));
  EXPECT_EQ(plans.Generation(), 0u);
  size_t added = 0;
  plans.Load(OperationIr(), [&](ExecutionPlan) { return static_cast<PlanId>(added++); });
  EXPECT_EQ(added, 0u);  // nothing to read from
  EXPECT_TRUE(plans.ExplorationAllowed());
  plans.OnExploration();
  EXPECT_TRUE(plans.ExplorationAllowed());
  plans.OnExploration();
  EXPECT_FALSE(plans.ExplorationAllowed());  // the configured cap, counted here
  plans.OnPlanAdded(0, ExecutionPlan(), 1.5);
  plans.OnHit(0);
  plans.FlushForSync();  // returns: there is nothing to wait for
  EXPECT_EQ(plans.counters().plans_published, 0u);
  EXPECT_FALSE(plans.connected());
  plans.Close();
  const std::string log = AllOf(capture);
  EXPECT_THAT(log, HasSubstr("never reachable; the 1 plan(s) this process found were not stored"));
  EXPECT_THAT(log, testing::Not(HasSubstr("hunter2")));
}

}  // namespace
}  // namespace ember

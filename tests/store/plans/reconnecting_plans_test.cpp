// ReconnectingPlans (store/reconnecting_plans.h) while its server never answers: the process
// runs from memory, the workload's cap is counted in the process, a sync waits for nothing, and
// at exit it says how many plans it could not store; device facts and graph recipes are kept in
// memory meanwhile and handed to the database's store once it answers. The way back to a server
// that returns is PostgresFleet.AHostStartedWhileTheServerIsDownStoresItsPlansOnceItIsBack.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "engine/core/log.h"
#include "store/reconnecting_plans.h"
#include "tests/common/repository_fixture.h"
#include "tests/common/temp_dir.h"
#include "tests/store/sample_recipes.h"

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

// Device facts: kept in memory while the database is out of reach, handed to the database's
// store once it answers (here a file, which answers at the first retry), and found there by the
// next process.
TEST(ReconnectingPlans, FactsRememberedMeanwhileReachTheDatabaseOnceItAnswers) {
  test::TempDir dir;
  PersistentPlansOptions options{
      .path = dir.File("plans.db"), .environment = test::SampleEnvironment(), .workload = "w"};
  {
    ScopedLogCapture capture;
    ReconnectingPlans plans(options, Status::Unavailable("not there yet"));
    DeviceFactStore* facts = plans.AttachFacts();
    ASSERT_NE(facts, nullptr);
    facts->Remember("epilogue/a", "cublaslt 1 2");
    facts->Remember(std::string(DeviceFactStore::kMaxNameBytes + 1, 'n'), "not kept");
    EXPECT_THAT(facts->Find("epilogue/a"), testing::Optional(std::string("cublaslt 1 2")));
    EXPECT_EQ(facts->Find(std::string(DeviceFactStore::kMaxNameBytes + 1, 'n')), std::nullopt);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (plans.Generation() == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_TRUE(plans.connected());
    EXPECT_THAT(facts->Find("epilogue/a"), testing::Optional(std::string("cublaslt 1 2")));
    facts->Remember("epilogue/b", "cublas 3 4");
    plans.Close();
  }
  std::unique_ptr<PersistentPlans> next;
  ASSERT_TRUE(PersistentPlans::Open(options, &next).ok());
  EXPECT_THAT(next->AttachFacts()->Find("epilogue/a"),
              testing::Optional(std::string("cublaslt 1 2")));
  EXPECT_THAT(next->AttachFacts()->Find("epilogue/b"),
              testing::Optional(std::string("cublas 3 4")));
  next->Close();
}

TEST(ReconnectingPlans, WithoutItsServerFactsStayInMemory) {
  ScopedLogCapture capture;
  ReconnectingPlans plans(Unreachable(), Status::Unavailable("no connection to the server"));
  plans.AttachFacts()->Remember("epilogue/a", "cublaslt 1 2");
  EXPECT_THAT(plans.AttachFacts()->Find("epilogue/a"),
              testing::Optional(std::string("cublaslt 1 2")));
  EXPECT_EQ(plans.AttachFacts()->Find("epilogue/b"), std::nullopt);
  plans.Close();
}

// Graph recipes, like facts: remembered in memory while the database is out of reach (what the
// store would refuse is not), handed over once it answers, and loaded by the next process.
TEST(ReconnectingPlans, RecipesRememberedMeanwhileReachTheDatabaseOnceItAnswers) {
  test::TempDir dir;
  PersistentPlansOptions options{
      .path = dir.File("plans.db"), .environment = test::SampleEnvironment(), .workload = "w"};
  const GraphRecipe a = test::SampleRecipe({1, 2});
  const GraphRecipe b = test::SampleRecipe({3});
  {
    ScopedLogCapture capture;
    ReconnectingPlans plans(options, Status::Unavailable("not there yet"));
    GraphRecipeStore* recipes = plans.AttachRecipes();
    ASSERT_NE(recipes, nullptr);
    recipes->Remember(a);
    recipes->Remember({.key = 1, .body = "not a tape\n", .kernels = {}});
    EXPECT_THAT(recipes->LoadAll(), testing::ElementsAre(a));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (plans.Generation() == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_TRUE(plans.connected());
    EXPECT_THAT(recipes->LoadAll(), testing::ElementsAre(a));
    recipes->Remember(b);
    plans.Close();
  }
  std::unique_ptr<PersistentPlans> next;
  ASSERT_TRUE(PersistentPlans::Open(options, &next).ok());
  EXPECT_THAT(next->AttachRecipes()->LoadAll(), testing::UnorderedElementsAre(a, b));
  next->Close();
}

TEST(ReconnectingPlans, WithoutItsServerRecipesStayInMemory) {
  ScopedLogCapture capture;
  ReconnectingPlans plans(Unreachable(), Status::Unavailable("no connection to the server"));
  const GraphRecipe a = test::SampleRecipe({1});
  plans.AttachRecipes()->Remember(a);
  EXPECT_THAT(plans.AttachRecipes()->LoadAll(), testing::ElementsAre(a));
  plans.Close();
}

}  // namespace
}  // namespace ember

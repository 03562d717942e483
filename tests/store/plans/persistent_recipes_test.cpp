// Graph recipes through PersistentPlans as the engine drives it (Note [Graph recipes],
// store/persistent_recipes.h), on a real SQLite file: what one process remembers the next one
// loads, the database is read once, damaged and forged rows and segment entries are never
// returned, what the engine would not use is not stored, siblings share recipes through the
// segment before the database has them, a read-only database keeps new ones in memory, and
// Remember never waits for a locked database.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "store/codec/row_checksum.h"
#include "store/persistent_plans.h"
#include "store/repository/column_encoding.h"
#include "store/shm/shared_segment.h"
#include "tests/store/sample_recipes.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::RawDb;
using sqlite_test::TempDir;
using test::ForkChild;
using test::SampleEnvironment;
using test::SampleRecipe;
using test::WaitChild;
using testing::ElementsAre;
using testing::IsEmpty;

const GraphRecipe kRecipe = SampleRecipe({0x11, 0x22});
const GraphRecipe kOther = SampleRecipe({0x33}, 8);

class PersistentRecipesTest : public testing::Test {
 protected:
  void TearDown() override { (void)SharedSegment::RemoveAll(path_); }

  std::unique_ptr<PersistentPlans> Open(bool shm = false, std::string workload = "train") {
    std::unique_ptr<PersistentPlans> plans;
    const Status s = PersistentPlans::Open({.path = path_,
                                            .environment = SampleEnvironment(),
                                            .workload = std::move(workload),
                                            .shm = shm,
                                            .shm_bytes = 1 << 20},
                                           &plans);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return plans;
  }
  void RememberAndClose(std::initializer_list<GraphRecipe> recipes) {
    auto plans = Open();
    ASSERT_NE(plans, nullptr);
    for (const GraphRecipe& r : recipes) plans->AttachRecipes()->Remember(r);
    plans->Close();
  }
  static PersistentRecipes& RecipesOf(PersistentPlans& plans) {
    return *static_cast<PersistentRecipes*>(plans.AttachRecipes());
  }

  TempDir dir_;
  const std::string path_ = dir_.File("plans.db");
};

TEST_F(PersistentRecipesTest, ARecipeAnotherProcessRememberedIsLoadedByTheNext) {
  const pid_t child = ForkChild([&] {
    std::unique_ptr<PersistentPlans> plans;
    if (!PersistentPlans::Open(
             {.path = path_, .environment = SampleEnvironment(), .workload = "train"}, &plans)
             .ok()) {
      return 1;
    }
    plans->AttachRecipes()->LoadAll();
    plans->AttachRecipes()->Remember(kRecipe);
    plans->Close();
    return 0;
  });
  ASSERT_EQ(WaitChild(child), 0);
  EXPECT_EQ(RawDb(path_).Text("SELECT workload FROM graph_recipes"), "train");
  auto plans = Open();
  EXPECT_THAT(plans->AttachRecipes()->LoadAll(), ElementsAre(kRecipe));
  EXPECT_EQ(RecipesOf(*plans).reads(), 1u);
  // Another workload never sees it.
  auto other = Open(false, "serve");
  EXPECT_THAT(other->AttachRecipes()->LoadAll(), IsEmpty());
}

TEST_F(PersistentRecipesTest, TheDatabaseIsReadOnceAndWhatIsRememberedIsKept) {
  RememberAndClose({kRecipe});
  auto plans = Open();
  GraphRecipeStore& store = *plans->AttachRecipes();
  EXPECT_EQ(RecipesOf(*plans).reads(), 0u);  // nothing read before LoadAll
  EXPECT_THAT(store.LoadAll(), ElementsAre(kRecipe));
  store.Remember(kOther);
  EXPECT_EQ(store.LoadAll().size(), 2u);
  EXPECT_EQ(RecipesOf(*plans).reads(), 1u);
  plans->Close();
  EXPECT_EQ(RawDb(path_).Int("SELECT count(*) FROM graph_recipes"), 2);
}

TEST_F(PersistentRecipesTest, DamagedAndForgedRowsAreNeverReturned) {
  RememberAndClose({kRecipe, kOther});
  {
    RawDb raw(path_);
    raw.Exec("UPDATE graph_recipes SET checksum = checksum + 1 WHERE key = " +
             std::to_string(ToColumn(kRecipe.key)));
    // A forger's row: its checksum recomputed, its body no tape.
    const std::string body = "ember-graph-tape 1\nnot a launch\n";
    raw.Exec(fmt::format("UPDATE graph_recipes SET body = '{}', checksum = {} WHERE key = {}", body,
                         ToColumn(GraphRecipeChecksum(kOther.key, body, kOther.kernels)),
                         ToColumn(kOther.key)));
  }
  {
    auto plans = Open();
    EXPECT_THAT(plans->AttachRecipes()->LoadAll(), IsEmpty());
    EXPECT_EQ(RecipesOf(*plans).damaged(), 1u);
    EXPECT_EQ(RecipesOf(*plans).refused(), 1u);
    plans->AttachRecipes()->Remember(kRecipe);  // captured again: the row is replaced
    plans->Close();
  }
  auto plans = Open();
  EXPECT_THAT(plans->AttachRecipes()->LoadAll(), ElementsAre(kRecipe));
}

TEST_F(PersistentRecipesTest, WhatTheEngineWouldNotUseIsNotStored) {
  GraphRecipe too_long = kRecipe;
  too_long.body.append(GraphRecipeStore::kMaxBodyBytes, '0');
  const GraphRecipe not_a_tape{.key = 5, .body = "five\n", .kernels = {}};
  {
    auto plans = Open();
    GraphRecipeStore& store = *plans->AttachRecipes();
    store.Remember(too_long);
    store.Remember(not_a_tape);
    EXPECT_THAT(store.LoadAll(), IsEmpty());
    plans->Close();
  }
  EXPECT_EQ(RawDb(path_).Int("SELECT count(*) FROM graph_recipes"), 0);
}

TEST_F(PersistentRecipesTest, SiblingsShareRecipesThroughTheSegmentBeforeTheDatabaseHasThem) {
  auto first = Open(/*shm=*/true);
  auto second = Open(/*shm=*/true);
  auto third = Open(/*shm=*/true);
  ASSERT_NE(first->shared_tier(), nullptr);
  {
    RawDb raw(path_);
    raw.Exec("BEGIN IMMEDIATE");  // the first's writer cannot commit meanwhile
    first->AttachRecipes()->Remember(kRecipe);
    EXPECT_THAT(second->AttachRecipes()->LoadAll(), ElementsAre(kRecipe));
    EXPECT_EQ(RawDb(path_).Int("SELECT count(*) FROM graph_recipes"), 0);
    // A forged entry in the segment is judged like a row.
    second->shared_tier()->PublishRecipe("train", {.key = 9, .body = "x\n", .kernels = {}});
    EXPECT_THAT(third->AttachRecipes()->LoadAll(), ElementsAre(kRecipe));
    EXPECT_EQ(RecipesOf(*third).refused(), 1u);
    raw.Exec("COMMIT");
    second->Close();
    third->Close();
  }
  first->Close();
  EXPECT_EQ(RawDb(path_).Int("SELECT count(*) FROM graph_recipes"), 1);
}

TEST_F(PersistentRecipesTest, AReadOnlyDatabaseServesItsRecipesAndKeepsNewOnesInMemory) {
  RememberAndClose({kRecipe});
  RawDb(path_).Exec("INSERT INTO schema_migrations VALUES (99, 'from_the_future', 0)");
  {
    auto plans = Open();
    GraphRecipeStore& store = *plans->AttachRecipes();
    EXPECT_THAT(store.LoadAll(), ElementsAre(kRecipe));
    store.Remember(kOther);
    EXPECT_EQ(store.LoadAll().size(), 2u);
    plans->Close();
  }
  EXPECT_EQ(RawDb(path_).Int("SELECT count(*) FROM graph_recipes"), 1);
}

TEST_F(PersistentRecipesTest, RememberNeverWaitsForALockedDatabase) {
  auto plans = Open();
  GraphRecipeStore& store = *plans->AttachRecipes();
  EXPECT_THAT(store.LoadAll(), IsEmpty());
  {
    RawDb raw(path_);
    raw.Exec("BEGIN IMMEDIATE");
    const auto start = std::chrono::steady_clock::now();
    store.Remember(kRecipe);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(100));
    raw.Exec("COMMIT");
  }
  plans->Flush();
  EXPECT_EQ(RawDb(path_).Int("SELECT count(*) FROM graph_recipes"), 1);
  plans->Close();
}

}  // namespace
}  // namespace ember

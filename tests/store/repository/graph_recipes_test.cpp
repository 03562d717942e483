// Graph recipes on every backend (table graph_recipes, schema 6; Note [Graph recipes] in
// store/persistent_recipes.h): a recipe round-trips and a new one of its key replaces it,
// recipes are scoped by environment and workload and go with their environment, a row whose
// checksum fails or whose body is forged is counted and never returned, what the engine would
// not use is refused, a read-only repository stores nothing, and two processes (PersistentPlans
// in forked children) share recipes through the database.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store/codec/row_checksum.h"
#include "store/persistent_plans.h"
#include "store/repository/column_encoding.h"
#include "tests/common/process.h"
#include "tests/store/repository_backends.h"
#include "tests/store/sample_recipes.h"

namespace ember {
namespace {

using test::SampleEnvironment;
using test::SampleRecipe;
using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;
using testing::UnorderedElementsAre;

const GraphRecipe kRecipe = SampleRecipe({0x11, 0x22, 0x11});
const GraphRecipe kOther = SampleRecipe({0x33}, 8);

class GraphRecipes : public test::BackendFixture {
 protected:
  LoadedGraphRecipes Load(EnvironmentRowId env, std::string_view workload = "train") {
    LoadedGraphRecipes loaded;
    const Status s = repo_->LoadGraphRecipes(env, workload, &loaded);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return loaded;
  }
  void Put(EnvironmentRowId env, const GraphRecipe& recipe, std::string_view workload = "train") {
    const Status s = repo_->PutGraphRecipe(env, workload, recipe);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  int64_t Rows() { return std::stoll(Raw("SELECT CAST(count(*) AS TEXT) FROM graph_recipes")); }
  // Sets the row of `recipe`'s key to `body` and `kernels`, with a checksum that matches them
  // (a forger's row).
  void Forge(const GraphRecipe& recipe, const std::string& body,
             const std::vector<uint64_t>& kernels) {
    RawExec(fmt::format(
        "UPDATE graph_recipes SET body = '{}', kernels = '{}', checksum = {} "
        "WHERE key = {}",
        body, RecipeKernelsColumn(kernels),
        ToColumn(GraphRecipeChecksum(recipe.key, body, kernels)), ToColumn(recipe.key)));
  }
  PersistentPlansOptions PlansOptions() const {
    return {.path = location_, .environment = SampleEnvironment(), .workload = "train"};
  }
};
EMBER_ON_EVERY_BACKEND(GraphRecipes);

TEST_P(GraphRecipes, ARecipeRoundTripsAndANewOneOfItsKeyReplacesIt) {
  Put(env_, kRecipe);
  Put(env_, kOther);
  Reopen();
  LoadedGraphRecipes loaded = Load(env_);
  EXPECT_THAT(loaded.recipes, UnorderedElementsAre(kRecipe, kOther));
  EXPECT_EQ(loaded.damaged + loaded.refused, 0u);
  EXPECT_EQ(
      Raw(fmt::format("SELECT kernels FROM graph_recipes WHERE key = {}", ToColumn(kRecipe.key))),
      "0000000000000011 0000000000000022");
  EXPECT_EQ(
      Raw(fmt::format("SELECT CAST(checksum AS TEXT) FROM graph_recipes WHERE key = {}",
                      ToColumn(kRecipe.key))),
      std::to_string(ToColumn(GraphRecipeChecksum(kRecipe.key, kRecipe.body, kRecipe.kernels))));
  Put(env_, kRecipe);  // the same key again: one row, updated
  EXPECT_EQ(Rows(), 2);
}

TEST_P(GraphRecipes, RecipesAreScopedByEnvironmentAndWorkloadAndGoWithTheEnvironment) {
  EnvironmentRowId other = 0;
  ASSERT_TRUE(repo_->EnsureEnvironment(SampleEnvironment("Other GPU"), &other).ok());
  Put(env_, kRecipe);
  Put(env_, kOther, "serve");
  Put(other, kOther);
  EXPECT_THAT(Load(env_).recipes, ElementsAre(kRecipe));
  EXPECT_THAT(Load(env_, "serve").recipes, ElementsAre(kOther));
  EXPECT_THAT(Load(other).recipes, ElementsAre(kOther));
  EXPECT_THAT(Load(other, "serve").recipes, IsEmpty());
  RawExec("DELETE FROM environments WHERE id = " + std::to_string(other));
  EXPECT_EQ(Rows(), 2);
}

TEST_P(GraphRecipes, ADamagedRowIsCountedAndNeverReturned) {
  Put(env_, kRecipe);
  Put(env_, kOther);
  RawExec(fmt::format("UPDATE graph_recipes SET body = body || ' ' WHERE key = {}",
                      ToColumn(kRecipe.key)));
  LoadedGraphRecipes loaded = Load(env_);
  EXPECT_THAT(loaded.recipes, ElementsAre(kOther));
  EXPECT_EQ(loaded.damaged, 1u);
  // A kernel list that does not parse is damage too.
  RawExec(
      fmt::format("UPDATE graph_recipes SET kernels = 'zz' WHERE key = {}", ToColumn(kOther.key)));
  loaded = Load(env_);
  EXPECT_THAT(loaded.recipes, IsEmpty());
  EXPECT_EQ(loaded.damaged, 2u);
  // The next recipe of the key replaces the damaged row.
  Put(env_, kRecipe);
  EXPECT_THAT(Load(env_).recipes, ElementsAre(kRecipe));
}

// Rows with a matching checksum whose content the engine would not use: a body that is no
// tape, a key that is not the body's hash, a kernel list that is not the body's.
TEST_P(GraphRecipes, AForgedRowWithAMatchingChecksumIsRefused) {
  Put(env_, kRecipe);
  Forge(kRecipe, "not a tape\n", kRecipe.kernels);
  LoadedGraphRecipes loaded = Load(env_);
  EXPECT_THAT(loaded.recipes, IsEmpty());
  EXPECT_EQ(loaded.refused, 1u);
  Forge(kRecipe, kOther.body, kOther.kernels);  // another tape under this key
  EXPECT_EQ(Load(env_).refused, 1u);
  Forge(kRecipe, kRecipe.body, {0x11});  // a kernel left out of the list
  EXPECT_EQ(Load(env_).refused, 1u);
  Forge(kRecipe, kRecipe.body, kRecipe.kernels);  // the real one again
  EXPECT_THAT(Load(env_).recipes, ElementsAre(kRecipe));
}

TEST_P(GraphRecipes, WhatTheEngineWouldNotUseIsRefusedAndNothingIsWritten) {
  GraphRecipe long_body = kRecipe;
  long_body.body.append(GraphRecipeStore::kMaxBodyBytes, '0');
  GraphRecipe wrong_key = kRecipe;
  wrong_key.key ^= 1;
  GraphRecipe wrong_kernels = kRecipe;
  wrong_kernels.kernels.pop_back();
  const GraphRecipe not_a_tape{.key = 1, .body = "hello\n", .kernels = {}};
  for (const GraphRecipe& refused : {long_body, wrong_key, wrong_kernels, not_a_tape}) {
    const Status s = repo_->PutGraphRecipe(env_, "train", refused);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  }
  EXPECT_EQ(repo_->PutGraphRecipe(env_, "bad\xff", kRecipe).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(Rows(), 0);
}

TEST_P(GraphRecipes, AReadOnlyRepositoryReadsRecipesAndStoresNone) {
  Put(env_, kRecipe);
  std::unique_ptr<PlanRepository> reader = Open(/*read_only=*/true);
  ASSERT_NE(reader, nullptr);
  LoadedGraphRecipes loaded;
  ASSERT_TRUE(reader->LoadGraphRecipes(env_, "train", &loaded).ok());
  EXPECT_THAT(loaded.recipes, ElementsAre(kRecipe));
  const Status s = reader->PutGraphRecipe(env_, "train", kOther);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable);
  EXPECT_THAT(s.message(), HasSubstr("refusing storing a graph recipe"));
  EXPECT_EQ(Rows(), 1);
}

// Two processes on one database, through the engine's path (PersistentPlans, its writer, its
// LoadAll): each remembers a recipe, and each one started after sees both.
TEST_P(GraphRecipes, ForkedProcessesSeeEachOthersRecipes) {
  const PersistentPlansOptions options = PlansOptions();
  const auto remember = [&](const GraphRecipe& recipe) {
    return test::ForkChild([&] {
      std::unique_ptr<PersistentPlans> plans;
      if (!PersistentPlans::Open(options, &plans).ok()) return 1;
      GraphRecipeStore* store = plans->AttachRecipes();
      store->LoadAll();
      store->Remember(recipe);
      plans->Close();  // the writer drains at exit
      return 0;
    });
  };
  ASSERT_EQ(test::WaitChild(remember(kRecipe)), 0);
  ASSERT_EQ(test::WaitChild(remember(kOther)), 0);
  const pid_t reader = test::ForkChild([&] {
    std::unique_ptr<PersistentPlans> plans;
    if (!PersistentPlans::Open(options, &plans).ok()) return 1;
    const std::vector<GraphRecipe> all = plans->AttachRecipes()->LoadAll();
    plans->Close();
    return all.size() == 2 ? 0 : 10 + static_cast<int>(all.size());
  });
  EXPECT_EQ(test::WaitChild(reader), 0);
  EXPECT_EQ(Rows(), 2);
}

}  // namespace
}  // namespace ember

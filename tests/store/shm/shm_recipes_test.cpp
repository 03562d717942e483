// Graph recipes in the shared-memory tier (Note [Shared recipes], store/shm/shared_plan_tier.h):
// a workload's recipes come back whole, the newest entry of a key wins, workloads are kept
// apart, a damaged newest entry falls back to the one before, and plan, kernel and fact
// readers never see a recipe entry.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/runtime/graph_tape.h"
#include "store/shm/shared_segment_layout.h"
#include "tests/store/sample_recipes.h"
#include "tests/store/shm_test_util.h"

namespace ember {
namespace {

using test::SampleRecipe;
using testing::ElementsAre;
using testing::IsEmpty;
using testing::UnorderedElementsAre;

class ShmRecipes : public test::ShmFixture {
 protected:
  static std::vector<GraphRecipe> Find(SharedPlanTier& tier, std::string_view workload) {
    std::vector<GraphRecipe> recipes;
    const Status s = tier.LookupRecipes(workload, &recipes);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return recipes;
  }
};

TEST_F(ShmRecipes, AWorkloadsRecipesRoundTripAndWorkloadsStayApart) {
  auto tier = OpenTier();
  auto sibling = OpenTier();
  const GraphRecipe a = SampleRecipe({1, 2});
  const GraphRecipe b = SampleRecipe({3}, 16);
  EXPECT_THAT(Find(*tier, "train"), IsEmpty());
  const uint64_t g0 = tier->generation();
  ASSERT_EQ(tier->PublishRecipe("train", a), SharedPlanTier::PublishOutcome::kPublished);
  ASSERT_EQ(sibling->PublishRecipe("train", b), SharedPlanTier::PublishOutcome::kPublished);
  ASSERT_EQ(sibling->PublishRecipe("serve", a), SharedPlanTier::PublishOutcome::kPublished);
  ASSERT_EQ(tier->PublishRecipe("train", a), SharedPlanTier::PublishOutcome::kPublished);
  EXPECT_EQ(tier->generation(), g0 + 4);
  EXPECT_THAT(Find(*sibling, "train"), UnorderedElementsAre(a, b));  // each key once
  EXPECT_THAT(Find(*tier, "serve"), ElementsAre(a));
  EXPECT_THAT(Find(*tier, "trai"), IsEmpty());
}

TEST_F(ShmRecipes, ADamagedNewestEntryFallsBackToTheOneBefore) {
  auto tier = OpenTier();
  const GraphRecipe a = SampleRecipe({7});
  tier->PublishRecipe("w", a);
  tier->PublishRecipe("w", a);
  const uint64_t newest =
      tier->segment().bucket(SharedPlanTier::RecipeChainHash("w")).load(std::memory_order_acquire);
  ASSERT_NE(newest, 0u);
  // The body's first byte: after the workload's length and name, the key, the count and one
  // kernel.
  tier->segment().at(newest + sizeof(shm::EntryHeader) + 4 + 1 + 8 + 4 + 8)[0] ^= 0x01;
  EXPECT_THAT(Find(*tier, "w"), ElementsAre(a));
  EXPECT_EQ(tier->corrupt_entries(), 1u);
}

// A newest entry that is whole but that the reader refuses (a body that is not a tape) does not
// hide the older good copy of its key.
TEST_F(ShmRecipes, ARefusedNewestEntryFallsBackToTheOneBefore) {
  auto tier = OpenTier();
  const GraphRecipe a = SampleRecipe({5});
  tier->PublishRecipe("w", a);
  GraphRecipe forged = a;
  forged.body = "not a tape\n";
  tier->PublishRecipe("w", forged);
  int refused = 0;
  std::vector<GraphRecipe> found;
  ASSERT_TRUE(tier->LookupRecipes("w", &found,
                                  [&](const GraphRecipe& r) {
                                    if (DecodeTape(r.body).has_value()) return true;
                                    ++refused;
                                    return false;
                                  })
                  .ok());
  EXPECT_THAT(found, ElementsAre(a));
  EXPECT_EQ(refused, 1);
  // Without a check, the newest whole entry of the key is the one returned.
  EXPECT_THAT(Find(*tier, "w"), ElementsAre(forged));
}

TEST_F(ShmRecipes, OtherReadersNeverSeeARecipe) {
  auto tier = OpenTier();
  tier->PublishRecipe("f", SampleRecipe({9}));
  const uint64_t chain = SharedPlanTier::RecipeChainHash("f");
  std::vector<SharedPlanTier::Entry> entries;
  ASSERT_TRUE(tier->Lookup(chain, &entries).ok());
  EXPECT_TRUE(entries.empty());
  std::vector<Hash128> keys;
  ASSERT_TRUE(SharedPlanTier::ListKeys(db_, "env-a", &keys).ok());
  EXPECT_TRUE(keys.empty());
  std::vector<uint8_t> binary;
  bool found = true;
  ASSERT_TRUE(tier->LookupKernel(chain, &binary, &found).ok());
  EXPECT_FALSE(found);
  std::string value;
  ASSERT_TRUE(tier->LookupFact("f", &value, &found).ok());
  EXPECT_FALSE(found);
}

}  // namespace
}  // namespace ember

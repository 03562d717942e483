// Device facts in the shared-memory tier (Note [Shared facts], store/shm/shared_plan_tier.h):
// the newest whole value of a name wins, a damaged newest entry falls back to the one before,
// and plan and kernel readers never see a fact entry (a kind they do not ask for).
#include <gtest/gtest.h>

#include "store/shm/shared_segment_layout.h"
#include "tests/store/shm_test_util.h"

namespace ember {
namespace {

class ShmFacts : public test::ShmFixture {
 protected:
  static std::optional<std::string> Find(SharedPlanTier& tier, std::string_view name) {
    std::string value;
    bool found = false;
    const Status s = tier.LookupFact(name, &value, &found);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (!found) return std::nullopt;
    return value;
  }
};

TEST_F(ShmFacts, TheNewestValueOfANameWinsAndOtherNamesAreApart) {
  auto tier = OpenTier();
  auto sibling = OpenTier();
  EXPECT_EQ(Find(*tier, "epilogue/a"), std::nullopt);
  const uint64_t g0 = tier->generation();
  ASSERT_EQ(tier->PublishFact("epilogue/a", "cublas 1 2"),
            SharedPlanTier::PublishOutcome::kPublished);
  ASSERT_EQ(tier->PublishFact("epilogue/b", ""), SharedPlanTier::PublishOutcome::kPublished);
  ASSERT_EQ(sibling->PublishFact("epilogue/a", "cublaslt 0.5 0.6"),
            SharedPlanTier::PublishOutcome::kPublished);
  EXPECT_EQ(tier->generation(), g0 + 3);
  EXPECT_EQ(Find(*tier, "epilogue/a"), "cublaslt 0.5 0.6");
  EXPECT_EQ(Find(*sibling, "epilogue/b"), "");
  EXPECT_EQ(Find(*tier, "epilogue/"), std::nullopt);
  EXPECT_EQ(Find(*tier, "epilogue/a "), std::nullopt);
}

TEST_F(ShmFacts, ADamagedNewestEntryFallsBackToTheOneBefore) {
  auto tier = OpenTier();
  tier->PublishFact("n", "old");
  tier->PublishFact("n", "new");
  const uint64_t newest =
      tier->segment().bucket(SharedPlanTier::FactChainHash("n")).load(std::memory_order_acquire);
  ASSERT_NE(newest, 0u);
  // The value's first byte ("n" after the length and the name).
  tier->segment().at(newest + sizeof(shm::EntryHeader) + 4 + 1)[0] ^= 0x01;
  EXPECT_EQ(Find(*tier, "n"), "old");
  EXPECT_EQ(tier->corrupt_entries(), 1u);
}

TEST_F(ShmFacts, PlanAndKernelReadersNeverSeeAFact) {
  auto tier = OpenTier();
  tier->PublishFact("f", "v");
  const uint64_t chain = SharedPlanTier::FactChainHash("f");
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
}

}  // namespace
}  // namespace ember

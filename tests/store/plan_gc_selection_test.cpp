// SelectPlansToEvict (store/admin/plan_gc.h) as a pure function: Note [Plan value] ordering, age,
// byte budget, and Note [Plans in use by a live segment].
#include <gtest/gtest.h>

#include "store/admin/plan_gc.h"

namespace ember {
namespace {

GcCandidate Plan(PlanRowId id, double explore_ms, int64_t hits, int64_t bytes, int64_t last_use) {
  return GcCandidate{.id = id,
                     .plan_key = {.low = static_cast<uint64_t>(id), .high = 7},
                     .explore_ms = explore_ms,
                     .hits = hits,
                     .bytes = bytes,
                     .last_use = last_use};
}

std::vector<PlanRowId> Ids(const GcReport& report) {
  std::vector<PlanRowId> ids;
  for (const GcEviction& e : report.evicted) ids.push_back(e.plan.id);
  return ids;
}

TEST(PlanGcSelection, LowestValueGoesFirstThenTheOldest) {
  const std::vector<GcCandidate> plans = {
      Plan(1, 10.0, 9, 100, 500),  // value 1.0
      Plan(2, 1.0, 0, 100, 400),   // value 0.01
      Plan(3, 1.0, 0, 100, 300),   // value 0.01, older: first
      Plan(4, 50.0, 0, 100, 100),  // value 0.5
  };
  const GcReport report = SelectPlansToEvict(plans, {.max_bytes = 150}, 1000);
  EXPECT_EQ(Ids(report), (std::vector<PlanRowId>{3, 2, 4}));
  EXPECT_EQ(report.bytes_before, 400);
  EXPECT_EQ(report.bytes_after, 100);
  EXPECT_FALSE(report.max_bytes_unreached);
  EXPECT_DOUBLE_EQ(PlanValue(plans[0]), 1.0);
}

TEST(PlanGcSelection, OlderThanTakesEveryStalePlan) {
  const std::vector<GcCandidate> plans = {Plan(1, 100.0, 50, 10, 0), Plan(2, 1.0, 0, 10, 9000),
                                          Plan(3, 1.0, 0, 10, 100)};
  const GcReport report =
      SelectPlansToEvict(plans, {.older_than = std::chrono::milliseconds(5000)}, 10000);
  EXPECT_EQ(Ids(report), (std::vector<PlanRowId>{3, 1}));
  EXPECT_EQ(report.bytes_after, 10);
}

TEST(PlanGcSelection, ProtectedPlansAreNeverEvicted) {
  std::vector<GcCandidate> plans = {Plan(1, 0.0, 0, 100, 0), Plan(2, 9.0, 0, 100, 0)};
  plans[0].is_protected = true;
  const GcReport report =
      SelectPlansToEvict(plans, {.older_than = std::chrono::milliseconds(1), .max_bytes = 0}, 1000);
  EXPECT_EQ(Ids(report), (std::vector<PlanRowId>{2}));
  EXPECT_EQ(report.protected_plans, 1);
  EXPECT_TRUE(report.max_bytes_unreached);
  EXPECT_EQ(report.bytes_after, 100);
}

TEST(PlanGcSelection, NothingAskedNothingEvicted) {
  const GcReport report = SelectPlansToEvict({Plan(1, 0.0, 0, 100, 0)}, {}, 1000);
  EXPECT_TRUE(report.evicted.empty());
  EXPECT_EQ(report.candidates, 1);
}

}  // namespace
}  // namespace ember

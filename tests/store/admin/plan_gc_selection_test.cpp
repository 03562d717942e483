// SelectPlansToEvict and SelectKernelsToRemove (store/admin/plan_gc.h) as pure functions: Note
// [Plan value] ordering, age, byte budget, Note [Plans in use by a live segment], and which
// kernels no plan uses once the evictions are done.
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

// A kernel of environment `env` linked to `plans` (all of environment `env`).
KernelRecord Kernel(KernelRowId id, std::vector<PlanRowId> plans, EnvironmentRowId env = 1) {
  KernelRecord k{.id = id, .environment_id = env, .bytes = 100 * id};
  k.key.arch = "sm_90";
  for (const PlanRowId plan : plans) k.links.push_back({plan, env});
  return k;
}

std::vector<KernelRowId> KernelIds(const std::vector<GcKernelRemoval>& removed) {
  std::vector<KernelRowId> ids;
  for (const GcKernelRemoval& k : removed) ids.push_back(k.id);
  return ids;
}

TEST(PlanGcSelection, KernelsGoWhenNoRemainingPlanUsesThem) {
  const std::vector<KernelRecord> kernels = {
      Kernel(1, {10}),      // only the evicted plan: goes
      Kernel(2, {10, 11}),  // shared with a kept plan: stays
      Kernel(3, {}),        // an orphan already: goes
      Kernel(4, {11}),      // a kept plan's: stays
  };
  const std::vector<GcKernelRemoval> removed = SelectKernelsToRemove(kernels, {10}, std::nullopt);
  EXPECT_EQ(KernelIds(removed), (std::vector<KernelRowId>{1, 3}));
  EXPECT_EQ(removed[1].bytes, 300);
  EXPECT_EQ(removed[0].arch, "sm_90");
  // Nothing evicted: only the orphan.
  EXPECT_EQ(KernelIds(SelectKernelsToRemove(kernels, {}, std::nullopt)),
            (std::vector<KernelRowId>{3}));
}

TEST(PlanGcSelection, KernelRemovalKeepsToTheEnvironment) {
  const std::vector<KernelRecord> kernels = {Kernel(1, {}, 1), Kernel(2, {}, 2)};
  EXPECT_EQ(KernelIds(SelectKernelsToRemove(kernels, {}, EnvironmentRowId{2})),
            (std::vector<KernelRowId>{2}));
}

TEST(PlanGcSelection, ALinkToAMissingPlanIsNoUse) {
  KernelRecord dangling = Kernel(1, {});
  dangling.links.push_back({.plan_id = 99});  // no such plan: no environment
  EXPECT_EQ(KernelIds(SelectKernelsToRemove({dangling}, {}, std::nullopt)),
            (std::vector<KernelRowId>{1}));
}

}  // namespace
}  // namespace ember

// PlanWriter::Adopt: a plan read from the shared tier is bound to the row its finder wrote (no
// new row; its hits count there), or stored when that row never came (the finder died first).
#include "store/repository/plan_writer.h"

#include <chrono>
#include <thread>

#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::RawDb;
using sqlite_test::SamplePlan;
using sqlite_test::TempDir;
using test::OpenRepository;

struct WriterDb {
  TempDir dir;
  std::string path = dir.File("plans.db");
  std::unique_ptr<PlanRepository> repo = OpenRepository(path);
  EnvironmentRowId environment = 0;
  WorkloadRowId workload = 0;

  WriterDb() {
    EXPECT_TRUE(repo->EnsureEnvironment(test::SampleEnvironment(), &environment).ok());
    WorkloadRow row;
    EXPECT_TRUE(repo->GetOrCreateWorkload(environment, "w", &row).ok());
    workload = row.id;
  }
  std::unique_ptr<PlanWriter> Writer() {
    return std::make_unique<PlanWriter>(OpenRepository(path), environment, workload);
  }
};

PublishItem Item(uint64_t n) {
  PublishItem item;
  item.plan = SamplePlan(n);
  item.triggers = {sqlite_test::OnSync()};
  return item;
}

TEST(PlanWriterAdopt, ABindsToTheFindersRowAndCountsHitsThere) {
  WriterDb db;
  InsertResult inserted;
  ASSERT_TRUE(db.repo->InsertPlan(db.environment, Item(1).plan, &inserted).ok());
  std::unique_ptr<PlanWriter> writer = db.Writer();
  writer->Adopt(/*id=*/0, Item(1));
  writer->Hit(0);
  writer->Hit(0);
  writer->Flush();
  EXPECT_EQ(writer->plans_published(), 0u);
  RawDb raw(db.path);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM plans"), 1);
  EXPECT_EQ(raw.Int("SELECT hits FROM plans WHERE id = " + std::to_string(inserted.plan_id)), 2);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM triggers"), 0);  // a bind writes no trigger
}

TEST(PlanWriterAdopt, StoresAPlanWhoseFinderNeverCommittedIt) {
  WriterDb db;
  std::unique_ptr<PlanWriter> writer = db.Writer();
  writer->Adopt(/*id=*/0, Item(2));
  writer->Hit(0);
  writer->Flush();
  EXPECT_EQ(writer->plans_published(), 1u);
  RawDb raw(db.path);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM plans"), 1);
  EXPECT_EQ(raw.Int("SELECT hits FROM plans"), 1);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM triggers"), 1);
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

// Note [Write-behind]: hit counters wait for kCounterDelay (or for other work, or a Flush), so
// that a steady state of hits does not commit once per step; they are never lost on a Flush.
TEST(PlanWriterCounters, HitsAloneAreCoalescedUntilTheDelayOrAFlush) {
  WriterDb db;
  std::unique_ptr<PlanWriter> writer = db.Writer();
  writer->Publish(0, Item(1));
  writer->FlushDurable();
  const auto hits = [&] { return RawDb(db.path).Int("SELECT SUM(hits) FROM plans"); };
  const auto start = std::chrono::steady_clock::now();
  writer->Hit(0);
  writer->Hit(0);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // Not committed yet, unless this thread was descheduled past the whole delay.
  const int64_t early = hits();
  if (std::chrono::steady_clock::now() - start < PlanWriter::kCounterDelay) {
    EXPECT_EQ(early, 0);
  }
  // Without a Flush they land once the delay is over.
  const auto deadline = start + PlanWriter::kCounterDelay + std::chrono::seconds(5);
  while (hits() != 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(hits(), 2);
  // A Flush applies them at once.
  writer->Hit(0);
  writer->Flush();
  EXPECT_EQ(hits(), 3);
  // Other work takes the queued hits along.
  writer->Hit(0);
  writer->Publish(1, Item(2));
  writer->FlushDurable();
  EXPECT_EQ(RawDb(db.path).Int("SELECT SUM(hits) FROM plans"), 4);
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

// Misses of one pattern, coalesced in the writer or not, keep their first explanation as the
// row's first and the last as its latest, with every value and the whole count.
TEST(PlanWriterMisses, APatternKeepsItsFirstAndLatestExplanation) {
  WriterDb db;
  std::unique_ptr<PlanWriter> writer = db.Writer();
  for (int64_t length : {9, 5, 10}) {
    writer->Miss({.pattern = 42,
                  .cause = "attribute",
                  .op_name = "BaseFloat::Cat",
                  .nearest_plan = "#1",
                  .detail = std::to_string(length) + " inputs vs 4",
                  .count = 1,
                  .values = {length}});
  }
  writer->Flush();
  std::vector<WorkloadMiss> rows;
  ASSERT_TRUE(db.repo->ListMisses(db.workload, &rows).ok());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].first_detail, "9 inputs vs 4");
  EXPECT_EQ(rows[0].detail, "10 inputs vs 4");
  EXPECT_EQ(rows[0].count, 3);
  EXPECT_EQ(rows[0].values, (std::vector<int64_t>{9, 5, 10}));
}

}  // namespace
}  // namespace ember

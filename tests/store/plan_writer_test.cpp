// PlanWriter::Adopt: a plan read from the shared tier is bound to the row its finder wrote (no
// new row; its hits count there), or stored when that row never came (the finder died first).
#include "store/repository/plan_writer.h"

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

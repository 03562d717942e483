// Note [Environment fingerprint]: the canonical text and stable id are pinned on-disk formats;
// every field (and the fuser order) changes the id; plans are invisible to other environments.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "store/codec/environment_fingerprint.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::SamplePlan;
using sqlite_test::TempDir;
using test::OpenRepository;
using test::SampleEnvironment;
using testing::IsEmpty;
using testing::SizeIs;

EnvironmentFingerprint Cuda() {
  return {.engine_version = "0.1.0",
          .schema_version = 1,
          .backend = "cuda",
          .device_model = "NVIDIA H200",
          .compute_capability = "9.0",
          .fusers = {{"elementwise", 1}, {"matmul", 2}},
          .max_blocks = 5};
}

TEST(EnvironmentFingerprint, CanonicalTextIsPinned) {
  EXPECT_EQ(CanonicalEnvironmentText(Cuda()),
            R"({"engine_version":"0.1.0","schema_version":1,"backend":"cuda",)"
            R"("device_model":"NVIDIA H200","compute_capability":"9.0","fusers":[)"
            R"({"name":"elementwise","version":1},{"name":"matmul","version":2}],)"
            R"("max_blocks":5})");
  EnvironmentFingerprint searched = Cuda();
  searched.sync_tail = "search";
  EXPECT_TRUE(
      CanonicalEnvironmentText(searched).ends_with(R"("max_blocks":5,"sync_tail":"search"})"));
  searched.cpu_math = "u35";
  EXPECT_TRUE(CanonicalEnvironmentText(searched).ends_with(
      R"("max_blocks":5,"sync_tail":"search","cpu_math":"u35"})"));
}

// Cross-checked with XXH3_128bits over the text above, outside ember.
TEST(EnvironmentFingerprint, StableIdIsPinned) {
  EXPECT_EQ(EnvironmentStableId(Cuda()), "env-5c72483a91727b21de9e9ffdf1314fae");
}

// Verification and bundle import check a stored id against its stored description with this.
TEST(EnvironmentFingerprint, StableIdOfTheTextIsTheStableIdOfTheFingerprint) {
  EXPECT_EQ(EnvironmentStableIdOfText(CanonicalEnvironmentText(Cuda())),
            "env-5c72483a91727b21de9e9ffdf1314fae");
  EnvironmentFingerprint other = Cuda();
  other.max_blocks = 6;
  EXPECT_EQ(EnvironmentStableIdOfText(CanonicalEnvironmentText(other)), EnvironmentStableId(other));
  EXPECT_NE(EnvironmentStableIdOfText(CanonicalEnvironmentText(Cuda()) + " "),
            EnvironmentStableId(Cuda()));
}

TEST(EnvironmentFingerprint, StringsAreJsonEscaped) {
  EnvironmentFingerprint fp = Cuda();
  fp.device_model = "a\"b\\c\nd\x01";
  EXPECT_THAT(CanonicalEnvironmentText(fp),
              testing::HasSubstr(R"("device_model":"a\"b\\c\nd\u0001")"));
}

TEST(EnvironmentFingerprint, EveryFieldAndTheFuserOrderChangeTheId) {
  const std::string base = EnvironmentStableId(Cuda());
  std::vector<EnvironmentFingerprint> variants(11, Cuda());
  variants[0].engine_version = "0.2.0";
  variants[1].schema_version = 2;
  variants[2].backend = "cpu";
  variants[3].device_model = "NVIDIA H100";
  variants[4].compute_capability = "8.0";
  variants[5].fusers[1].version = 3;
  variants[6].fusers = {{"matmul", 2}, {"elementwise", 1}};
  variants[7].fusers.push_back({"reduce", 1});
  variants[8].max_blocks = 6;
  variants[9].sync_tail = "search";
  variants[10].cpu_math = "u35";
  std::set<std::string> ids = {base};
  for (const EnvironmentFingerprint& fp : variants) ids.insert(EnvironmentStableId(fp));
  EXPECT_EQ(ids.size(), variants.size() + 1);
  EXPECT_EQ(EnvironmentStableId(Cuda()), base);  // Deterministic.
}

TEST(EnvironmentFingerprint, RepositoryGivesOneRowPerEnvironmentAcrossReopens) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  EnvironmentRowId cpu = 0;
  EnvironmentRowId cuda = 0;
  {
    auto repo = OpenRepository(path);
    ASSERT_TRUE(repo->EnsureEnvironment(SampleEnvironment(), &cpu).ok());
    ASSERT_TRUE(repo->EnsureEnvironment(Cuda(), &cuda).ok());
    EnvironmentRowId again = 0;
    ASSERT_TRUE(repo->EnsureEnvironment(SampleEnvironment(), &again).ok());
    EXPECT_EQ(again, cpu);
    EXPECT_NE(cpu, cuda);
  }
  auto repo = OpenRepository(path);
  EnvironmentRowId reopened = 0;
  ASSERT_TRUE(repo->EnsureEnvironment(Cuda(), &reopened).ok());
  EXPECT_EQ(reopened, cuda);
  sqlite_test::RawDb raw(path);
  EXPECT_EQ(raw.Text("SELECT description FROM environments WHERE id = " + std::to_string(cuda)),
            CanonicalEnvironmentText(Cuda()));
  EXPECT_EQ(raw.Text("SELECT fingerprint FROM environments WHERE id = " + std::to_string(cuda)),
            EnvironmentStableId(Cuda()));
}

// The reselect after the insert must find the row; one the file's own trigger deletes is
// corruption, named (SqlPlanRepository::EnsureEnvironmentText).
TEST(EnvironmentFingerprint, AnEnvironmentThatVanishesAfterItsInsertIsCorruption) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  auto repo = OpenRepository(path);
  sqlite_test::RawDb(path).Exec(
      "CREATE TRIGGER vanish AFTER INSERT ON environments BEGIN "
      "DELETE FROM environments WHERE id = NEW.id; END");
  EnvironmentRowId id = 0;
  const Status s = repo->EnsureEnvironment(Cuda(), &id);
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_THAT(s.message(), testing::HasSubstr(": environment " + EnvironmentStableId(Cuda()) +
                                              " vanished after its insert"));
}

TEST(EnvironmentFingerprint, PlansAreInvisibleToOtherEnvironments) {
  TempDir dir;
  auto repo = OpenRepository(dir.File("plans.db"));
  EnvironmentRowId a = 0;
  EnvironmentRowId b = 0;
  ASSERT_TRUE(repo->EnsureEnvironment(SampleEnvironment("device A"), &a).ok());
  ASSERT_TRUE(repo->EnsureEnvironment(SampleEnvironment("device B"), &b).ok());
  InsertResult in_a;
  ASSERT_TRUE(repo->InsertPlan(a, SamplePlan(1), &in_a).ok());
  LoadedPlans loaded;
  ASSERT_TRUE(repo->LoadPlansByFirstOp(b, 7, &loaded).ok());
  EXPECT_THAT(loaded.plans, IsEmpty());
  // The same plan key in another environment is another row.
  InsertResult in_b;
  ASSERT_TRUE(repo->InsertPlan(b, SamplePlan(1), &in_b).ok());
  EXPECT_EQ(in_b.outcome, InsertOutcome::kInserted);
  EXPECT_NE(in_b.plan_id, in_a.plan_id);
  ASSERT_TRUE(repo->LoadPlansByFirstOp(a, 7, &loaded).ok());
  EXPECT_THAT(loaded.plans, SizeIs(1));
}

}  // namespace
}  // namespace ember

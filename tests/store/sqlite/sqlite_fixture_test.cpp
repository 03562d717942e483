// Schema fixtures (migrations/README.md rule 5): tests/data/plans-vN.db is a
// small database written at schema version N. Every later binary must open a copy, migrate it
// and read back what the generator below put in.
//
// To (re)generate a fixture — only when a new schema version lands, never to "fix" a failing
// read of an old one:
//   EMBER_REGENERATE_FIXTURES=1 EMBER_TEST_DATA=$PWD/tests/data
//     build/tests/ember_store_tests --gtest_filter='SqliteFixtureGenerator.*'
// (one command line).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>

#include "store/sqlite/migrations.h"
#include "tests/store/sample_recipes.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::Always;
using sqlite_test::OnOps;
using sqlite_test::OnSync;
using sqlite_test::RawDb;
using sqlite_test::SampleKernel;
using sqlite_test::SamplePlan;
using sqlite_test::TempDir;
using test::OpenRepository;
using test::SampleEnvironment;
using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;
using testing::SizeIs;

std::string DataDir() {
  const char* dir = std::getenv("EMBER_TEST_DATA");
  return dir != nullptr ? dir : "";
}

EnvironmentFingerprint FixtureEnvironment() { return SampleEnvironment("Fixture CPU"); }

NewKernel FixtureKernel() {
  NewKernel kernel = SampleKernel("fixture-src");
  kernel.text = {.name = "fixture_kernel", .source = "// fixture source", .options = "-arch=sm_90"};
  return kernel;
}

// A recipe of the fixture's workload (schema 6), launching a kernel the fixture stores.
constexpr uint64_t kFixtureRecipeKernel = 0x0123456789abcdefull;
GraphRecipe FixtureRecipe() { return test::SampleRecipe({kFixtureRecipeKernel}); }

DeviceFact FixtureFact() {
  return {.name = "epilogue/Fixture CPU/f32 bias+relu m<=2^13", .value = "cublaslt 0.0123 0.0150"};
}

// The content of every fixture: three plans (two under first op 7, one under 9) with
// triggers, a quarantined plan, a workload with a cap, counters and plan use, and a kernel;
// from version 3 on, one pattern of misses; from version 5 on, one device fact; from version 6
// on, one graph recipe and the kernel it launches.
void WriteFixtureContent(PlanRepository& repo) {
  EnvironmentRowId env = 0;
  ASSERT_TRUE(repo.EnsureEnvironment(FixtureEnvironment(), &env).ok());
  PublishBatch batch{.environment_id = env};
  NewKernel kernel = FixtureKernel();
  batch.plans.push_back({SamplePlan(1), {OnOps("A"), OnSync()}, {kernel}});
  batch.plans.push_back({SamplePlan(2), {Always()}, {}});
  batch.plans.push_back({SamplePlan(3, /*first_op=*/9), {}, {}});
  batch.plans.push_back({SamplePlan(4), {}, {}});
  PublishResult published;
  ASSERT_TRUE(repo.Publish(batch, &published).ok());
  ASSERT_TRUE(repo.Quarantine(published.plans[3].plan_id, "fixture: quarantined row").ok());
  WorkloadRow workload;
  ASSERT_TRUE(repo.GetOrCreateWorkload(env, "fixture-workload", &workload).ok());
  int64_t count = 0;
  ASSERT_TRUE(repo.AddExplorations(workload.id, 3, &count).ok());
  ASSERT_TRUE(repo.SetCap(workload.id, 10).ok());
  ASSERT_TRUE(repo.AddCounters(workload.id, {.hits = 5, .misses = 2, .unfused_runs = 1}).ok());
  const std::vector<PlanRowId> hits = {published.plans[0].plan_id, published.plans[0].plan_id,
                                       published.plans[1].plan_id};
  ASSERT_TRUE(repo.RecordHits(hits, workload.id).ok());
  const WorkloadMiss miss{.pattern = 0xfeed,
                          .cause = "shape",
                          .op_position = 0,
                          .op_name = "NumericFloat::Mul",
                          .nearest_plan = "stored plan 1",
                          .detail = "fixture: input 0 shape [1,2] vs [1,1]",
                          .count = 4,
                          .values = {32, 48}};
  ASSERT_TRUE(repo.RecordMisses(workload.id, std::span(&miss, 1)).ok());
  ASSERT_TRUE(repo.PutDeviceFact(env, FixtureFact()).ok());
  KernelRowId recipe_kernel = 0;
  ASSERT_TRUE(repo.PutKernel(env, test::KernelNamed(kFixtureRecipeKernel), &recipe_kernel).ok());
  ASSERT_TRUE(repo.PutGraphRecipe(env, "fixture-workload", FixtureRecipe()).ok());
}

TEST(SqliteFixtureGenerator, GenerateFixture) {
  if (std::getenv("EMBER_REGENERATE_FIXTURES") == nullptr || DataDir().empty()) {
    GTEST_SKIP() << "set EMBER_REGENERATE_FIXTURES=1 and EMBER_TEST_DATA to write "
                    "plans-v"
                 << LatestSchemaVersion() << ".db";
  }
  const std::string target = DataDir() + "/plans-v" + std::to_string(LatestSchemaVersion()) + ".db";
  TempDir dir;
  const std::string scratch = dir.File("fixture.db");
  {
    auto repo = OpenRepository(scratch);
    ASSERT_NE(repo, nullptr);
    WriteFixtureContent(*repo);
  }
  {
    RawDb raw(scratch);  // One small self-contained file: no WAL, small pages, no free pages.
    raw.Exec("PRAGMA journal_mode = DELETE");
    raw.Exec("PRAGMA page_size = 512");
    raw.Exec("VACUUM");
  }
  std::filesystem::create_directories(DataDir());
  std::filesystem::copy_file(scratch, target, std::filesystem::copy_options::overwrite_existing);
  chmod(target.c_str(), 0644);
}

class SqliteFixture : public testing::TestWithParam<int> {};

TEST_P(SqliteFixture, OldSchemaOpensMigratesAndReads) {
  const int version = GetParam();
  const std::string fixture = DataDir() + "/plans-v" + std::to_string(version) + ".db";
  ASSERT_TRUE(std::filesystem::exists(fixture)) << fixture << " (EMBER_TEST_DATA set?)";
  TempDir dir;
  const std::string path = dir.File("copy.db");
  std::filesystem::copy_file(fixture, path);
  chmod(path.c_str(), 0600);

  auto repo = OpenRepository(path);
  ASSERT_NE(repo, nullptr);
  EXPECT_EQ(repo->database().migrations_applied(), LatestSchemaVersion() - version);
  EXPECT_EQ(repo->database().schema_version(), LatestSchemaVersion());

  EnvironmentRowId env = 0;
  ASSERT_TRUE(repo->EnsureEnvironment(FixtureEnvironment(), &env).ok());
  LoadedPlans loaded;
  ASSERT_TRUE(repo->LoadPlansByFirstOp(env, 7, &loaded).ok());
  ASSERT_THAT(loaded.plans, SizeIs(2));  // The quarantined one is not loaded.
  EXPECT_EQ(loaded.quarantined, 0u);
  EXPECT_EQ(loaded.plans[0].plan_key, SamplePlan(1).plan_key);
  EXPECT_EQ(loaded.plans[0].ops_blob, SamplePlan(1).ops_blob);
  EXPECT_EQ(loaded.plans[0].plan_blob, SamplePlan(1).plan_blob);
  EXPECT_THAT(loaded.plans[0].triggers, ElementsAre(OnOps("A"), OnSync()));
  EXPECT_EQ(loaded.plans[1].plan_blob, SamplePlan(2).plan_blob);
  EXPECT_THAT(loaded.plans[1].triggers, ElementsAre(Always()));
  ASSERT_TRUE(repo->LoadPlansByFirstOp(env, 9, &loaded).ok());
  ASSERT_THAT(loaded.plans, SizeIs(1));
  EXPECT_EQ(loaded.plans[0].plan_key, SamplePlan(3, 9).plan_key);

  WorkloadRow workload;
  ASSERT_TRUE(repo->GetOrCreateWorkload(env, "fixture-workload", &workload).ok());
  EXPECT_EQ(workload.explorations, 3);
  EXPECT_EQ(workload.max_explorations, 10);
  EXPECT_EQ(workload.hits, 5);
  EXPECT_EQ(workload.misses, 2);
  EXPECT_EQ(workload.unfused_runs, 1);

  StoredKernel kernel;
  ASSERT_TRUE(repo->GetKernel(env, FixtureKernel().key, &kernel).ok());
  EXPECT_EQ(kernel.binary, FixtureKernel().binary);
  EXPECT_EQ(kernel.plan_id, std::optional<PlanRowId>(1));
  // Version 1 had no kernel text: migrated rows read back empty.
  EXPECT_EQ(kernel.text, version >= 2 ? FixtureKernel().text : KernelText());

  std::vector<WorkloadMiss> misses;
  const Status listed = repo->ListMisses(workload.id, &misses);
  ASSERT_TRUE(listed.ok()) << listed.ToString();
  if (version >= 3) {
    ASSERT_THAT(misses, SizeIs(1));
    EXPECT_EQ(misses[0].pattern, 0xfeedu);
    EXPECT_EQ(misses[0].count, 4);
    EXPECT_THAT(misses[0].values, ElementsAre(32, 48));
  } else {
    EXPECT_THAT(misses, SizeIs(0));  // the table is new in version 3
  }

  LoadedDeviceFacts facts;
  ASSERT_TRUE(repo->LoadDeviceFacts(env, &facts).ok());
  EXPECT_EQ(facts.damaged, 0u);
  if (version >= 5) {
    EXPECT_THAT(facts.facts, ElementsAre(FixtureFact()));
  } else {
    EXPECT_THAT(facts.facts, IsEmpty());  // the table is new in version 5
  }

  LoadedGraphRecipes recipes;
  ASSERT_TRUE(repo->LoadGraphRecipes(env, "fixture-workload", &recipes).ok());
  EXPECT_EQ(recipes.damaged + recipes.refused, 0u);
  if (version >= 6) {
    EXPECT_THAT(recipes.recipes, ElementsAre(FixtureRecipe()));
  } else {
    EXPECT_THAT(recipes.recipes, IsEmpty());  // the table is new in version 6
  }

  // And it takes new writes.
  InsertResult inserted;
  ASSERT_TRUE(repo->InsertPlan(env, SamplePlan(50), &inserted).ok());
  EXPECT_EQ(inserted.outcome, InsertOutcome::kInserted);
  repo.reset();
  RawDb raw(path);
  EXPECT_EQ(raw.Text("PRAGMA integrity_check"), "ok");
  EXPECT_EQ(raw.Int("SELECT hits FROM plans WHERE id = 1"), 2);
  EXPECT_EQ(raw.Int("SELECT hits FROM plan_usage WHERE plan_id = 1"), 2);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM environments"), 1);
  // The fixture's kernel is linked to the plan it was compiled for (0002 fills plan_kernels
  // from kernels.plan_id).
  EXPECT_EQ(raw.Int("SELECT count(*) FROM plan_kernels WHERE plan_id = 1"), 1);
  // Version 4 rebuilt `plans` with AUTOINCREMENT (ids never reused), every reference intact.
  EXPECT_THAT(raw.Text("SELECT sql FROM sqlite_master WHERE name = 'plans'"),
              HasSubstr("AUTOINCREMENT"));
  EXPECT_THAT(raw.Column("PRAGMA foreign_key_check"), IsEmpty());
  EXPECT_EQ(raw.Int("SELECT count(*) FROM triggers"), 3);
  raw.Exec("DELETE FROM plans WHERE id = " + std::to_string(inserted.plan_id));
  raw.Exec(
      "INSERT INTO plans (environment_id, first_op_hash, plan_key, ops_blob, plan_blob, "
      "checksum, ops_bytes, plan_bytes, num_ops, created) "
      "VALUES (1, 7, zeroblob(16), x'', x'', 0, 0, 0, 1, 0)");
  EXPECT_GT(raw.Int("SELECT max(id) FROM plans"), inserted.plan_id);
}

// One entry per landed schema version.
INSTANTIATE_TEST_SUITE_P(LandedSchemas, SqliteFixture, testing::Values(1, 2, 3, 4, 5, 6),
                         [](const testing::TestParamInfo<int>& schema) {
                           return "v" + std::to_string(schema.param);
                         });

}  // namespace
}  // namespace ember

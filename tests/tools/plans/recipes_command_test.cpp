// ember-plans and graph recipes (Note [Graph recipes], store/persistent_recipes.h): `recipes`
// lists them (outside text escaped) and shows one as its tape, `stats` counts them, `verify`
// names a damaged, forged or orphaned one, `gc` removes those whose kernels are gone, and
// bundles carry the recipes whose kernels travel with them (old bundles still import).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "store/codec/row_checksum.h"
#include "store/repository/column_encoding.h"
#include "tests/store/sample_recipes.h"
#include "tests/tools/plans/plans_test_util.h"

namespace ember::plans_test {
namespace {

using test::KernelNamed;
using test::SampleRecipe;

const GraphRecipe kRecipe = SampleRecipe({0x11, 0x22, 0x11});
const GraphRecipe kGone = SampleRecipe({0x99});  // names a kernel nobody stores
const GraphRecipe kHostile = SampleRecipe({0x11}, 2);
const std::string kHostileWorkload = "\x1b]0;pwned\x07";

std::string Hex(uint64_t v) { return fmt::format("{:016x}", v); }

class PlansRecipes : public testing::Test {
 protected:
  void SetUp() override {
    auto repo = test::OpenRepository(db_);
    ASSERT_NE(repo, nullptr);
    ASSERT_TRUE(repo->EnsureEnvironment(test::SampleEnvironment("Test GPU"), &env_).ok());
    for (const uint64_t kernel : {0x11, 0x22}) {
      KernelRowId id = 0;
      ASSERT_TRUE(repo->PutKernel(env_, KernelNamed(kernel), &id).ok());
    }
    ASSERT_TRUE(repo->PutGraphRecipe(env_, "train", kRecipe).ok());
    ASSERT_TRUE(repo->PutGraphRecipe(env_, "train", kGone).ok());
    ASSERT_TRUE(repo->PutGraphRecipe(env_, kHostileWorkload, kHostile).ok());
  }
  int64_t Rows() { return RawDb(db_).Int("SELECT count(*) FROM graph_recipes"); }

  TempDir dir_;
  const std::string db_ = dir_.File("plans.db");
  EnvironmentRowId env_ = 0;
};

TEST_F(PlansRecipes, RecipesAreListedEscapedAndCountedByStats) {
  const PlansRun run = PlansOn(db_, {"recipes", "--json"});
  ASSERT_EQ(run.code, 0) << run.err;
  const nlohmann::json all = Json(run);
  ASSERT_EQ(all.size(), 3u) << all.dump();
  EXPECT_EQ(all[0]["workload"], kHostileWorkload);
  EXPECT_EQ(all[1]["workload"], "train");
  for (const nlohmann::json& r : all) {
    EXPECT_EQ(r["damaged"], false);
    EXPECT_EQ(r["problem"], "");
  }
  const nlohmann::json train = Json(PlansOn(db_, {"recipes", "--json", "--workload", "train"}));
  ASSERT_EQ(train.size(), 2u);
  const nlohmann::json& first = train[0]["key"] == Hex(kRecipe.key) ? train[0] : train[1];
  EXPECT_EQ(first["launches"], 3);
  EXPECT_EQ(first["kernels"], nlohmann::json({Hex(0x11), Hex(0x22)}));

  const PlansRun table = PlansOn(db_, {"recipes"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find(Hex(kRecipe.key)), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find('\x1b'), std::string::npos) << "a stored name reached the terminal";
  EXPECT_EQ(Json(PlansOn(db_, {"stats", "--json"}))["graph_recipes"], 3);
}

TEST_F(PlansRecipes, KeyShowsTheTapeOneLaunchPerLine) {
  const PlansRun run = PlansOn(db_, {"recipes", "--key", Hex(kRecipe.key)});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("workload 'train'"), std::string::npos) << run.out;
  size_t launches = 0;
  for (size_t at = run.out.find(Hex(0x11)); at != std::string::npos;
       at = run.out.find(Hex(0x11), at + 1)) {
    ++launches;
  }
  EXPECT_EQ(launches, 2u) << run.out;
  const nlohmann::json shown = Json(PlansOn(db_, {"recipes", "--json", "--key", Hex(kRecipe.key)}));
  ASSERT_EQ(shown.size(), 1u);
  ASSERT_EQ(shown[0]["tape"].size(), 3u);
  EXPECT_EQ(shown[0]["tape"][1]["kernel"], Hex(0x22));
  EXPECT_EQ(shown[0]["tape"][1]["threads"], 128);
  EXPECT_EQ(PlansOn(db_, {"recipes", "--key", "0x" + Hex(kRecipe.key ^ 1)}).code, 1);
  EXPECT_EQ(PlansOn(db_, {"recipes", "--key", "nothex"}).code, 64);
}

TEST_F(PlansRecipes, VerifyNamesOrphanedDamagedAndForgedRecipes) {
  nlohmann::json report = Json(PlansOn(db_, {"verify", "--json"}));
  EXPECT_EQ(report["recipes_checked"], 3);
  ASSERT_EQ(report["problems"].size(), 1u) << report.dump();
  EXPECT_NE(report["problems"][0]["where"].get<std::string>().find(Hex(kGone.key)),
            std::string::npos);
  EXPECT_NE(report["problems"][0]["what"].get<std::string>().find("does not store"),
            std::string::npos);

  RawDb(db_).Exec("UPDATE graph_recipes SET checksum = checksum + 1 WHERE key = " +
                  std::to_string(ToColumn(kRecipe.key)));
  const std::string body = "ember-graph-tape 1\n";  // no launch, checksum recomputed
  RawDb(db_).Exec(fmt::format(
      "UPDATE graph_recipes SET body = '{}', checksum = {} WHERE key = {}", body,
      ToColumn(GraphRecipeChecksum(kHostile.key, body, kHostile.kernels)), ToColumn(kHostile.key)));
  const PlansRun verify = PlansOn(db_, {"verify", "--json"});
  EXPECT_EQ(verify.code, 1);
  report = Json(verify);
  EXPECT_EQ(report["problems"].size(), 3u) << report.dump();
  const nlohmann::json listed = Json(PlansOn(db_, {"recipes", "--json", "--workload", "train"}));
  const nlohmann::json& damaged = listed[0]["key"] == Hex(kRecipe.key) ? listed[0] : listed[1];
  EXPECT_EQ(damaged["damaged"], true);
  const PlansRun text = PlansOn(db_, {"verify"});
  EXPECT_EQ(text.out.find('\x1b'), std::string::npos) << text.out;
}

TEST_F(PlansRecipes, GcRemovesTheRecipesWhoseKernelsAreGone) {
  // Kernel 0x11 serves a plan; 0x22 serves none, so gc removes it, and with it kRecipe.
  {
    auto repo = test::OpenRepository(db_);
    InsertResult plan;
    ASSERT_TRUE(repo->InsertPlan(env_, sqlite_test::SamplePlan(1), &plan).ok());
    RawDb(db_).Exec(
        fmt::format("INSERT INTO plan_kernels (plan_id, kernel_id) SELECT {}, id FROM "
                    "kernels WHERE source_hash = x'0000000000000011'",
                    plan.plan_id));
  }
  const nlohmann::json dry = Json(PlansOn(db_, {"gc", "--dry-run", "--json"}));
  EXPECT_EQ(dry["recipes_removed"], 2);
  EXPECT_EQ(Rows(), 3);
  const PlansRun gc = PlansOn(db_, {"gc"});
  ASSERT_EQ(gc.code, 0) << gc.err;
  EXPECT_NE(gc.out.find("removed 2 graph recipe(s) whose kernels are no longer stored"),
            std::string::npos)
      << gc.out;
  EXPECT_EQ(Rows(), 1);  // kHostile, launching 0x11 only
  const nlohmann::json report = Json(PlansOn(db_, {"verify", "--json"}));
  EXPECT_EQ(report["recipes_checked"], 1);
  for (const nlohmann::json& p : report["problems"]) {
    EXPECT_EQ(p["where"].get<std::string>().find("graph recipe"), std::string::npos) << p;
  }
  // The plan goes, its kernel with it at the next gc, and the last recipe with the kernel.
  RawDb(db_).Exec("DELETE FROM plans");
  EXPECT_EQ(Json(PlansOn(db_, {"gc", "--json"}))["recipes_removed"], 1);
  EXPECT_EQ(Rows(), 0);
}

// Bundles carry the recipes whose kernels they carry: here a real engine database, one of whose
// plans gets kernel 0x11 linked.
class PlansRecipeBundles : public EngineDatabaseSuite {};

TEST_F(PlansRecipeBundles, BundlesCarryRecipesAndOldBundlesStillImport) {
  TempDir dir;
  const std::string source = CopyDatabase(db_, dir.File("source.db"));
  EnvironmentRowId env = 0;
  std::string fingerprint, description;
  {
    RawDb raw(source);
    env = raw.Int("SELECT min(environment_id) FROM plans");
    fingerprint =
        raw.Text("SELECT fingerprint FROM environments WHERE id = " + std::to_string(env));
    description =
        raw.Text("SELECT description FROM environments WHERE id = " + std::to_string(env));
    const int64_t plan = raw.Int("SELECT min(id) FROM plans");
    auto repo = test::OpenRepository(source);
    NewKernel kernel = KernelNamed(0x11);
    kernel.plan_id = plan;
    KernelRowId id = 0;
    ASSERT_TRUE(repo->PutKernel(env, kernel, &id).ok());
    ASSERT_TRUE(repo->PutGraphRecipe(env, "seed-job", SampleRecipe({0x11})).ok());
    ASSERT_TRUE(repo->PutGraphRecipe(env, "seed-job", kGone).ok());
  }
  const std::string bundle = dir.File("warm.bundle");
  const nlohmann::json exported = Json(PlansOn(source, {"export", bundle, "--json"}));
  EXPECT_EQ(exported["recipes"], 1);
  EXPECT_EQ(exported["recipes_skipped"], 1);

  // A target without the kernel (and no --trust-kernels) skips the recipe; one that stores it
  // takes it.
  const nlohmann::json bare = Json(PlansOn(dir.File("bare.db"), {"import", bundle, "--json"}));
  EXPECT_EQ(bare["recipes_skipped"], 1) << bare.dump();
  const std::string warm = dir.File("warm.db");
  {
    auto repo = test::OpenRepository(warm);
    EnvironmentRowId target = 0;
    ASSERT_TRUE(repo->EnsureEnvironmentText(fingerprint, description, &target).ok());
    KernelRowId id = 0;
    ASSERT_TRUE(repo->PutKernel(target, KernelNamed(0x11), &id).ok());
  }
  const nlohmann::json imported = Json(PlansOn(warm, {"import", bundle, "--json"}));
  EXPECT_EQ(imported["recipes_added"], 1) << imported.dump();
  EXPECT_EQ(Json(PlansOn(warm, {"import", bundle, "--json"}))["recipes_existing"], 1);
  EXPECT_EQ(Json(PlansOn(warm, {"recipes", "--json"})).size(), 1u);

  // A bundle of schema 5 (no graph_recipes table, no recipes entry) imports as before.
  {
    RawDb raw(bundle);
    raw.Exec("DROP TABLE graph_recipes");
    raw.Exec("DELETE FROM schema_migrations WHERE version = 6");
    raw.Exec("DELETE FROM bundle_manifest WHERE key = 'recipes'");
    raw.Exec("UPDATE bundle_manifest SET value = '5' WHERE key = 'schema_version'");
  }
  const PlansRun old = PlansOn(dir.File("old.db"), {"import", bundle, "--json"});
  ASSERT_EQ(old.code, 0) << old.out << old.err;
  EXPECT_GT(Json(old)["inserted"].get<int64_t>(), 0);
  EXPECT_EQ(Json(old)["recipes_skipped"], 0);
}

}  // namespace
}  // namespace ember::plans_test

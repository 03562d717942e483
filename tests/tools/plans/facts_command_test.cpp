// ember-plans and device facts (Note [Device facts], store/persistent_facts.h): `facts` lists
// them per environment (a damaged row marked, outside text escaped), `stats` counts them,
// `verify` checks their checksums, and `gc` removes the facts of environments that are gone.
#include <gtest/gtest.h>

#include "tests/tools/plans/plans_test_util.h"

namespace ember::plans_test {
namespace {

class PlansFacts : public testing::Test {
 protected:
  void SetUp() override {
    auto repo = test::OpenRepository(db_);
    ASSERT_NE(repo, nullptr);
    EnvironmentRowId gpu = 0, other = 0;
    ASSERT_TRUE(repo->EnsureEnvironment(test::SampleEnvironment("Test GPU"), &gpu).ok());
    ASSERT_TRUE(repo->EnsureEnvironment(test::SampleEnvironment("Other GPU"), &other).ok());
    ASSERT_TRUE(repo->PutDeviceFact(gpu, {"epilogue/f32 bias+relu", "cublaslt 0.01 0.02"}).ok());
    ASSERT_TRUE(repo->PutDeviceFact(gpu, {"epilogue/\x1b]0;pwned\x07", "cublas 1 2"}).ok());
    ASSERT_TRUE(repo->PutDeviceFact(other, {"epilogue/f32 bias+relu", "cublas 0.03 0.01"}).ok());
    gpu_ = gpu;
    other_ = other;
  }

  TempDir dir_;
  const std::string db_ = dir_.File("plans.db");
  EnvironmentRowId gpu_ = 0;
  EnvironmentRowId other_ = 0;
};

TEST_F(PlansFacts, FactsAreListedPerEnvironmentAndCountedByStats) {
  const PlansRun run = PlansOn(db_, {"facts", "--json"});
  ASSERT_EQ(run.code, 0) << run.err;
  const nlohmann::json all = Json(run);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0]["environment_id"], gpu_);
  EXPECT_EQ(all[2]["environment_id"], other_);
  EXPECT_EQ(all[2]["value"], "cublas 0.03 0.01");
  EXPECT_EQ(all[2]["damaged"], false);

  const nlohmann::json one =
      Json(PlansOn(db_, {"facts", "--json", "--env", std::to_string(other_)}));
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0]["name"], "epilogue/f32 bias+relu");

  const PlansRun table = PlansOn(db_, {"facts"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("cublaslt 0.01 0.02"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find('\x1b'), std::string::npos) << "a stored name reached the terminal raw";
  EXPECT_EQ(Json(PlansOn(db_, {"stats", "--json"}))["device_facts"], 3);
}

TEST_F(PlansFacts, VerifyNamesADamagedFact) {
  EXPECT_EQ(Json(PlansOn(db_, {"verify", "--json"}))["facts_checked"], 3);
  RawDb(db_).Exec("UPDATE device_facts SET value = 'cublas 9 9' WHERE value = 'cublas 0.03 0.01'");
  const PlansRun verify = PlansOn(db_, {"verify", "--json"});
  EXPECT_EQ(verify.code, 1) << verify.out << verify.err;
  const nlohmann::json report = Json(verify);
  ASSERT_EQ(report["problems"].size(), 1u) << report.dump();
  EXPECT_NE(report["problems"][0]["where"].get<std::string>().find("device fact"),
            std::string::npos);
  const nlohmann::json listed = Json(PlansOn(db_, {"facts", "--json"}));
  EXPECT_EQ(listed[2]["damaged"], true);
}

TEST_F(PlansFacts, GcRemovesTheFactsOfEnvironmentsThatAreGone) {
  // Another program deleted an environment with foreign keys off (RawDb): its fact stays behind.
  RawDb(db_).Exec("DELETE FROM environments WHERE id = " + std::to_string(other_));
  const nlohmann::json dry = Json(PlansOn(db_, {"gc", "--dry-run", "--json"}));
  EXPECT_EQ(dry["facts_removed"], 1);
  EXPECT_EQ(RawDb(db_).Int("SELECT count(*) FROM device_facts"), 3);
  const PlansRun gc = PlansOn(db_, {"gc"});
  ASSERT_EQ(gc.code, 0) << gc.err;
  EXPECT_NE(gc.out.find("removed 1 device fact(s) of environments that no longer exist"),
            std::string::npos)
      << gc.out;
  EXPECT_EQ(RawDb(db_).Int("SELECT count(*) FROM device_facts"), 2);
  EXPECT_EQ(PlansOn(db_, {"verify"}).code, 0);
}

}  // namespace
}  // namespace ember::plans_test

// issue 13, part 3, through ember-plans: a plan whose fused trace was edited by one byte, its
// row checksum recomputed (tests/store/forged_plans.h), is reported by `verify`, flagged by
// `show` and refused by `import` — the proof the engine runs when it loads a row (Note
// [Optimization proof], store/codec/plan_proof.h), so what the tools accept the engine would load.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/tools/plans/plans_test_util.h"
#include "tests/store/forged_plans.h"

namespace ember::plans_test {
namespace {

const std::vector<std::pair<std::string, forge::TraceEdit>>& Forgeries() {
  static const auto* forgeries = new std::vector<std::pair<std::string, forge::TraceEdit>>{
      {"Mean made ArgMax", forge::MeanToArgMax},
      {"scalar placeholder redirected", forge::RedirectScalar},
      {"output hidden (show does not display it)", forge::HideAnOutput}};
  return *forgeries;
}

constexpr char kProofFailure[] = "is not what its fuser makes of those ops";

// One database of the engine's forgeable program (engine_child_test.cpp), made once.
class PlansForgedTraces : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    db_ = dir_->File("forgeable.db");
    RunEngine(db_, "forgeable");
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  // `path` with its first plan that `edit` applies to forged; returns that plan's row id.
  static int64_t Forge(const std::string& path, const forge::TraceEdit& edit) {
    RawDb raw(path);
    return forge::ForgeRow(raw, edit);
  }

  static inline TempDir* dir_ = nullptr;
  static inline std::string db_;
  TempDir scratch_;
};

TEST_F(PlansForgedTraces, VerifyReportsAndShowFlagsEachForgery) {
  ASSERT_EQ(PlansOn(db_, {"verify"}).code, 0);
  for (const auto& [name, edit] : Forgeries()) {
    SCOPED_TRACE(name);
    const std::string copy = CopyDatabase(db_, scratch_.File("copy.db"));
    const int64_t id = Forge(copy, edit);
    ASSERT_NE(id, 0);
    const std::string where = "plan " + std::to_string(id);
    const PlansRun run = PlansOn(copy, {"verify"});
    EXPECT_EQ(run.code, 1) << run.out << run.err;
    EXPECT_NE(run.out.find(where + ": "), std::string::npos) << run.out;
    EXPECT_NE(run.out.find(kProofFailure), std::string::npos) << run.out;
    const nlohmann::json json = Json(PlansOn(copy, {"verify", "--json"}));
    ASSERT_EQ(json["problems"].size(), 1u) << json.dump(2);
    EXPECT_EQ(json["problems"][0]["where"], where);
    const PlansRun show = PlansOn(copy, {"show", std::to_string(id)});
    EXPECT_EQ(show.code, 1);
    EXPECT_NE(show.out.find("damaged: "), std::string::npos) << show.out;
  }
}

TEST_F(PlansForgedTraces, ImportRefusesEachForgeryAndTakesTheRest) {
  const int64_t plans = Json(PlansOn(db_, {"stats", "--json"}))["plans"];
  for (const auto& [name, edit] : Forgeries()) {
    SCOPED_TRACE(name);
    TempDir round;
    const std::string bundle = round.File("forged.bundle");
    ASSERT_EQ(PlansOn(db_, {"export", bundle}).code, 0);
    const int64_t id = Forge(bundle, edit);
    ASSERT_NE(id, 0);
    const std::string fleet = round.File("fleet.db");
    const PlansRun run = PlansOn(fleet, {"import", bundle, "--json"});
    EXPECT_EQ(run.code, 1) << run.out << run.err;
    const nlohmann::json result = Json(run);
    EXPECT_EQ(result["refused"], 1);
    EXPECT_EQ(result["inserted"], plans - 1);
    ASSERT_EQ(result["refusals"].size(), 1u);
    EXPECT_EQ(result["refusals"][0]["row"], "plan " + std::to_string(id));
    EXPECT_NE(result["refusals"][0]["reason"].get<std::string>().find(kProofFailure),
              std::string::npos)
        << result.dump(2);
    EXPECT_EQ(PlansOn(fleet, {"verify"}).code, 0);
  }
}

}  // namespace
}  // namespace ember::plans_test

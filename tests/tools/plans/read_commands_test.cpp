// ember-plans' read commands on a database the engine wrote: stats, ls, show, dot, workloads,
// their JSON shapes (docs/ember-plans.md), help and the default database path.
#include <gtest/gtest.h>

#include "engine/stream/trace.h"
#include "store/admin/plan_inventory.h"
#include "store/repository/plan_row_check.h"
#include "store/sqlite/plan_database.h"
#include "tests/tools/plans/plans_test_util.h"

namespace ember::plans_test {
namespace {

class PlansRead : public EngineDatabaseSuite {
 protected:
  // The id of a plan with a fused leaf (from ls --json).
  static int64_t FusedPlanId() {
    const nlohmann::json plans = Json(PlansOn(db_, {"ls", "--json", "--sort", "score"}));
    EXPECT_FALSE(plans.empty());
    return plans.empty() ? 0 : plans[0]["id"].get<int64_t>();
  }
};

TEST_F(PlansRead, StatsJsonHasTheDocumentedIntegerFields) {
  const PlansRun run = PlansOn(db_, {"stats", "--json"});
  ASSERT_EQ(run.code, 0) << run.err;
  const nlohmann::json stats = Json(run);
  for (const char* field :
       {"plans", "triggers", "workloads", "kernels", "quarantined", "schema_version",
        "environments", "plan_bytes", "plan_hits", "device_facts", "graph_recipes"}) {
    ASSERT_TRUE(stats.contains(field)) << field;
    EXPECT_TRUE(stats[field].is_number_integer()) << field;
  }
  EXPECT_GT(stats["plans"].get<int64_t>(), 0);
  EXPECT_GE(stats["triggers"].get<int64_t>(), stats["plans"].get<int64_t>());
  EXPECT_EQ(stats["workloads"], 1);
  EXPECT_EQ(stats["environments"], 1);
  EXPECT_EQ(stats["quarantined"], 0);
  EXPECT_EQ(stats["schema_version"], 6);
  EXPECT_GT(stats["plan_hits"].get<int64_t>(), 0);  // the second run hit the stored plans
}

TEST_F(PlansRead, StatsHumanIsAnAlignedTable) {
  const PlansRun run = PlansOn(db_, {"stats"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("schema version"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("quarantined"), std::string::npos);
  EXPECT_EQ(run.out.find("\x1b["), std::string::npos) << "no color when not on a terminal";
  EXPECT_TRUE(WideLines(run.out).empty()) << run.out;
}

TEST_F(PlansRead, LsListsEveryPlanWithItsStrategy) {
  const PlansRun run = PlansOn(db_, {"ls"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("fused ElementWise("), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("NumericFloat::Mul"), std::string::npos) << run.out;
  EXPECT_TRUE(WideLines(run.out).empty()) << run.out;

  const nlohmann::json plans = Json(PlansOn(db_, {"ls", "--json"}));
  const nlohmann::json stats = Json(PlansOn(db_, {"stats", "--json"}));
  ASSERT_TRUE(plans.is_array());
  EXPECT_EQ(static_cast<int64_t>(plans.size()), stats["plans"].get<int64_t>());
  for (const nlohmann::json& plan : plans) {
    for (const char* field : {"id", "first_op", "num_ops", "strategy", "best_score", "hits",
                              "last_hit", "origin", "bytes", "environment"}) {
      EXPECT_TRUE(plan.contains(field)) << field << " in " << plan.dump();
    }
    EXPECT_EQ(plan["origin"], "local");
    EXPECT_TRUE(plan["problem"].is_null());
  }
}

TEST_F(PlansRead, LsSortsFiltersAndLimits) {
  const nlohmann::json by_hits = Json(PlansOn(db_, {"ls", "--json", "--sort", "hits"}));
  ASSERT_GE(by_hits.size(), 2u);
  for (size_t i = 1; i < by_hits.size(); ++i) {
    EXPECT_GE(by_hits[i - 1]["hits"].get<int64_t>(), by_hits[i]["hits"].get<int64_t>());
  }
  const nlohmann::json top = Json(PlansOn(db_, {"ls", "--json", "--sort", "size", "--limit", "1"}));
  ASSERT_EQ(top.size(), 1u);
  for (const nlohmann::json& plan : by_hits) {
    EXPECT_LE(plan["bytes"].get<int64_t>(), top[0]["bytes"].get<int64_t>());
  }
  EXPECT_EQ(Json(PlansOn(db_, {"ls", "--json", "--workload", "seed-job"})).size(), by_hits.size());
  EXPECT_TRUE(Json(PlansOn(db_, {"ls", "--json", "--workload", "nobody"})).empty());
  EXPECT_EQ(Json(PlansOn(db_, {"ls", "--json", "--env", "1"})).size(), by_hits.size());
  EXPECT_EQ(Json(PlansOn(db_, {"ls", "--json", "--env", "env-"})).size(), by_hits.size());
  const PlansRun missing = PlansOn(db_, {"ls", "--env", "env-zz"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("no environment 'env-zz'"), std::string::npos) << missing.err;
  EXPECT_EQ(PlansOn(db_, {"ls", "--sort", "colour"}).code, 64);
}

TEST_F(PlansRead, ShowPrintsTheEnginesFusionTraceTable) {
  const int64_t id = FusedPlanId();
  const PlansRun run = PlansOn(db_, {"show", std::to_string(id)});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("relative ops"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("triggers ("), std::string::npos);
  EXPECT_NE(run.out.find("▸ fused "), std::string::npos);
  EXPECT_NE(run.out.find("fused trace of block"), std::string::npos);

  // The table is the engine's own printer applied to the stored plan.
  std::unique_ptr<PlanDatabase> db;
  ASSERT_TRUE(PlanDatabase::Open({.path = db_, .read_only = true, .create = false}, &db).ok());
  PlanRecord record;
  ASSERT_TRUE(ReadPlan(db->sqlite(), id, &record).ok());
  ExecutionPlan plan;
  ASSERT_TRUE(CheckPlanRecord(record, &plan).ok());
  const std::string table = FormatExecutionTable(plan.optimization.strategy, plan.operations);
  EXPECT_NE(run.out.find(table), std::string::npos) << table << "\n---\n" << run.out;

  const nlohmann::json json = Json(PlansOn(db_, {"--json", "show", std::to_string(id)}));
  EXPECT_EQ(json["id"], id);
  EXPECT_EQ(json["fusion_trace"], table);
  EXPECT_EQ(json["ops"].size(), plan.operations.size());
  EXPECT_EQ(json["triggers"].size(), plan.triggers.size());
  bool fused = false;
  for (const nlohmann::json& block : json["blocks"]) {
    if (block["kind"] == "fused") {
      fused = true;
      EXPECT_TRUE(block["fused_trace"].is_string());
    }
  }
  EXPECT_TRUE(fused) << json.dump(2);
}

TEST_F(PlansRead, ShowOfAnUnknownPlanFails) {
  const PlansRun run = PlansOn(db_, {"show", "99999"});
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.err.find("has no plan 99999"), std::string::npos) << run.err;
}

TEST_F(PlansRead, DotIsGraphviz) {
  const PlansRun run = PlansOn(db_, {"dot", std::to_string(FusedPlanId())});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out.rfind("digraph plan_", 0), 0u) << run.out;
  EXPECT_NE(run.out.find("subgraph cluster_0"), std::string::npos);
  EXPECT_NE(run.out.find("fused "), std::string::npos);
  EXPECT_NE(run.out.find(" -> op"), std::string::npos);
  EXPECT_EQ(run.out.back(), '\n');
  EXPECT_EQ(run.out.substr(run.out.size() - 2), "}\n");

  const nlohmann::json graph = Json(PlansOn(db_, {"dot", "--json", std::to_string(FusedPlanId())}));
  ASSERT_FALSE(graph["blocks"].empty());
  EXPECT_EQ(graph["blocks"][0]["fused"], true);
  size_t covered = 0;
  for (const nlohmann::json& block : graph["blocks"]) covered += block["ops"].size();
  EXPECT_EQ(covered, graph["ops"].size());
  bool internal_edge = false;
  for (const nlohmann::json& edge : graph["edges"]) {
    if (!edge["from"].is_null()) {
      internal_edge = true;
      EXPECT_LT(edge["from"].get<int64_t>(), edge["to"].get<int64_t>());
    }
  }
  EXPECT_TRUE(internal_edge) << graph.dump(2);
}

TEST_F(PlansRead, WorkloadsShowTheExplorationLedger) {
  const nlohmann::json rows = Json(PlansOn(db_, {"workloads", "--json"}));
  ASSERT_EQ(rows.size(), 1u) << rows.dump();
  const nlohmann::json& w = rows[0];
  EXPECT_EQ(w["name"], "seed-job");
  EXPECT_GT(w["explorations"].get<int64_t>(), 0);
  EXPECT_TRUE(w["max_explorations"].is_null());
  EXPECT_GT(w["hits"].get<int64_t>(), 0);
  EXPECT_EQ(w["exhausted"], false);
  EXPECT_GT(w["plans_used"].get<int64_t>(), 0);
  const PlansRun human = PlansOn(db_, {"workloads"});
  EXPECT_NE(human.out.find("seed-job"), std::string::npos) << human.out;
  EXPECT_NE(human.out.find(" / ∞"), std::string::npos) << human.out;
  EXPECT_TRUE(WideLines(human.out).empty()) << human.out;
}

TEST_F(PlansRead, ColorOnlyOnATerminalWithoutNoColor) {
  const std::string colored = PlansOnTerminal({"--db", db_, "verify"});
  EXPECT_NE(colored.find("\x1b[32mhealthy\x1b[0m"), std::string::npos) << colored;
  const std::string plain = PlansOnTerminal({"--db", db_, "verify"}, {"NO_COLOR=1"});
  EXPECT_NE(plain.find("healthy"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("\x1b["), std::string::npos) << plain;
}

TEST_F(PlansRead, HelpExplainsEveryCommand) {
  const PlansRun run = Plans({"--help"});
  ASSERT_EQ(run.code, 0);
  for (const char* command : {"stats", "ls", "show", "dot", "facts", "recipes", "workloads",
                              "reset-explorations", "set-cap", "verify", "gc", "export", "import",
                              "copy", "migrate", "vacuum", "quarantine", "Examples:"}) {
    EXPECT_NE(run.out.find(command), std::string::npos) << command;
  }
  EXPECT_TRUE(WideLines(run.out).empty()) << run.out;
  const PlansRun gc_help = Plans({"gc", "--help"});
  EXPECT_EQ(gc_help.code, 0);
  EXPECT_NE(gc_help.out.find("Example: ember-plans gc"), std::string::npos) << gc_help.out;
  EXPECT_EQ(Plans({"frobnicate"}).code, 64);
  EXPECT_EQ(Plans({}).code, 64);
}

TEST_F(PlansRead, DefaultDatabaseIsTheEngines) {
  const PlansRun run = Plans({"stats", "--json"}, {"EMBER_PLAN_DB=" + db_});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(Json(run)["path"], db_);
  const PlansRun off = Plans({"stats"}, {"EMBER_PLAN_DB=off"});
  EXPECT_EQ(off.code, 2);
  EXPECT_NE(off.err.find("--db"), std::string::npos) << off.err;
}

}  // namespace
}  // namespace ember::plans_test

// Note [Optimization proof] (store/codec/plan_proof.h) must never refuse a plan the engine made: a
// false refusal costs the user the warm start. The differential test's random programs
// (program_generator.h: every fuser, views, casts, masks, drops, f16/bf16, moved operands)
// run on an engine with a plan database; every row it stored must decode and pass ValidatePlan
// (which runs the proof, as the engine's DecodePlanParts does: store/repository/plan_row_check.h
// cannot join this file, its plan_inventory.h clashes with multi_stream.h's ReadPlan), and a second
// engine that loads them all must quarantine none and compute the same results.
// EMBER_PROOF_PROGRAMS=<n> runs n programs for a soak.
#include <bit>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>

#include "engine/core/config.h"
#include "store/codec/plan_codec.h"

// Before the headers that open namespace ember::testing, which temp_dir.h would then find
// instead of ::testing.
#include "tests/store/sqlite_test_util.h"

#include "tests/api/api_test_util.h"
#include "tests/end_to_end/program_generator.h"

namespace ember {
namespace {

// A fresh CPU engine on the database at `path` (SQLite alone: every plan a second engine uses
// is read back from its row), or on none.
void UseDatabase(const std::string& path) {
  Config config;
  config.plan_db = path;
  config.shm = false;
  config.workload = "plan-proof";
  SetGlobalConfigForTesting(config);
  ReleaseDevice(Device::Cpu());  // the next op starts an engine that reads the configuration
}

int NumPrograms() {
  const char* count = std::getenv("EMBER_PROOF_PROGRAMS");
  return count != nullptr ? std::stoi(count) : 60;
}

// Every program, then the same with shifted dims, on the current engine; the results' bits.
std::vector<std::vector<uint32_t>> RunAll() {
  std::vector<std::vector<uint32_t>> results;
  for (int i = 0; i < NumPrograms(); ++i) {
    for (bool shifted : {false, true}) {
      testing::ProgramResult result;
      testing::OnFreshStream(
          [&] { result = testing::RunRandomProgram(static_cast<uint64_t>(i + 1), shifted); });
      EXPECT_EQ(result.error, "") << "seed " << i + 1;
      std::vector<uint32_t> bits;
      for (const testing::ProgramOutput& out : result.outputs) {
        for (float f : out.floats) bits.push_back(std::bit_cast<uint32_t>(f));
        for (int64_t v : out.ints) bits.push_back(static_cast<uint32_t>(v));
      }
      results.push_back(std::move(bits));
    }
  }
  Sync();  // waits for the plan writer as well
  return results;
}

void CountLeaves(const ExecutionStrategy& s, std::map<std::string, int>* leaves) {
  if (s.kind == ExecutionStrategy::Kind::kOptimization)
    ++(*leaves)[std::string(s.optimization->name())];
  for (const ExecutionStrategy& child : s.children) CountLeaves(child, leaves);
}

TEST(PlanProof, EveryPlanTheEngineStoresIsProvenAndLoadsAgain) {
  sqlite_test::TempDir dir;
  const std::string path = dir.File("plans.db");
  UseDatabase(path);
  const std::vector<std::vector<uint32_t>> explored = RunAll();
  const Stats cold = GetStats();
  EXPECT_GT(cold.explorations, 0u);
  EXPECT_EQ(cold.rows_quarantined, 0u);
  ReleaseDevice(Device::Cpu());

  {
    sqlite_test::RawDb raw(path);
    const std::vector<std::string> ids = raw.Column("SELECT id FROM plans ORDER BY id");
    EXPECT_GT(ids.size(), 100u);
    std::map<std::string, int> leaves;
    for (const std::string& id : ids) {
      EXPECT_EQ(raw.Text("SELECT status FROM plans WHERE id = " + id), "ok") << "plan " << id;
      ExecutionPlan plan;
      Status s = DecodeOperations(raw.Blob("SELECT ops_blob FROM plans WHERE id = " + id),
                                  &plan.operations);
      if (s.ok()) {
        s = DecodeBlockOptimization(raw.Blob("SELECT plan_blob FROM plans WHERE id = " + id),
                                    &plan.optimization);
      }
      if (s.ok()) s = ValidatePlan(plan);
      EXPECT_TRUE(s.ok()) << "plan " << id << ": " << s.ToString();
      if (s.ok()) CountLeaves(plan.optimization.strategy, &leaves);
    }
    std::cout << "[ proof    ] " << ids.size() << " stored plans, fused leaves:";
    for (const auto& [name, count] : leaves) std::cout << " " << name << "=" << count;
    std::cout << "\n";
    for (const char* name : {"ElementWise", "Matmul", "Reduce", "ReduceBroadcasted"}) {
      EXPECT_GT(leaves[name], 0) << name << " never fused: the check proved nothing about it";
    }
  }

  UseDatabase(path);
  const std::vector<std::vector<uint32_t>> loaded = RunAll();
  const Stats warm = GetStats();
  EXPECT_GT(warm.plans_loaded_from_db, 0u);
  EXPECT_EQ(warm.rows_quarantined, 0u);
  EXPECT_EQ(warm.explorations, 0u);
  EXPECT_EQ(loaded, explored);

  Config off;
  off.plan_db = "off";
  SetGlobalConfigForTesting(off);
  ReleaseDevice(Device::Cpu());
}

}  // namespace
}  // namespace ember

// ember-lab's result JSON (tools/lab/run_result.h): what a child prints, its parent reads back
// (cold/warm, workers), so writing and reading must keep every field.
#include "tools/lab/run_result.h"

#include <cstdint>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ember::lab {
namespace {

// Every field a distinct value, so a field read into another shows.
RunResult SampleResult() {
  RunResult r;
  r.scenario = "transformer";
  r.device = "cuda:0";
  r.database = "plans.db";
  r.workload = "lab-transformer";
  r.device_note = "note";
  r.steps = 8;
  r.main_unix_ns = int64_t{1'796'611'104'104'223'882};
  r.stats.explorations = 1;
  r.stats.cache_hits = 20;
  r.stats.cache_hits_from_shm = 3;
  r.stats.cache_hits_from_db = 4;
  r.stats.plans = 5;
  r.stats.plans_loaded_from_shm = 6;
  r.stats.plans_loaded_on_notify = 7;
  r.stats.plans_loaded_from_db = 8;
  r.stats.plans_published = 9;
  r.stats.shm_publish_skipped = 10;
  r.stats.rows_quarantined = 11;
  r.stats.plan_load_ms = 1.5;
  r.stats.fused_executions = 12;
  r.stats.unfused_operations = 13;
  r.stats.launches = 14;
  r.stats.kernels_compiled = 15;
  r.stats.compile_ms = 2.5;
  r.stats.kernels_loaded_from_db = 16;
  r.stats.kernels_loaded_from_shm = 17;
  r.stats.kernels_rebuilt = 18;
  r.stats.launch_record_hits = 19;
  r.stats.launch_record_misses = 21;
  r.stats.launch_record_evictions = 22;
  r.stats.start = {.engine_ms = 31.5,
                   .context_ms = 32.5,
                   .plan_db_open_ms = 33.5,
                   .libraries_ms = 34.5,
                   .kernel_load_ms = 35.5,
                   .kernel_source_ms = 37.5,
                   .first_op_ms = 36.5};
  r.engine_start_ms = 3.5;
  r.time_to_first_result_ms = 4.5;
  r.total_ms = 5.5;
  r.steady_ms_per_step = 0.5;
  r.max_rel_error = 1e-7;
  r.tolerance = 1e-4;
  r.details = {{"width", 64.0}};
  r.step_rows = {{.label = "step 1", .explorations = 1, .ms = 4.5, .misses = {"[plan] miss"}}};
  return r;
}

TEST(RunResultJson, ReadingBackWhatWasWrittenKeepsEveryField) {
  const nlohmann::json written = ToJson(SampleResult());
  const RunResult read = RunResultFromJson(written);
  EXPECT_EQ(ToJson(read), written);
  EXPECT_EQ(read.main_unix_ns, int64_t{1'796'611'104'104'223'882});
  EXPECT_EQ(written["main_unix_ns"].get<int64_t>(), int64_t{1'796'611'104'104'223'882});
  EXPECT_EQ(read.stats.start.kernel_load_ms, 35.5);
  EXPECT_EQ(written["start_first_op_ms"].get<double>(), 36.5);
}

TEST(RunResultJson, AResultWithoutMainUnixNsReadsAsZero) {
  nlohmann::json older = ToJson(SampleResult());
  older.erase("main_unix_ns");
  EXPECT_EQ(RunResultFromJson(older).main_unix_ns, 0);
}

}  // namespace
}  // namespace ember::lab

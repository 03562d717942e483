#include "tools/lab/run_result.h"

#include <cmath>
#include <limits>

namespace ember::lab {

namespace {

nlohmann::json StepToJson(const StepRow& s) {
  return {{"label", s.label},
          {"explorations", s.explorations},
          {"cache_hits", s.cache_hits},
          {"fused_executions", s.fused_executions},
          {"unfused_operations", s.unfused_operations},
          {"launches", s.launches},
          {"ms", s.ms},
          {"misses", s.misses}};
}

StepRow StepFromJson(const nlohmann::json& j) {
  return {.label = j.at("label").get<std::string>(),
          .explorations = j.at("explorations").get<uint64_t>(),
          .cache_hits = j.at("cache_hits").get<uint64_t>(),
          .fused_executions = j.at("fused_executions").get<uint64_t>(),
          .unfused_operations = j.at("unfused_operations").get<uint64_t>(),
          .launches = j.at("launches").get<uint64_t>(),
          .ms = j.at("ms").get<double>(),
          .misses = j.value("misses", std::vector<std::string>{})};
}

// JSON has no infinity or NaN: an unusable error is written as the largest double, which fails
// every tolerance just the same.
double Finite(double x) { return std::isfinite(x) ? x : std::numeric_limits<double>::max(); }

}  // namespace

nlohmann::json ToJson(const RunResult& r) {
  const Stats& s = r.stats;
  nlohmann::json steps = nlohmann::json::array();
  for (const StepRow& row : r.step_rows) steps.push_back(StepToJson(row));
  nlohmann::json out = {{"scenario", r.scenario},
                        {"device", r.device},
                        {"database", r.database},
                        {"workload", r.workload},
                        {"device_note", r.device_note},
                        {"steps", r.steps},
                        {"main_unix_ns", r.main_unix_ns},
                        {"explorations", s.explorations},
                        {"cache_hits", s.cache_hits},
                        {"cache_hits_memory", r.MemoryHits()},
                        {"cache_hits_from_shm", s.cache_hits_from_shm},
                        {"cache_hits_from_db", s.cache_hits_from_db},
                        {"plans", s.plans},
                        {"plans_loaded_from_shm", s.plans_loaded_from_shm},
                        {"plans_loaded_on_notify", s.plans_loaded_on_notify},
                        {"plans_loaded_from_db", s.plans_loaded_from_db},
                        {"plans_published", s.plans_published},
                        {"shm_publish_skipped", s.shm_publish_skipped},
                        {"rows_quarantined", s.rows_quarantined},
                        {"plan_load_ms", s.plan_load_ms},
                        {"fused_executions", s.fused_executions},
                        {"unfused_operations", s.unfused_operations},
                        {"launches", s.launches},
                        {"kernels_compiled", s.kernels_compiled},
                        {"compile_ms", s.compile_ms},
                        {"kernels_loaded_from_db", s.kernels_loaded_from_db},
                        {"kernels_loaded_from_shm", s.kernels_loaded_from_shm},
                        {"kernels_rebuilt", s.kernels_rebuilt},
                        {"kernels_register_capped", s.kernels_register_capped},
                        {"launch_record_hits", s.launch_record_hits},
                        {"launch_record_misses", s.launch_record_misses},
                        {"launch_record_evictions", s.launch_record_evictions},
                        {"engine_start_ms", r.engine_start_ms},
                        {"time_to_first_result_ms", r.time_to_first_result_ms},
                        {"total_ms", r.total_ms},
                        {"steady_ms_per_step", r.steady_ms_per_step},
                        {"max_rel_error", Finite(r.max_rel_error)},
                        {"tolerance", r.tolerance},
                        {"passed", r.Passed()},
                        {"details", r.details},
                        {"step_rows", steps}};
  // ember::GraphStats (launch windows replayed as CUDA graphs) and StartBreakdown (the parts of
  // an engine's start; they overlap), every field, from stats.h's lists.
#define EMBER_FIELD(f) out["graph_" #f] = s.graphs.f;
  EMBER_GRAPH_STATS_FIELDS(EMBER_FIELD)
#undef EMBER_FIELD
#define EMBER_FIELD(f) out["start_" #f] = s.start.f;
  EMBER_START_BREAKDOWN_FIELDS(EMBER_FIELD)
#undef EMBER_FIELD
  return out;
}

RunResult RunResultFromJson(const nlohmann::json& j) {
  RunResult r;
  r.scenario = j.at("scenario").get<std::string>();
  r.device = j.at("device").get<std::string>();
  r.database = j.at("database").get<std::string>();
  r.workload = j.at("workload").get<std::string>();
  r.device_note = j.value("device_note", "");
  r.steps = j.at("steps").get<int>();
  r.main_unix_ns = j.value("main_unix_ns", int64_t{0});
  Stats& s = r.stats;
  // Older result files lack some of these: zeros.
#define EMBER_FIELD(f) s.start.f = j.value("start_" #f, 0.0);
  EMBER_START_BREAKDOWN_FIELDS(EMBER_FIELD)
#undef EMBER_FIELD
  s.explorations = j.at("explorations").get<uint64_t>();
  s.cache_hits = j.at("cache_hits").get<uint64_t>();
  s.cache_hits_from_shm = j.at("cache_hits_from_shm").get<uint64_t>();
  s.cache_hits_from_db = j.at("cache_hits_from_db").get<uint64_t>();
  s.plans = j.at("plans").get<uint64_t>();
  s.plans_loaded_from_shm = j.at("plans_loaded_from_shm").get<uint64_t>();
  s.plans_loaded_on_notify = j.at("plans_loaded_on_notify").get<uint64_t>();
  s.plans_loaded_from_db = j.at("plans_loaded_from_db").get<uint64_t>();
  s.plans_published = j.at("plans_published").get<uint64_t>();
  s.shm_publish_skipped = j.at("shm_publish_skipped").get<uint64_t>();
  s.rows_quarantined = j.at("rows_quarantined").get<uint64_t>();
  s.plan_load_ms = j.at("plan_load_ms").get<double>();
  s.fused_executions = j.at("fused_executions").get<uint64_t>();
  s.unfused_operations = j.at("unfused_operations").get<uint64_t>();
  s.launches = j.at("launches").get<uint64_t>();
  s.kernels_compiled = j.at("kernels_compiled").get<uint64_t>();
  s.compile_ms = j.at("compile_ms").get<double>();
  s.kernels_loaded_from_db = j.at("kernels_loaded_from_db").get<uint64_t>();
  s.kernels_loaded_from_shm = j.at("kernels_loaded_from_shm").get<uint64_t>();
  s.kernels_rebuilt = j.at("kernels_rebuilt").get<uint64_t>();
  // Older result files have no register caps: zero.
  s.kernels_register_capped = j.value("kernels_register_capped", uint64_t{0});
  // Older result files have no launch records: zeros.
  s.launch_record_hits = j.value("launch_record_hits", uint64_t{0});
  s.launch_record_misses = j.value("launch_record_misses", uint64_t{0});
  s.launch_record_evictions = j.value("launch_record_evictions", uint64_t{0});
  // Older result files have no graphs: zeros.
#define EMBER_FIELD(f) s.graphs.f = j.value("graph_" #f, uint64_t{0});
  EMBER_GRAPH_STATS_FIELDS(EMBER_FIELD)
#undef EMBER_FIELD
  r.engine_start_ms = j.at("engine_start_ms").get<double>();
  r.time_to_first_result_ms = j.at("time_to_first_result_ms").get<double>();
  r.total_ms = j.at("total_ms").get<double>();
  r.steady_ms_per_step = j.at("steady_ms_per_step").get<double>();
  r.max_rel_error = j.at("max_rel_error").get<double>();
  r.tolerance = j.at("tolerance").get<double>();
  r.details = j.at("details").get<std::map<std::string, double>>();
  for (const nlohmann::json& step : j.at("step_rows")) r.step_rows.push_back(StepFromJson(step));
  return r;
}

}  // namespace ember::lab

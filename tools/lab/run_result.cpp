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
  return {{"scenario", r.scenario},
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
          {"launch_record_hits", s.launch_record_hits},
          {"launch_record_misses", s.launch_record_misses},
          {"launch_record_evictions", s.launch_record_evictions},
          // ember::GraphStats: launch windows replayed as CUDA graphs.
          {"graph_captures", s.graphs.captures},
          {"graph_replays", s.graphs.replays},
          {"graph_replayed_launches", s.graphs.replayed_launches},
          {"graph_node_updates", s.graphs.node_updates},
          {"graph_fallback_diverged", s.graphs.fallback_diverged},
          {"graph_fallback_ended_early", s.graphs.fallback_ended_early},
          {"graph_fallback_replay_failed", s.graphs.fallback_replay_failed},
          {"graph_recipes_loaded", s.graphs.recipes_loaded},
          {"graph_recipes_stored", s.graphs.recipes_stored},
          {"graph_windows", s.graphs.windows},
          {"graph_ends_matmul", s.graphs.ends_matmul},
          {"graph_ends_other_work", s.graphs.ends_other_work},
          {"graph_ends_host_wait", s.graphs.ends_host_wait},
          {"graph_ends_stream_switch", s.graphs.ends_stream_switch},
          {"graph_ends_full", s.graphs.ends_full},
          {"graph_ends_complete", s.graphs.ends_complete},
          {"engine_start_ms", r.engine_start_ms},
          // ember::StartBreakdown: the parts overlap (stats.h).
          {"start_engine_ms", s.start.engine_ms},
          {"start_context_ms", s.start.context_ms},
          {"start_plan_db_open_ms", s.start.plan_db_open_ms},
          {"start_libraries_ms", s.start.libraries_ms},
          {"start_kernel_load_ms", s.start.kernel_load_ms},
          {"start_kernel_source_ms", s.start.kernel_source_ms},
          {"start_first_op_ms", s.start.first_op_ms},
          {"time_to_first_result_ms", r.time_to_first_result_ms},
          {"total_ms", r.total_ms},
          {"steady_ms_per_step", r.steady_ms_per_step},
          {"max_rel_error", Finite(r.max_rel_error)},
          {"tolerance", r.tolerance},
          {"passed", r.Passed()},
          {"details", r.details},
          {"step_rows", steps}};
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
  s.start = {.engine_ms = j.value("start_engine_ms", 0.0),
             .context_ms = j.value("start_context_ms", 0.0),
             .plan_db_open_ms = j.value("start_plan_db_open_ms", 0.0),
             .libraries_ms = j.value("start_libraries_ms", 0.0),
             .kernel_load_ms = j.value("start_kernel_load_ms", 0.0),
             .kernel_source_ms = j.value("start_kernel_source_ms", 0.0),
             .first_op_ms = j.value("start_first_op_ms", 0.0)};
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
  // Older result files have no launch records: zeros.
  s.launch_record_hits = j.value("launch_record_hits", uint64_t{0});
  s.launch_record_misses = j.value("launch_record_misses", uint64_t{0});
  s.launch_record_evictions = j.value("launch_record_evictions", uint64_t{0});
  // Older result files have no graphs: zeros.
  s.graphs.captures = j.value("graph_captures", uint64_t{0});
  s.graphs.replays = j.value("graph_replays", uint64_t{0});
  s.graphs.replayed_launches = j.value("graph_replayed_launches", uint64_t{0});
  s.graphs.node_updates = j.value("graph_node_updates", uint64_t{0});
  s.graphs.fallback_diverged = j.value("graph_fallback_diverged", uint64_t{0});
  s.graphs.fallback_ended_early = j.value("graph_fallback_ended_early", uint64_t{0});
  s.graphs.fallback_replay_failed = j.value("graph_fallback_replay_failed", uint64_t{0});
  s.graphs.recipes_loaded = j.value("graph_recipes_loaded", uint64_t{0});
  s.graphs.recipes_stored = j.value("graph_recipes_stored", uint64_t{0});
  s.graphs.windows = j.value("graph_windows", uint64_t{0});
  s.graphs.ends_matmul = j.value("graph_ends_matmul", uint64_t{0});
  s.graphs.ends_other_work = j.value("graph_ends_other_work", uint64_t{0});
  s.graphs.ends_host_wait = j.value("graph_ends_host_wait", uint64_t{0});
  s.graphs.ends_stream_switch = j.value("graph_ends_stream_switch", uint64_t{0});
  s.graphs.ends_full = j.value("graph_ends_full", uint64_t{0});
  s.graphs.ends_complete = j.value("graph_ends_complete", uint64_t{0});
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

// The scenario driver: the step clock, the scenario table, and RunScenario, which wraps one
// scenario with the engine's counters and the timings.
#include "tools/lab/scenarios.h"

#include "engine/core/plan_db_location.h"

#include "engine/core/config.h"

#include <algorithm>

namespace ember::lab {

void StepClock::StartStep() {
  if (!step_ms_.empty()) step_start_ = Clock::now();
}

double StepClock::StepDone() {
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - step_start_).count();
  step_ms_.push_back(ms);
  return ms;
}

double StepClock::FirstResultMs() const { return step_ms_.empty() ? 0.0 : step_ms_.front(); }

double StepClock::TotalMs() const {
  double total = 0;
  for (double ms : step_ms_) total += ms;
  return total;
}

double StepClock::SteadyMsPerStep() const {
  if (step_ms_.empty()) return 0.0;
  if (step_ms_.size() == 1) return step_ms_.front();
  std::vector<double> rest(step_ms_.begin() + 1, step_ms_.end());
  std::sort(rest.begin(), rest.end());
  const size_t n = rest.size();
  return n % 2 == 1 ? rest[n / 2] : (rest[n / 2 - 1] + rest[n / 2]) / 2.0;
}

StepRow StepDelta(std::string label, const Stats& before, const Stats& after, double ms,
                  Device device) {
  // The newest lines are this step's: as many as it missed (the list keeps the newest 16).
  std::vector<std::string> recent = RecentMisses(device);
  const uint64_t missed = after.misses.total() - before.misses.total();
  const size_t keep = static_cast<size_t>(std::min<uint64_t>(missed, recent.size()));
  recent.erase(recent.begin(), recent.end() - static_cast<ptrdiff_t>(keep));
  return {.label = std::move(label),
          .explorations = after.explorations - before.explorations,
          .cache_hits = after.cache_hits - before.cache_hits,
          .fused_executions = after.fused_executions - before.fused_executions,
          .unfused_operations = after.unfused_operations - before.unfused_operations,
          .launches = after.launches - before.launches,
          .ms = ms,
          .misses = std::move(recent)};
}

Tensor ToTensor(const Matrix& m, Device device) { return ToTensor(m, {m.rows, m.cols}, device); }

Tensor ToTensor(const Matrix& m, std::vector<int64_t> shape, Device device) {
  return Tensor::FromVector(ToFloats(m), std::move(shape), device);
}

namespace {

struct ScenarioEntry {
  const char* name;
  void (*run)(const ScenarioContext&, RunResult&);
};

constexpr ScenarioEntry kScenarios[] = {
    {"reuse", RunReuse},     {"unrelated", RunUnrelated},
    {"mlp", RunMlp},         {"transformer", RunTransformer},
    {"dynamic", RunDynamic},
};

}  // namespace

const std::vector<std::string>& ScenarioNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const ScenarioEntry& e : kScenarios) out.push_back(e.name);
    return out;
  }();
  return names;
}

bool IsScenario(const std::string& name) {
  const auto& names = ScenarioNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

RunResult RunScenario(const LabOptions& options, Device device, Clock::time_point origin) {
  const ScenarioEntry* entry = nullptr;
  for (const ScenarioEntry& e : kScenarios) {
    if (options.scenario == e.name) entry = &e;
  }
  RunResult result;
  result.scenario = options.scenario;
  result.device = device.ToString();
  // What the engine reads (ember.toml, then the variables engine_setup.cpp exported).
  const Config& config = GlobalConfig();
  result.database = ShownLocation(PlanDbPath(config));  // a server's URI without its password
  result.workload = config.workload.empty() ? std::string("ember-lab") : config.workload;
  result.tolerance = kF32Tolerance;
  if (entry == nullptr) throw Error("ember-lab: unknown scenario \"" + options.scenario + "\"");

  // Starting the device's engine (reading the configuration, opening the plan database) is
  // part of every scenario's first step; a Sync of the empty stream does it up front, so that
  // it can be shown on its own. It queues nothing, so the scenario's ops are unchanged.
  Sync(device);
  result.engine_start_ms = std::chrono::duration<double, std::milli>(Clock::now() - origin).count();
  StepClock clock(origin);
  Progress progress(!options.json && !options.no_progress && StdoutIsTerminal(), options.scenario);
  ScenarioContext ctx{.options = options, .device = device, .clock = clock, .progress = progress};
  entry->run(ctx, result);
  Sync(device);  // the plan writer's queued work too (Sync waits for it)
  result.stats = GetStats(device);
  result.time_to_first_result_ms = clock.FirstResultMs();
  result.total_ms = clock.TotalMs();
  result.steady_ms_per_step = clock.SteadyMsPerStep();
  return result;
}

}  // namespace ember::lab

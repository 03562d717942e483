// The scenarios ember-lab runs, one function each, and what they share: the step clock, the
// device, the options. A scenario builds its inputs on the host (reference_math.h), runs its
// steps on the engine, reads each step's result back (a sync), and at the end checks its final
// outputs against the double-precision reference. RunScenario adds the engine's counters and
// the timings.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "tools/lab/options.h"
#include "tools/lab/progress.h"
#include "tools/lab/reference_math.h"
#include "tools/lab/run_result.h"

namespace ember::lab {

using Clock = std::chrono::steady_clock;

// Times the steps. The first step is timed from `origin` (the start of main(), or, for a
// worker, the moment the start barrier opened), so time to first result includes the engine's
// start-up and the plan database's loading; every later step from its StartStep(). Work between
// steps (the scenario's reference checks) is not counted.
class StepClock {
 public:
  explicit StepClock(Clock::time_point origin) : step_start_(origin) {}
  // Call before each step builds its first tensor (a no-op for the first step).
  void StartStep();
  // Call right after the step's result has been read back; returns the step's milliseconds.
  double StepDone();
  double FirstResultMs() const;
  // Time to first result plus the later steps' times.
  double TotalMs() const;
  // Median of the step times after the first (the first when there is one step).
  double SteadyMsPerStep() const;

 private:
  Clock::time_point step_start_;
  std::vector<double> step_ms_;
};

struct ScenarioContext {
  const LabOptions& options;
  Device device;
  StepClock& clock;
  Progress& progress;
};

// Each fills result.steps, details, step_rows and max_rel_error.
void RunReuse(const ScenarioContext& ctx, RunResult& result);
void RunUnrelated(const ScenarioContext& ctx, RunResult& result);
void RunMlp(const ScenarioContext& ctx, RunResult& result);
void RunTransformer(const ScenarioContext& ctx, RunResult& result);
void RunDynamic(const ScenarioContext& ctx, RunResult& result);

// The names ember-lab accepts, in the order `--help` lists them.
const std::vector<std::string>& ScenarioNames();
bool IsScenario(const std::string& name);

// Runs `options.scenario` on `device` and returns its figures (the engine's counters, timings,
// the reference check). Throws ember::Error from the engine.
RunResult RunScenario(const LabOptions& options, Device device, Clock::time_point origin);

// The matrix as an f32 tensor of shape [rows, cols] (or `shape`, same element count).
Tensor ToTensor(const Matrix& m, Device device);
Tensor ToTensor(const Matrix& m, std::vector<int64_t> shape, Device device);

// The difference of two counter snapshots, as one step's row.
// With the explanations of the misses between `before` and `after` on `device`.
StepRow StepDelta(std::string label, const Stats& before, const Stats& after, double ms,
                  Device device);

}  // namespace ember::lab

// The seed's two walk-throughs (README.md, "ember-lab"; tests/end_to_end/seed_walkthrough_test.cpp
// checks the same runs), their programs in seed_programs.h:
//   reuse      (a * b + c * s).exp() on 64x64 (n iterations), another scalar, 32x32, 64x32;
//   unrelated  five independent chains of eight unary/scalar ops before one sync.
// With --log full the engine's own lines (written to stderr) read as the seed shows them; the
// "--- iteration 0: ..." headers go to stderr too, between them.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "tools/lab/scenarios.h"
#include "tools/lab/seed_programs.h"

namespace ember::lab {

namespace {

struct ReuseStep {
  std::string label;
  int64_t rows;
  int64_t cols;
  double scalar;
};

std::string FormatScalar(double s) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", s);
  return buffer;
}

}  // namespace

void RunReuse(const ScenarioContext& ctx, RunResult& result) {
  const int iterations = ctx.options.steps.value_or(3);
  if (iterations < 1) throw Error("ember-lab reuse: --steps must be at least 1");
  std::vector<ReuseStep> plan;
  for (int i = 0; i < iterations; ++i) {
    plan.push_back({"iteration " + std::to_string(i), 64, 64, 2.0});
  }
  plan.push_back({"other scalar", 64, 64, 3.0});
  plan.push_back({"other shape", 32, 32, 2.0});
  plan.push_back({"non-square", 64, 32, 2.0});
  const bool headers = !ctx.options.log.empty() && ctx.options.log != "disabled" &&
                       ctx.options.log != "off" && ctx.options.log != "0";

  ctx.progress.SetTotal(static_cast<int>(plan.size()));
  double worst = 0;
  for (const ReuseStep& step : plan) {
    const std::string shape = std::to_string(step.rows) + "x" + std::to_string(step.cols);
    if (headers) {
      std::fprintf(stderr, "--- %s: (%s) (a * b + c * %s).exp()\n", step.label.c_str(),
                   shape.c_str(), FormatScalar(step.scalar).c_str());
      std::fflush(stderr);
    }
    ctx.clock.StartStep();
    const Stats before = GetStats(ctx.device);
    const std::vector<int64_t> dims = {step.rows, step.cols};
    Tensor a = Tensor::RandomUniform(dims, DType::kF32, ctx.device);
    Tensor b = Tensor::RandomUniform(dims, DType::kF32, ctx.device);
    Tensor c = Tensor::RandomUniform(dims, DType::kF32, ctx.device);
    const std::vector<float> out = SeedExpression(a, b, c, step.scalar).ToVector<float>();
    const double ms = ctx.clock.StepDone();
    result.step_rows.push_back(
        StepDelta(step.label + " (" + shape + ", s=" + FormatScalar(step.scalar) + ")", before,
                  GetStats(ctx.device), ms, ctx.device));
    ctx.progress.Advance();

    const std::vector<float> va = a.ToVector<float>(), vb = b.ToVector<float>(),
                             vc = c.ToVector<float>();
    std::vector<double> ref(out.size());
    for (size_t i = 0; i < ref.size(); ++i) {
      ref[i] = std::exp(double{va[i]} * double{vb[i]} + double{vc[i]} * step.scalar);
    }
    worst = std::max(worst, MaxRelError(out, ref));
  }
  result.steps = static_cast<int>(plan.size());
  result.max_rel_error = worst;
}

void RunUnrelated(const ScenarioContext& ctx, RunResult& result) {
  constexpr int kChains = 5;
  constexpr int kOpsPerChain = 8;
  const int steps = ctx.options.steps.value_or(3);
  const int64_t n = ctx.options.width > 0 ? ctx.options.width : 256;
  if (steps < 1) throw Error("ember-lab unrelated: --steps must be at least 1");

  HostRandom random(ctx.options.seed);
  std::vector<Matrix> host;
  std::vector<Tensor> inputs;
  for (int k = 0; k < kChains; ++k) {
    host.push_back(random.UniformMatrix(n, n, 0.0, 1.0));
    inputs.push_back(Tensor::FromVector(ToFloats(host.back()), {n, n}, ctx.device));
  }
  Sync(ctx.device);

  ctx.progress.SetTotal(steps);
  std::vector<std::vector<float>> last(kChains);
  for (int step = 0; step < steps; ++step) {
    ctx.clock.StartStep();
    const Stats before = GetStats(ctx.device);
    std::vector<Tensor> outputs;
    for (int k = 0; k < kChains; ++k) outputs.push_back(UnrelatedChain(inputs[k]));
    Sync(ctx.device);
    const Stats after = GetStats(ctx.device);
    for (int k = 0; k < kChains; ++k) last[k] = outputs[k].ToVector<float>();
    const double ms = ctx.clock.StepDone();
    result.step_rows.push_back(
        StepDelta("step " + std::to_string(step), before, after, ms, ctx.device));
    if (step == 0) {
      result.details["first_sync_launches"] = static_cast<double>(after.launches - before.launches);
      result.details["first_sync_fused_executions"] =
          static_cast<double>(after.fused_executions - before.fused_executions);
    }
    result.details["last_sync_launches"] = static_cast<double>(after.launches - before.launches);
    // Drop the outputs and run the drops now, so that every step's sync sees the same 40 ops.
    outputs.clear();
    Sync(ctx.device);
    ctx.progress.Advance();
  }
  result.details["ops_per_sync"] = kChains * kOpsPerChain;
  result.details["width"] = static_cast<double>(n);
  result.steps = steps;

  double worst = 0;
  for (int k = 0; k < kChains; ++k) {
    std::vector<double> ref(host[k].v.size());
    for (size_t i = 0; i < ref.size(); ++i) {
      const double x = host[k].v[i] * 0.5;
      ref[i] = std::fabs(std::sin(std::tanh(std::exp(x + 1.0) - 0.25) * 3.0));
    }
    worst = std::max(worst, MaxRelError(last[k], ref));
  }
  result.max_rel_error = worst;
}

}  // namespace ember::lab

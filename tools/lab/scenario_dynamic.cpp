// dynamic: a sequence whose length changes every step, under an exploration budget.
// Each step assembles a sequence of L token vectors (Cat of L [1, width] rows) and runs
// weight-free self-attention on it: y = softmax(x x^T / sqrt(width)) x. L follows a fixed
// schedule over [4, --seq] (default 12) that repeats after (--seq - 3) steps.
//
// Why Cat: the relative form (Note [Relative form]) makes [9, 32] and [11, 32] the same shape
// ([1, 2]), so a length change alone hits the plans of the previous length. A Cat of L inputs
// is a different op for every L, so every new length misses, which is what a dynamic program
// does to the plan cache. With the cap (--max-explorations, default 10 here: the first step spends
// 8, each new length 1 more) the workload stops
// exploring once it has spent its budget; later misses run unfused and store nothing. The budget
// is stored per workload in the plan database, so a second run of the same workload on the same
// database does not explore at all.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "tools/lab/scenarios.h"

namespace ember::lab {

namespace {

// The length of step `step`: 4, 9, 5, 10, ... for max 12 (stride 5 modulo 9).
int64_t LengthAt(int step, int64_t max_len) {
  const int64_t span = max_len - 3;
  return 4 + (static_cast<int64_t>(step) * 5) % span;
}

Matrix ReferenceAttention(const Matrix& x) {
  Matrix scores = MatMul(x, Transpose(x));
  scores = Scale(scores, 1.0 / std::sqrt(static_cast<double>(x.cols)));
  return MatMul(Softmax(scores), x);
}

}  // namespace

void RunDynamic(const ScenarioContext& ctx, RunResult& result) {
  const int steps = ctx.options.steps.value_or(12);
  const int64_t width = ctx.options.width > 0 ? ctx.options.width : 32;
  const int64_t max_len = ctx.options.seq > 0 ? ctx.options.seq : 12;
  if (steps < 1) throw Error("ember-lab dynamic: --steps must be at least 1");
  if (max_len < 5 || max_len >= width) {
    throw Error(
        "ember-lab dynamic: --seq must be in [5, width) so that lengths never equal the "
        "width (got --seq " +
        std::to_string(max_len) + ", width " + std::to_string(width) + ")");
  }

  HostRandom random(ctx.options.seed);
  ctx.progress.SetTotal(steps);
  double worst = 0;
  for (int step = 0; step < steps; ++step) {
    const int64_t len = LengthAt(step, max_len);
    const Matrix x = random.UniformMatrix(len, width, -1.0, 1.0);
    ctx.clock.StartStep();
    const Stats before = GetStats(ctx.device);
    std::vector<Tensor> tokens;
    for (int64_t i = 0; i < len; ++i) {
      const std::vector<float> row(x.v.begin() + i * width, x.v.begin() + (i + 1) * width);
      tokens.push_back(Tensor::FromVector(row, {1, width}, ctx.device));
    }
    Tensor seq = Cat(std::move(tokens), 0);
    Tensor seq_t = seq.SwapDims(0, 1);
    Tensor qk = seq.Matmul(std::move(seq_t));
    Tensor scores = std::move(qk) * (1.0 / std::sqrt(static_cast<double>(width)));
    Tensor max = scores.MaxDim(-1);
    Tensor shifted = std::move(scores) - std::move(max);
    Tensor e = std::move(shifted).Exp();
    Tensor sum = e.SumDim(-1);
    Tensor prob = std::move(e) / std::move(sum);
    const std::vector<float> y = std::move(prob).Matmul(std::move(seq)).ToVector<float>();
    const double ms = ctx.clock.StepDone();
    result.step_rows.push_back(
        StepDelta("L=" + std::to_string(len), before, GetStats(ctx.device), ms, ctx.device));
    ctx.progress.Advance();
    worst = std::max(worst, MaxRelError(y, ReferenceAttention(x).v));
  }
  result.steps = steps;
  result.details["width"] = static_cast<double>(width);
  result.details["max_len"] = static_cast<double>(max_len);
  // The cap this process ran under (engine_setup.cpp exported it); -1 when unlimited.
  const char* cap = std::getenv("EMBER_MAX_EXPLORATIONS");
  result.details["max_explorations"] =
      cap != nullptr && std::isdigit(static_cast<unsigned char>(cap[0])) ? std::atof(cap) : -1.0;
  result.max_rel_error = worst;
}

}  // namespace ember::lab

// mlp: a two-layer MLP trained by hand, one SGD step per lab step on a fresh batch:
//   forward   h = tanh(x W1 + b1), y = h W2 + b2, loss = mean((y - t)^2)
//   backward  dy = 2 (y - t) / (batch * out), dW2 = h^T dy, db2 = sum_rows dy,
//             dz = (dy W2^T) * (1 - h^2), dW1 = x^T dz, db1 = sum_rows dz
//   update    W -= lr dW for all four parameters
// Matmuls with bias epilogues, row reductions and elementwise chains. The reference replays
// every step in double and the final parameters and the last loss are compared.
#include <cmath>
#include <string>
#include <vector>

#include "tools/lab/scenarios.h"

namespace ember::lab {

namespace {

constexpr double kLearningRate = 0.05;

struct MlpSizes {
  int64_t batch, in, hidden, out;
};

struct HostParams {
  Matrix w1, b1, w2, b2;
};

struct Batch {
  Matrix x, t;
};

// One SGD step in double; returns the loss before the update.
double ReferenceStep(HostParams& p, const Batch& batch, const MlpSizes& n) {
  const Matrix h = Tanh(Add(MatMul(batch.x, p.w1), p.b1));
  const Matrix diff = Sub(Add(MatMul(h, p.w2), p.b2), batch.t);
  double loss = 0;
  for (double d : diff.v) loss += d * d;
  loss /= static_cast<double>(n.batch * n.out);
  const Matrix dy = Scale(diff, 2.0 / static_cast<double>(n.batch * n.out));
  const Matrix dw2 = MatMul(Transpose(h), dy);
  const Matrix db2 = SumRows(dy);
  Matrix dz = MatMul(dy, Transpose(p.w2));
  for (size_t i = 0; i < dz.v.size(); ++i) dz.v[i] *= 1.0 - h.v[i] * h.v[i];
  const Matrix dw1 = MatMul(Transpose(batch.x), dz);
  const Matrix db1 = SumRows(dz);
  p.w1 = Sub(p.w1, Scale(dw1, kLearningRate));
  p.b1 = Sub(p.b1, Scale(db1, kLearningRate));
  p.w2 = Sub(p.w2, Scale(dw2, kLearningRate));
  p.b2 = Sub(p.b2, Scale(db2, kLearningRate));
  return loss;
}

struct Params {
  Tensor w1, b1, w2, b2;
};

// One SGD step on the engine; returns the loss tensor (the step's result).
// Every sub-expression is named, so the ops queue in the same order with any compiler.
Tensor EngineStep(Params& p, const Tensor& x, const Tensor& t, const MlpSizes& n) {
  Tensor xw = x.Matmul(p.w1);
  Tensor z1 = std::move(xw) + p.b1;
  Tensor h = std::move(z1).Tanh();
  Tensor hw = h.Matmul(p.w2);
  Tensor y = std::move(hw) + p.b2;
  Tensor diff = std::move(y) - t;
  Tensor sq = diff * diff;
  Tensor loss = std::move(sq).Mean();

  Tensor dy = std::move(diff) * (2.0 / static_cast<double>(n.batch * n.out));
  Tensor ht = h.SwapDims(0, 1);
  Tensor dw2 = std::move(ht).Matmul(dy);
  Tensor db2 = dy.SumDim(0);
  Tensor w2t = p.w2.SwapDims(0, 1);
  Tensor dh = std::move(dy).Matmul(std::move(w2t));
  Tensor hh = h * h;
  Tensor gate = 1.0 - std::move(hh);
  Tensor dz = std::move(dh) * std::move(gate);
  Tensor xt = x.SwapDims(0, 1);
  Tensor dw1 = std::move(xt).Matmul(dz);
  Tensor db1 = std::move(dz).SumDim(0);

  Tensor s1 = std::move(dw1) * kLearningRate;
  p.w1 = std::move(p.w1) - std::move(s1);
  Tensor s2 = std::move(db1) * kLearningRate;
  p.b1 = std::move(p.b1) - std::move(s2);
  Tensor s3 = std::move(dw2) * kLearningRate;
  p.w2 = std::move(p.w2) - std::move(s3);
  Tensor s4 = std::move(db2) * kLearningRate;
  p.b2 = std::move(p.b2) - std::move(s4);
  return loss;
}

std::vector<double> Values(const Matrix& m) { return m.v; }

}  // namespace

void RunMlp(const ScenarioContext& ctx, RunResult& result) {
  const int steps = ctx.options.steps.value_or(10);
  const int64_t width = ctx.options.width > 0 ? ctx.options.width : 64;
  const MlpSizes n{.batch = ctx.options.batch > 0 ? ctx.options.batch : 32,
                   .in = width,
                   .hidden = 2 * width,
                   .out = std::max<int64_t>(width / 2, 1)};
  if (steps < 1) throw Error("ember-lab mlp: --steps must be at least 1");

  HostRandom random(ctx.options.seed);
  const double s1 = 1.0 / std::sqrt(static_cast<double>(n.in));
  const double s2 = 1.0 / std::sqrt(static_cast<double>(n.hidden));
  HostParams host{.w1 = random.UniformMatrix(n.in, n.hidden, -s1, s1),
                  .b1 = random.UniformMatrix(1, n.hidden, -s1, s1),
                  .w2 = random.UniformMatrix(n.hidden, n.out, -s2, s2),
                  .b2 = random.UniformMatrix(1, n.out, -s2, s2)};
  Params params{.w1 = ToTensor(host.w1, ctx.device),
                .b1 = ToTensor(host.b1, ctx.device),
                .w2 = ToTensor(host.w2, ctx.device),
                .b2 = ToTensor(host.b2, ctx.device)};

  ctx.progress.SetTotal(steps);
  std::vector<float> last_loss;
  double ref_loss = 0;
  for (int step = 0; step < steps; ++step) {
    const Batch batch{.x = random.UniformMatrix(n.batch, n.in, -1.0, 1.0),
                      .t = random.UniformMatrix(n.batch, n.out, -1.0, 1.0)};
    ctx.clock.StartStep();
    const Tensor x = ToTensor(batch.x, ctx.device);
    const Tensor t = ToTensor(batch.t, ctx.device);
    last_loss = EngineStep(params, x, t, n).ToVector<float>();
    ctx.clock.StepDone();
    ctx.progress.Advance();
    ref_loss = ReferenceStep(host, batch, n);
  }
  result.steps = steps;
  result.details["batch"] = static_cast<double>(n.batch);
  result.details["in"] = static_cast<double>(n.in);
  result.details["hidden"] = static_cast<double>(n.hidden);
  result.details["out"] = static_cast<double>(n.out);
  result.details["final_loss"] = last_loss.empty() ? 0.0 : last_loss[0];

  double worst = MaxRelError(last_loss, {ref_loss});
  worst = std::max(worst, MaxRelError(params.w1.ToVector<float>(), Values(host.w1)));
  worst = std::max(worst, MaxRelError(params.b1.ToVector<float>(), Values(host.b1)));
  worst = std::max(worst, MaxRelError(params.w2.ToVector<float>(), Values(host.w2)));
  worst = std::max(worst, MaxRelError(params.b2.ToVector<float>(), Values(host.b2)));
  result.max_rel_error = worst;
}

}  // namespace ember::lab

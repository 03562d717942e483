// transformer: one pre-norm transformer block, forward only, on a fresh [seq, width] input
// each step:
//   h  = LN1(x);  q, k, v = h Wq, h Wk, h Wv split into `heads` heads of width/heads
//   a  = softmax(q k^T / sqrt(head width)) v, heads merged;   x1 = x + a Wo
//   y  = x1 + gelu(LN2(x1) W1 + b1) W2 + b2             (W1: width x 4 width)
// Layer norms and softmax (reductions broadcast back), matmuls with epilogues, gelu via erf.
// The first and the last step's outputs are checked against the double reference.
#include <cmath>
#include <string>
#include <vector>

#include "tools/lab/scenarios.h"

namespace ember::lab {

namespace {

constexpr double kEps = 1e-5;

struct Sizes {
  int64_t seq, width, heads, head_width, ff;
};

struct HostBlock {
  Matrix ln1_g, ln1_b, wq, wk, wv, wo, ln2_g, ln2_b, w1, b1, w2, b2;
};

struct Block {
  Tensor ln1_g, ln1_b, wq, wk, wv, wo, ln2_g, ln2_b, w1, b1, w2, b2;
};

Matrix ReferenceForward(const HostBlock& p, const Matrix& x, const Sizes& n) {
  const Matrix h = LayerNorm(x, p.ln1_g, p.ln1_b, kEps);
  const Matrix q = MatMul(h, p.wq), k = MatMul(h, p.wk), v = MatMul(h, p.wv);
  Matrix merged(n.seq, n.width);
  const double scale = 1.0 / std::sqrt(static_cast<double>(n.head_width));
  for (int64_t head = 0; head < n.heads; ++head) {
    const int64_t off = head * n.head_width;
    Matrix scores(n.seq, n.seq);
    for (int64_t i = 0; i < n.seq; ++i) {
      for (int64_t j = 0; j < n.seq; ++j) {
        double dot = 0;
        for (int64_t d = 0; d < n.head_width; ++d) dot += q.at(i, off + d) * k.at(j, off + d);
        scores.at(i, j) = dot * scale;
      }
    }
    const Matrix prob = Softmax(scores);
    for (int64_t i = 0; i < n.seq; ++i) {
      for (int64_t d = 0; d < n.head_width; ++d) {
        double sum = 0;
        for (int64_t j = 0; j < n.seq; ++j) sum += prob.at(i, j) * v.at(j, off + d);
        merged.at(i, off + d) = sum;
      }
    }
  }
  const Matrix x1 = Add(x, MatMul(merged, p.wo));
  const Matrix u = Add(MatMul(LayerNorm(x1, p.ln2_g, p.ln2_b, kEps), p.w1), p.b1);
  return Add(x1, Add(MatMul(Gelu(u), p.w2), p.b2));
}

Tensor LayerNormT(const Tensor& x, const Tensor& gamma, const Tensor& beta) {
  Tensor mean = x.MeanDim(-1);
  Tensor centered = x - std::move(mean);
  Tensor squared = centered * centered;
  Tensor var = std::move(squared).MeanDim(-1);
  Tensor shifted = std::move(var) + kEps;
  Tensor denom = std::move(shifted).Sqrt();
  Tensor normed = std::move(centered) / std::move(denom);
  Tensor scaled = std::move(normed) * gamma;
  return std::move(scaled) + beta;
}

// [seq, width] -> [heads, seq, head_width].
Tensor SplitHeads(Tensor t, const Sizes& n) {
  Tensor r = std::move(t).Reshape({n.seq, n.heads, n.head_width});
  return std::move(r).SwapDims(0, 1);
}

// Every sub-expression is named, so the ops queue in the same order with any compiler.
Tensor Forward(const Block& p, const Tensor& x, const Sizes& n) {
  Tensor h = LayerNormT(x, p.ln1_g, p.ln1_b);
  Tensor q = SplitHeads(h.Matmul(p.wq), n);
  Tensor k = SplitHeads(h.Matmul(p.wk), n);
  Tensor v = SplitHeads(std::move(h).Matmul(p.wv), n);
  Tensor kt = std::move(k).SwapDims(1, 2);
  Tensor qk = std::move(q).Matmul(std::move(kt));
  Tensor scores = std::move(qk) * (1.0 / std::sqrt(static_cast<double>(n.head_width)));
  Tensor max = scores.MaxDim(-1);
  Tensor shifted = std::move(scores) - std::move(max);
  Tensor e = std::move(shifted).Exp();
  Tensor sum = e.SumDim(-1);
  Tensor prob = std::move(e) / std::move(sum);
  Tensor heads = std::move(prob).Matmul(std::move(v));
  Tensor swapped = std::move(heads).SwapDims(0, 1);
  Tensor merged = std::move(swapped).Reshape({n.seq, n.width});
  Tensor attn = std::move(merged).Matmul(p.wo);
  Tensor x1 = x + std::move(attn);

  Tensor h2 = LayerNormT(x1, p.ln2_g, p.ln2_b);
  Tensor up = std::move(h2).Matmul(p.w1);
  Tensor u = std::move(up) + p.b1;
  Tensor scaled = u * M_SQRT1_2;
  Tensor erf = std::move(scaled).Erf();
  Tensor one_plus = std::move(erf) + 1.0;
  Tensor half = std::move(u) * 0.5;
  Tensor gelu = std::move(half) * std::move(one_plus);
  Tensor down = std::move(gelu).Matmul(p.w2);
  Tensor f = std::move(down) + p.b2;
  return std::move(x1) + std::move(f);
}

}  // namespace

void RunTransformer(const ScenarioContext& ctx, RunResult& result) {
  const int steps = ctx.options.steps.value_or(8);
  Sizes n{.seq = ctx.options.seq > 0 ? ctx.options.seq : 64,
          .width = ctx.options.width > 0 ? ctx.options.width : 64,
          .heads = ctx.options.heads > 0 ? ctx.options.heads : 4};
  if (steps < 1) throw Error("ember-lab transformer: --steps must be at least 1");
  if (n.width % n.heads != 0) {
    throw Error("ember-lab transformer: --width " + std::to_string(n.width) +
                " is not a multiple of --heads " + std::to_string(n.heads));
  }
  n.head_width = n.width / n.heads;
  n.ff = 4 * n.width;

  HostRandom random(ctx.options.seed);
  const double sw = 1.0 / std::sqrt(static_cast<double>(n.width));
  const double sf = 1.0 / std::sqrt(static_cast<double>(n.ff));
  HostBlock host{.ln1_g = random.UniformMatrix(1, n.width, 0.8, 1.2),
                 .ln1_b = random.UniformMatrix(1, n.width, -0.1, 0.1),
                 .wq = random.UniformMatrix(n.width, n.width, -sw, sw),
                 .wk = random.UniformMatrix(n.width, n.width, -sw, sw),
                 .wv = random.UniformMatrix(n.width, n.width, -sw, sw),
                 .wo = random.UniformMatrix(n.width, n.width, -sw, sw),
                 .ln2_g = random.UniformMatrix(1, n.width, 0.8, 1.2),
                 .ln2_b = random.UniformMatrix(1, n.width, -0.1, 0.1),
                 .w1 = random.UniformMatrix(n.width, n.ff, -sw, sw),
                 .b1 = random.UniformMatrix(1, n.ff, -sw, sw),
                 .w2 = random.UniformMatrix(n.ff, n.width, -sf, sf),
                 .b2 = random.UniformMatrix(1, n.width, -sf, sf)};
  const Device d = ctx.device;
  const Block block{.ln1_g = ToTensor(host.ln1_g, d),
                    .ln1_b = ToTensor(host.ln1_b, d),
                    .wq = ToTensor(host.wq, d),
                    .wk = ToTensor(host.wk, d),
                    .wv = ToTensor(host.wv, d),
                    .wo = ToTensor(host.wo, d),
                    .ln2_g = ToTensor(host.ln2_g, d),
                    .ln2_b = ToTensor(host.ln2_b, d),
                    .w1 = ToTensor(host.w1, d),
                    .b1 = ToTensor(host.b1, d),
                    .w2 = ToTensor(host.w2, d),
                    .b2 = ToTensor(host.b2, d)};

  ctx.progress.SetTotal(steps);
  double worst = 0;
  for (int step = 0; step < steps; ++step) {
    const Matrix x = random.UniformMatrix(n.seq, n.width, -1.0, 1.0);
    ctx.clock.StartStep();
    const std::vector<float> y = Forward(block, ToTensor(x, d), n).ToVector<float>();
    ctx.clock.StepDone();
    ctx.progress.Advance();
    if (step == 0 || step == steps - 1) {
      worst = std::max(worst, MaxRelError(y, ReferenceForward(host, x, n).v));
    }
  }
  result.steps = steps;
  result.details["seq"] = static_cast<double>(n.seq);
  result.details["width"] = static_cast<double>(n.width);
  result.details["heads"] = static_cast<double>(n.heads);
  result.details["ff"] = static_cast<double>(n.ff);
  result.max_rel_error = worst;
}

}  // namespace ember::lab

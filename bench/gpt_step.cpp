// ember-bench-gpt: the step time of a small GPT, forward and loss, written with ember's public
// API as a user writes it (issue 41, "the host path").
//
// At this size every kernel is tiny, so a step's time is almost all host work: queueing the
// ops, the plan lookups, the launches and the sync that reads the loss back. That is the cost
// issue 41 is about, and the one PyTorch's eager mode, torch.compile and a hand-captured CUDA
// graph pay differently. bench/gpu/torch_gpt.py builds the same model in PyTorch, with the same
// weights and tokens (the formulas below, copied there), so the two compare step for step and
// their first losses agree to float rounding.
//
//   ember-bench-gpt [--device cpu|cuda] [--steps N (200)] [--json]
//
// The model: vocab 96, width 64, 4 heads of 16, 2 pre-norm blocks (layernorm, causal
// self-attention, layernorm, MLP 64 -> 256 -> 64 with erf GELU, each with a residual), a final
// layernorm and logits against the token embedding (tied), then the mean cross-entropy over
// batch 2 x sequence 32 tokens. Every linear layer has a bias (GPT-2's layout). Forward only.
//
// A step: the step's tokens and targets go up from host vectors, the model runs, and the loss
// comes back to the host (ToVector, a sync). Each step reads new tokens, as training would. The
// report: the first step's time (exploration, and on CUDA kernel compilation, unless the plan
// database is warm), the median of the later steps, the first and last losses, and the device's
// engine counters for the whole run (ember::GetStats). Fusion and the plan database follow the
// usual environment (EMBER_FUSION, EMBER_PLAN_DB, ...). With --json, also ember-lab's start
// figures, timed from the top of main: engine_start_ms (the device's engine up) and
// time_to_first_result_ms (the weights made and uploaded, then the first step), and
// main_unix_ns, the system clock there, from which bench/gpu/first-result.sh counts exec -> main.
//
// Why a plain main and not Google Benchmark (as most of bench/): the figure is a per-step time
// over a fixed sequence of steps whose inputs change each step, set beside PyTorch's taken the
// same way; Google Benchmark's adaptive iteration counts would change what is measured.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <ember/ember.h>

namespace {

using ember::Device;
using ember::Tensor;
using Clock = std::chrono::steady_clock;

constexpr int64_t kVocab = 96;
constexpr int64_t kWidth = 64;
constexpr int64_t kHeads = 4;
constexpr int64_t kHeadWidth = kWidth / kHeads;
constexpr int64_t kLayers = 2;
constexpr int64_t kFf = 256;
constexpr int64_t kBatch = 2;
constexpr int64_t kSeq = 32;
constexpr int64_t kTokens = kBatch * kSeq;
constexpr double kEps = 1e-5;
// 1/sqrt(head width), exact for 16.
constexpr double kScoreScale = 0.25;
// Masked scores: exp(-1e9 - max) is exactly 0 in f32, as -inf would give, without putting an
// infinity through the fused kernels.
constexpr double kMasked = -1e9;
constexpr double kInvSqrt2 = 0.70710678118654752440;

// --- Weights --------------------------------------------------------------------------------

struct LayerNormWeights {
  Tensor gamma, beta;  // [width]
};

// y = x w + b, with w stored [in, out] (x @ w in PyTorch, no transpose).
struct Linear {
  Tensor w, b;
};

struct BlockWeights {
  LayerNormWeights ln1;
  Linear q, k, v, proj;  // width -> width each
  LayerNormWeights ln2;
  Linear fc, out;  // width -> ff -> width
};

struct GptWeights {
  Tensor token_embedding;     // [vocab, width]; also the output projection (tied)
  Tensor position_embedding;  // [seq, width]
  std::vector<BlockWeights> blocks;
  LayerNormWeights ln_f;
  // true above the diagonal (key after query); built once, as PyTorch's registered buffer.
  Tensor causal_mask;  // [seq, seq] bool
};

// Weights from a formula rather than a random generator, so that torch_gpt.py builds the same
// values bit for bit without sharing a generator. Tensor number n (1, 2, ... in the order
// MakeWeights creates them) holds, at flat (row-major) index i,
//   u = Mix32(n * 2^20 + i) / 2^32,   w = offset + scale * (2u - 1),
// computed in double and rounded to f32 once: uniform in offset ± scale, as nn.Linear's default
// init. Every step is exact integer or IEEE double arithmetic, the same in Python. Why a hash
// and not a smooth formula such as sin(0.7 i + n): a matrix of sin(a (r cols + c) + n) has rank
// 2, a degenerate model whose loss would hide mistakes.
uint32_t Mix32(uint32_t x) {  // MurmurHash3's finalizer: a bijection that scrambles the bits
  x ^= x >> 16;
  x *= 0x85EBCA6Bu;
  x ^= x >> 13;
  x *= 0xC2B2AE35u;
  x ^= x >> 16;
  return x;
}

class WeightMaker {
 public:
  explicit WeightMaker(Device device) : device_(device) {}

  Tensor Next(std::vector<int64_t> shape, double scale, double offset = 0.0) {
    const uint32_t base = static_cast<uint32_t>(++count_) << 20;  // tensors < 2^20 elements
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float> values(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const double u = Mix32(base + static_cast<uint32_t>(i)) / 4294967296.0;
      values[static_cast<size_t>(i)] = static_cast<float>(offset + scale * (2.0 * u - 1.0));
    }
    return Tensor::FromVector(std::move(values), std::move(shape), device_);
  }

  // gamma near 1 and beta near 0, not exactly, so that a swapped gamma/beta shows in the loss.
  LayerNormWeights NextLayerNorm() {
    Tensor gamma = Next({kWidth}, 0.1, 1.0);
    Tensor beta = Next({kWidth}, 0.05);
    return {std::move(gamma), std::move(beta)};
  }

  // Scale 1/sqrt(fan_in) keeps activations of order one through the blocks.
  Linear NextLinear(int64_t in, int64_t out) {
    Tensor w = Next({in, out}, 1.0 / std::sqrt(static_cast<double>(in)));
    Tensor b = Next({out}, 0.02);
    return {std::move(w), std::move(b)};
  }

 private:
  Device device_;
  int count_ = 0;
};

// The creation order is the formula's tensor numbering; torch_gpt.py's Gpt.__init__ follows it.
GptWeights MakeWeights(Device device) {
  WeightMaker make(device);
  GptWeights w;
  // Small embeddings (GPT-2 uses std 0.02): the tied logits stay small and the first loss
  // sits near ln(96), a sanity check on its own.
  w.token_embedding = make.Next({kVocab, kWidth}, 0.02);
  w.position_embedding = make.Next({kSeq, kWidth}, 0.01);
  for (int64_t l = 0; l < kLayers; ++l) {
    BlockWeights b;
    b.ln1 = make.NextLayerNorm();
    b.q = make.NextLinear(kWidth, kWidth);
    b.k = make.NextLinear(kWidth, kWidth);
    b.v = make.NextLinear(kWidth, kWidth);
    b.proj = make.NextLinear(kWidth, kWidth);
    b.ln2 = make.NextLayerNorm();
    b.fc = make.NextLinear(kWidth, kFf);
    b.out = make.NextLinear(kFf, kWidth);
    w.blocks.push_back(std::move(b));
  }
  w.ln_f = make.NextLayerNorm();
  // No triangular-mask helper in the API: the mask comes up from the host once.
  std::vector<bool> mask(static_cast<size_t>(kSeq * kSeq));
  for (int64_t i = 0; i < kSeq; ++i) {
    for (int64_t j = 0; j < kSeq; ++j) mask[static_cast<size_t>(i * kSeq + j)] = j > i;
  }
  w.causal_mask = Tensor::FromVector(std::move(mask), {kSeq, kSeq}, device);
  return w;
}

// Step `step`'s tokens and next-token targets, flat over [batch, seq]; torch_gpt.py has the
// same formulas. The step term makes every step read new tokens.
std::vector<int64_t> StepTokens(int step) {
  std::vector<int64_t> t(static_cast<size_t>(kTokens));
  for (int64_t i = 0; i < kTokens; ++i) t[static_cast<size_t>(i)] = (7 * i + 3 * step) % kVocab;
  return t;
}

std::vector<int64_t> StepTargets(int step) {
  std::vector<int64_t> t(static_cast<size_t>(kTokens));
  for (int64_t i = 0; i < kTokens; ++i) {
    t[static_cast<size_t>(i)] = (7 * (i + 1) + 3 * step) % kVocab;
  }
  return t;
}

// --- The model --------------------------------------------------------------------------------
// Every sub-expression is named, so the ops queue in the same order with any compiler (argument
// evaluation order is unspecified), and each value's last use is a std::move, so ops may
// consume their inputs (ember/tensor.h). Activations are [batch * seq, width] between layers;
// only attention sees the batch and head dims.

Tensor LayerNorm(Tensor x, const LayerNormWeights& p) {
  Tensor mean = x.MeanDim(-1);
  Tensor centered = std::move(x) - std::move(mean);
  Tensor squared = centered * centered;
  Tensor var = std::move(squared).MeanDim(-1);
  Tensor shifted = std::move(var) + kEps;
  Tensor denom = std::move(shifted).Sqrt();
  Tensor normed = std::move(centered) / std::move(denom);
  Tensor scaled = std::move(normed) * p.gamma;
  return std::move(scaled) + p.beta;
}

Tensor Dense(Tensor x, const Linear& p) {
  Tensor y = std::move(x).Matmul(p.w);
  return std::move(y) + p.b;
}

// Exp(x - max) / sum over the last dim; the max keeps exp from overflowing.
Tensor Softmax(Tensor x) {
  Tensor max = x.MaxDim(-1);
  Tensor shifted = std::move(x) - std::move(max);
  Tensor e = std::move(shifted).Exp();
  Tensor sum = e.SumDim(-1);
  return std::move(e) / std::move(sum);
}

Tensor Gelu(Tensor u) {
  Tensor scaled = u * kInvSqrt2;
  Tensor erf = std::move(scaled).Erf();
  Tensor one_plus = std::move(erf) + 1.0;
  Tensor half = std::move(u) * 0.5;
  return std::move(half) * std::move(one_plus);
}

// [batch * seq, width] -> [batch, heads, seq, head width].
Tensor SplitHeads(Tensor t) {
  Tensor r = std::move(t).Reshape({kBatch, kSeq, kHeads, kHeadWidth});
  return std::move(r).Permute({0, 2, 1, 3});
}

// [batch, heads, seq, head width] -> [batch * seq, width].
Tensor MergeHeads(Tensor t) {
  Tensor r = std::move(t).Permute({0, 2, 1, 3});
  return std::move(r).Reshape({kTokens, kWidth});
}

Tensor CausalSelfAttention(Tensor h, const BlockWeights& p, const Tensor& causal_mask) {
  Tensor q = SplitHeads(Dense(h, p.q));
  Tensor k = SplitHeads(Dense(h, p.k));
  Tensor v = SplitHeads(Dense(std::move(h), p.v));
  Tensor kt = std::move(k).SwapDims(-2, -1);
  Tensor qk = std::move(q).Matmul(std::move(kt));  // [batch, heads, seq, seq]
  Tensor scores = std::move(qk) * kScoreScale;
  // The [seq, seq] mask broadcasts over batch and heads.
  Tensor masked = std::move(scores).MaskFill(causal_mask, kMasked);
  Tensor prob = Softmax(std::move(masked));
  Tensor heads = std::move(prob).Matmul(std::move(v));
  return Dense(MergeHeads(std::move(heads)), p.proj);
}

Tensor Mlp(Tensor h, const BlockWeights& p) {
  Tensor u = Dense(std::move(h), p.fc);
  return Dense(Gelu(std::move(u)), p.out);
}

// Pre-norm: each sublayer reads a normalized copy and adds to the residual stream.
Tensor Block(Tensor x, const BlockWeights& p, const Tensor& causal_mask) {
  Tensor attn = CausalSelfAttention(LayerNorm(x, p.ln1), p, causal_mask);
  Tensor x1 = std::move(x) + std::move(attn);
  Tensor mlp = Mlp(LayerNorm(x1, p.ln2), p);
  return std::move(x1) + std::move(mlp);
}

// tokens: [batch * seq] i64 -> [batch * seq, width].
Tensor Embed(const GptWeights& w, Tensor tokens) {
  Tensor tok = w.token_embedding.Select(0, std::move(tokens));
  Tensor tok3 = std::move(tok).Reshape({kBatch, kSeq, kWidth});
  Tensor x = std::move(tok3) + w.position_embedding;  // [seq, width] broadcasts over batch
  return std::move(x).Reshape({kTokens, kWidth});
}

// Mean over rows of -log_softmax(logits)[target]; logits [n, vocab], targets [n, 1] i64.
Tensor CrossEntropy(Tensor logits, Tensor targets) {
  Tensor max = logits.MaxDim(-1);
  Tensor shifted = std::move(logits) - std::move(max);
  Tensor e = shifted.Exp();
  Tensor sum = std::move(e).SumDim(-1);
  Tensor log_sum = std::move(sum).Log();
  Tensor log_prob = std::move(shifted) - std::move(log_sum);
  Tensor picked = std::move(log_prob).Gather(1, std::move(targets));  // [n, 1]
  Tensor mean = std::move(picked).Mean();
  return std::move(mean).Neg();
}

// The loss, shape [1].
Tensor Forward(const GptWeights& w, Tensor tokens, Tensor targets) {
  Tensor x = Embed(w, std::move(tokens));
  for (const BlockWeights& b : w.blocks) x = Block(std::move(x), b, w.causal_mask);
  Tensor h = LayerNorm(std::move(x), w.ln_f);
  Tensor embedding_t = w.token_embedding.SwapDims(0, 1);
  Tensor logits = std::move(h).Matmul(std::move(embedding_t));  // [batch * seq, vocab]
  return CrossEntropy(std::move(logits), std::move(targets));
}

// --- Running it -------------------------------------------------------------------------------

struct Options {
  std::string device = "cpu";
  int steps = 200;
  bool json = false;
};

int Usage() {
  std::fprintf(stderr, "usage: ember-bench-gpt [--device cpu|cuda] [--steps N] [--json]\n");
  return 2;
}

bool ParseOptions(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--json") {
      o.json = true;
    } else if (arg == "--device" && i + 1 < argc) {
      o.device = argv[++i];
      if (o.device != "cpu" && o.device != "cuda") return false;
    } else if (arg == "--steps" && i + 1 < argc) {
      char* end = nullptr;
      const long n = std::strtol(argv[++i], &end, 10);
      if (end == argv[i] || *end != '\0' || n < 1 || n > 1000000) return false;
      o.steps = static_cast<int>(n);
    } else {
      return false;
    }
  }
  return true;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Milliseconds from `origin` to now.
double MsSince(Clock::time_point origin) {
  return std::chrono::duration<double, std::milli>(Clock::now() - origin).count();
}

// origin: the top of main; main_unix_ns: the system clock there.
int Run(const Options& o, Clock::time_point origin, int64_t main_unix_ns) {
  const Device device = o.device == "cuda" ? Device::Cuda(0) : Device::Cpu();
  // A Sync of the empty stream starts the device's engine (configuration, plan database, on
  // CUDA the context and libraries), as ember-lab does, so that it is shown on its own.
  ember::Sync(device);
  const double engine_start_ms = MsSince(origin);
  const GptWeights weights = MakeWeights(device);
  // The weights' uploads belong to setup, not to the first step.
  ember::Sync(device);

  std::vector<double> step_ms;
  double time_to_first_result_ms = 0;
  float first_loss = 0, last_loss = 0;
  for (int step = 0; step < o.steps; ++step) {
    // The host vectors are the user's data, ready before the step; uploading them is timed.
    std::vector<int64_t> tokens = StepTokens(step);
    std::vector<int64_t> targets = StepTargets(step);
    const Clock::time_point start = Clock::now();
    Tensor tok = Tensor::FromVector(std::move(tokens), {kTokens}, device);
    Tensor tgt = Tensor::FromVector(std::move(targets), {kTokens, 1}, device);
    const float loss = Forward(weights, std::move(tok), std::move(tgt)).ToVector<float>()[0];
    step_ms.push_back(MsSince(start));
    if (step == 0) {
      time_to_first_result_ms = MsSince(origin);
      first_loss = loss;
    }
    last_loss = loss;
  }

  const double first_ms = step_ms.front();
  const std::vector<double> later(step_ms.begin() + 1, step_ms.end());
  const ember::Stats s = ember::GetStats(device);
  if (o.json) {
    nlohmann::json r = {
        {"device", device.ToString()},
        {"steps", o.steps},
        {"main_unix_ns", main_unix_ns},
        {"engine_start_ms", engine_start_ms},
        {"time_to_first_result_ms", time_to_first_result_ms},
        {"first_step_ms", first_ms},
        // null for a single step: there is no steady state to report.
        {"steady_ms_per_step", nullptr},
        {"first_loss", first_loss},
        {"last_loss", last_loss},
        {"launches", s.launches},
        {"fused_executions", s.fused_executions},
        {"unfused_operations", s.unfused_operations},
        {"cache_hits", s.cache_hits},
        {"explorations", s.explorations},
        {"plans_loaded_from_db", s.plans_loaded_from_db},
        {"plans_loaded_from_shm", s.plans_loaded_from_shm},
        {"plan_load_ms", s.plan_load_ms},
        {"kernels_compiled", s.kernels_compiled},
        {"compile_ms", s.compile_ms},
        {"kernels_loaded_from_db", s.kernels_loaded_from_db},
        {"kernels_loaded_from_shm", s.kernels_loaded_from_shm},
        {"launch_record_hits", s.launch_record_hits},
        {"launch_record_misses", s.launch_record_misses},
        {"graph_captures", s.graphs.captures},
        {"graph_replays", s.graphs.replays},
        {"graph_replayed_launches", s.graphs.replayed_launches},
        {"graph_node_updates", s.graphs.node_updates},
        {"graph_fallbacks", s.graphs.fallback_diverged + s.graphs.fallback_ended_early +
                                s.graphs.fallback_replay_failed},
        {"graph_recipes_loaded", s.graphs.recipes_loaded},
        {"graph_windows", s.graphs.windows},
        {"graph_ends_matmul", s.graphs.ends_matmul},
        {"graph_ends_other_work", s.graphs.ends_other_work},
        {"graph_ends_host_wait", s.graphs.ends_host_wait},
        {"graph_ends_complete", s.graphs.ends_complete}};
    if (!later.empty()) r["steady_ms_per_step"] = Median(later);
    // The first steps one by one: a warm process replays from its second step (issue 44).
    r["first_steps_ms"] =
        std::vector<double>(step_ms.begin(), step_ms.begin() + std::min<size_t>(step_ms.size(), 5));
    std::printf("%s\n", r.dump().c_str());
  } else {
    std::printf(
        "ember-bench-gpt %s: %d steps, first %.3f ms, steady %.3f ms/step, loss %.6f -> %.6f, "
        "%llu launches (%llu fused, %llu unfused ops), %llu cache hits, %llu explorations\n",
        device.ToString().c_str(), o.steps, first_ms, later.empty() ? 0.0 : Median(later),
        first_loss, last_loss, static_cast<unsigned long long>(s.launches),
        static_cast<unsigned long long>(s.fused_executions),
        static_cast<unsigned long long>(s.unfused_operations),
        static_cast<unsigned long long>(s.cache_hits),
        static_cast<unsigned long long>(s.explorations));
  }
  return std::isfinite(first_loss) && std::isfinite(last_loss) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Clock::time_point origin = Clock::now();
  const int64_t main_unix_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count();
  Options options;
  if (!ParseOptions(argc, argv, options)) return Usage();
  try {
    return Run(options, origin, main_unix_ns);
  } catch (const ember::Error& e) {
    // No CUDA device, or a mistake in the model above: ember says which.
    std::fprintf(stderr, "ember-bench-gpt: %s\n", e.what());
    return 1;
  }
}

// Differential test of the fusion engine on the CPU, the oracle backend: every program runs with
// fusion off (each op its own kernel) and with fusion on (the real fusers and the CPU fused
// kernels), and the outputs must agree bit for bit.
//
// Why bit for bit everywhere: the CPU fused interpreter runs the unfused kernels' own tile
// functions and rounds to the stored dtype wherever an unfused run would have stored (Note [CPU
// fused tiles], engine/runtime/cpu/fused_program.h); reductions keep the unfused accumulation
// order and matmul epilogues apply to the same products. So no comparison here needs a
// tolerance, and none has one: 6000 random programs (EMBER_DIFF_PROGRAMS=6000) agreed to the
// bit, f16/bf16 included, when this was written.
//
// Each random program runs on the fused engine three times: on a fresh engine (the search
// explores), again (the stored plans run), and with every dim shifted (plans stored for the
// first dims are reused through their relative shapes).
//
// A failure prints the seed and the program's listing (program_generator.h); EMBER_DIFF_SEED=<s>
// runs that program alone and prints its listing, EMBER_DIFF_TRACE=1 prints each seed before it
// runs (to find one that crashes), EMBER_DIFF_PROGRAMS=<n> runs n programs for a longer soak.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iomanip>
#include <iostream>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>

#include "engine/core/log.h"
#include "tests/api/api_test_util.h"
#include "tests/end_to_end/program_generator.h"
#include "tests/end_to_end/use_fusion.h"

namespace ember {
namespace {

using testing::ProgramOutput;
using testing::ProgramResult;
using testing::UseFusion;

constexpr uint64_t kFirstSeed = 1;
constexpr int kNumPrograms = 200;

// Puts the default configuration and a fresh engine back however the test ends, so the other
// tests of the binary see what they expect.
struct DefaultConfigOnExit {
  ~DefaultConfigOnExit() { UseFusion(true); }
};

// --- Comparison ----------------------------------------------------------------------------

// Empty when `got` equals `want`; else what differs (the first few elements). Floats compare
// by bit pattern, except that any NaN equals any NaN.
std::string Compare(const ProgramOutput& want, const ProgramOutput& got) {
  std::ostringstream out;
  out << std::setprecision(9);
  if (want.dtype != got.dtype || want.shape != got.shape) {
    out << "  " << want.name << ": " << testing::ShapeText(want.shape) << " "
        << DTypeName(want.dtype) << " unfused, " << testing::ShapeText(got.shape) << " "
        << DTypeName(got.dtype) << " fused\n";
    return out.str();
  }
  if (want.floats.size() != got.floats.size() || want.ints.size() != got.ints.size()) {
    return "  " + want.name + ": element counts differ\n";
  }
  size_t mismatches = 0;
  for (size_t i = 0; i < want.floats.size(); ++i) {
    const float w = want.floats[i], g = got.floats[i];
    if (std::bit_cast<uint32_t>(w) == std::bit_cast<uint32_t>(g)) continue;
    if (std::isnan(w) && std::isnan(g)) continue;
    if (mismatches++ < 5) {
      out << "  " << want.name << "[" << i << "]: unfused " << w << " (0x" << std::hex
          << std::bit_cast<uint32_t>(w) << "), fused " << g << " (0x" << std::bit_cast<uint32_t>(g)
          << std::dec << ")\n";
    }
  }
  for (size_t i = 0; i < want.ints.size(); ++i) {
    if (want.ints[i] == got.ints[i]) continue;
    if (mismatches++ < 5) {
      out << "  " << want.name << "[" << i << "]: unfused " << want.ints[i] << ", fused "
          << got.ints[i] << "\n";
    }
  }
  if (mismatches == 0) return "";
  out << "  " << want.name << ": " << mismatches << " of "
      << (want.floats.size() + want.ints.size()) << " elements differ\n";
  return out.str();
}

std::string CompareAll(const std::vector<ProgramOutput>& want,
                       const std::vector<ProgramOutput>& got) {
  if (want.size() != got.size()) {
    return "  " + std::to_string(want.size()) + " outputs unfused, " + std::to_string(got.size()) +
           " fused\n";
  }
  std::string diff;
  for (size_t i = 0; i < want.size(); ++i) diff += Compare(want[i], got[i]);
  return diff;
}

// --- Running ---------------------------------------------------------------------------------

struct RunResult {
  ProgramResult result;
  Stats stats;                         // of the engine, after the run
  std::vector<std::string> fallbacks;  // "[fusion] fused ... failed" log lines
};

// Runs `program` on a fresh stream of the current engine and collects the engine's counters and
// the fused kernels that fell back to their ops one by one.
RunResult RunOnce(const std::function<ProgramResult()>& program) {
  RunResult run;
  {
    ScopedLogCapture capture(LogLevel::kBasic);
    testing::OnFreshStream([&] { run.result = program(); });
    for (const std::string& line : capture.lines()) {
      if (line.find("[fusion] fused") != std::string::npos) run.fallbacks.push_back(line);
    }
  }
  run.stats = GetStats();
  return run;
}

// The counters of `after` less those of `before` (plans is a level, not a count: kept).
Stats Since(Stats after, const Stats& before) {
  after.explorations -= before.explorations;
  after.cache_hits -= before.cache_hits;
  after.fused_executions -= before.fused_executions;
  after.unfused_operations -= before.unfused_operations;
  after.launches -= before.launches;
  return after;
}

struct Differential {
  RunResult unfused;
  RunResult fused;   // a fresh engine: the search explores
  RunResult cached;  // the same engine again: the stored plans run
  // The program with shifted dims (RandomProgram), unfused and then on the fused engine above,
  // where it hits plans stored for the other dims. Absent for fixed programs.
  std::optional<RunResult> unfused_shifted, shifted;
};

// The program with fusion off, then on a fresh fused engine twice (explored, then cached), then
// `shifted` (when given) on both.
Differential RunBothWays(const std::function<ProgramResult()>& program,
                         const std::function<ProgramResult()>& shifted = {}) {
  Differential d;
  UseFusion(false);
  d.unfused = RunOnce(program);
  if (shifted) d.unfused_shifted = RunOnce(shifted);
  UseFusion(true);
  d.fused = RunOnce(program);
  d.cached = RunOnce(program);
  d.cached.stats = Since(d.cached.stats, d.fused.stats);
  if (shifted) {
    const Stats before = GetStats();
    d.shifted = RunOnce(shifted);
    d.shifted->stats = Since(d.shifted->stats, before);
  }
  return d;
}

std::string StatsText(const Stats& s) {
  std::ostringstream out;
  out << "explorations=" << s.explorations << " cache_hits=" << s.cache_hits << " plans=" << s.plans
      << " fused_executions=" << s.fused_executions
      << " unfused_operations=" << s.unfused_operations << " launches=" << s.launches;
  return out.str();
}

// kNumPrograms seeds from kFirstSeed; EMBER_DIFF_SEED=<seed> runs one (and prints its
// listing), EMBER_DIFF_PROGRAMS=<n> runs n for a longer soak.
std::vector<uint64_t> Seeds() {
  if (const char* one = std::getenv("EMBER_DIFF_SEED")) return {std::stoull(one)};
  int n = kNumPrograms;
  if (const char* count = std::getenv("EMBER_DIFF_PROGRAMS")) n = std::stoi(count);
  std::vector<uint64_t> seeds;
  for (int i = 0; i < n; ++i) seeds.push_back(kFirstSeed + static_cast<uint64_t>(i));
  return seeds;
}

TEST(DifferentialFusion, RandomProgramsMatchUnfusedBitForBit) {
  DefaultConfigOnExit restore;
  const bool trace = std::getenv("EMBER_DIFF_TRACE") != nullptr;
  const bool single = std::getenv("EMBER_DIFF_SEED") != nullptr;
  struct Totals {
    int programs = 0, with_reduce = 0, with_matmul = 0, with_reduce_broadcast = 0, with_cast = 0,
        with_view = 0, with_mask = 0, with_moves = 0, with_drops = 0, half = 0,
        with_fused_kernel = 0, with_fallback = 0, failures = 0, with_gather = 0, with_select = 0,
        with_cat = 0;
    uint64_t fused_executions = 0, cached_fused_executions = 0, cache_hits = 0, ops = 0,
             shifted_cache_hits = 0, shifted_fused_executions = 0;
    std::string first_fallback;
    std::vector<std::string> fallback_examples;  // up to 5, with their seeds
    std::set<std::string> fallback_reasons;
  } t;

  for (const uint64_t seed : Seeds()) {
    if (trace) std::cerr << "seed " << seed << std::endl;
    const Differential d = RunBothWays([seed] { return testing::RunRandomProgram(seed); },
                                       [seed] { return testing::RunRandomProgram(seed, true); });
    const ProgramResult& want = d.unfused.result;
    if (single) {
      std::cout << "seed " << seed << ":\n"
                << want.listing << "fused run: " << StatsText(d.fused.stats)
                << "\ncached run: " << StatsText(d.cached.stats) << "\nshifted program:\n"
                << d.unfused_shifted->result.listing;
    }
    ++t.programs;
    const auto& f = want.features;
    t.ops += static_cast<uint64_t>(f.ops);
    t.with_reduce += f.reductions > 0;
    t.with_matmul += f.matmuls > 0;
    t.with_reduce_broadcast += f.reduce_broadcasts > 0;
    t.with_cast += f.casts > 0;
    t.with_view += f.views > 0;
    t.with_mask += f.masks > 0;
    t.with_moves += f.moved_operands > 0;
    t.with_drops += f.drops > 0;
    t.with_gather += f.gathers > 0;
    t.with_select += f.selects > 0;
    t.with_cat += f.cats > 0;
    t.half += f.dtype != DType::kF32;
    t.fused_executions += d.fused.stats.fused_executions;
    t.cached_fused_executions += d.cached.stats.fused_executions;
    t.cache_hits += d.cached.stats.cache_hits;
    t.shifted_cache_hits += d.shifted->stats.cache_hits;
    t.shifted_fused_executions += d.shifted->stats.fused_executions;
    t.with_fused_kernel += d.fused.stats.fused_executions > 0;
    t.with_fallback += !d.fused.fallbacks.empty();
    for (const std::string& line : d.fused.fallbacks) {
      // One example per reason (the line without its numbers).
      std::string reason = line;
      std::erase_if(reason, [](char c) { return c >= '0' && c <= '9'; });
      if (t.fallback_examples.size() < 5 && t.fallback_reasons.insert(reason).second) {
        t.fallback_examples.push_back("seed " + std::to_string(seed) + ": " + line);
      }
    }
    if (t.first_fallback.empty() && !d.fused.fallbacks.empty()) {
      t.first_fallback = t.fallback_examples.front();
    }

    // Fusion off must mean no search and no fused kernel, or the comparison means nothing.
    EXPECT_EQ(d.unfused.stats.fused_executions, 0u) << "seed " << seed;
    EXPECT_EQ(d.unfused.stats.explorations, 0u) << "seed " << seed;

    std::string problem;
    if (!want.error.empty()) problem += "unfused run threw: " + want.error + "\n";
    if (!d.fused.result.error.empty()) problem += "fused run threw: " + d.fused.result.error + "\n";
    if (!d.cached.result.error.empty()) {
      problem += "cached run threw: " + d.cached.result.error + "\n";
    }
    const ProgramResult& want_shifted = d.unfused_shifted->result;
    if (!want_shifted.error.empty())
      problem += "unfused shifted run threw: " + want_shifted.error + "\n";
    if (!d.shifted->result.error.empty()) {
      problem += "fused shifted run threw: " + d.shifted->result.error + "\n";
    }
    if (d.fused.result.listing != want.listing || d.cached.result.listing != want.listing ||
        d.shifted->result.listing != want_shifted.listing) {
      problem += "the runs generated different programs (a generator bug)\n";
    }
    if (problem.empty()) {
      const std::string fused_diff = CompareAll(want.outputs, d.fused.result.outputs);
      if (!fused_diff.empty()) problem += "fused (explored) vs unfused:\n" + fused_diff;
      const std::string cached_diff = CompareAll(want.outputs, d.cached.result.outputs);
      if (!cached_diff.empty()) problem += "fused (cached plans) vs unfused:\n" + cached_diff;
      const std::string shifted_diff = CompareAll(want_shifted.outputs, d.shifted->result.outputs);
      if (!shifted_diff.empty()) {
        problem += "shifted dims, fused after the original (plans reused) vs unfused:\n" +
                   shifted_diff + "shifted program:\n" + want_shifted.listing;
      }
    }
    if (problem.empty()) continue;
    if (++t.failures <= 5) {
      ADD_FAILURE() << "seed " << seed << " (rerun with EMBER_DIFF_SEED=" << seed << ")\n"
                    << problem << "program:\n"
                    << want.listing << "fused run: " << StatsText(d.fused.stats) << "\n"
                    << "cached run: " << StatsText(d.cached.stats);
    } else {
      ADD_FAILURE() << "seed " << seed << " also fails (listing left out)";
    }
  }

  std::cout << "[differential] " << t.programs << " programs, " << t.ops << " ops; with reduce "
            << t.with_reduce << ", reduce+broadcast " << t.with_reduce_broadcast << ", matmul "
            << t.with_matmul << ", cast " << t.with_cast << ", view " << t.with_view << ", mask "
            << t.with_mask << ", moves " << t.with_moves << ", drops " << t.with_drops
            << ", f16/bf16 " << t.half << "\n"
            << "[differential] indexed ops (program_indexed_steps.h): with gather " << t.with_gather
            << ", select " << t.with_select << ", cat " << t.with_cat << "\n"
            << "[differential] fused executions " << t.fused_executions << " (in "
            << t.with_fused_kernel << " programs), cached rerun: fused executions "
            << t.cached_fused_executions << ", cache hits " << t.cache_hits
            << "; shifted dims: fused executions " << t.shifted_fused_executions << ", cache hits "
            << t.shifted_cache_hits
            << "\n[differential] programs whose fused kernels fell back: " << t.with_fallback
            << "\n";
  for (const std::string& line : t.fallback_examples) std::cout << "  " << line << "\n";

  if (t.programs < kNumPrograms) return;  // a single-seed rerun: the totals do not apply
  // The generator must produce what the engine's fusers work on, or the test is vacuous.
  EXPECT_GE(t.with_reduce, kNumPrograms / 2);
  EXPECT_GE(t.with_reduce_broadcast, kNumPrograms / 3);
  EXPECT_GE(t.with_matmul, kNumPrograms / 4);
  EXPECT_GE(t.with_cast, kNumPrograms / 5);
  EXPECT_GE(t.with_view, kNumPrograms / 5);
  EXPECT_GE(t.with_mask, kNumPrograms / 5);
  EXPECT_GE(t.with_moves, kNumPrograms * 3 / 4);
  EXPECT_GE(t.half, kNumPrograms / 10);
  EXPECT_GE(t.with_gather, kNumPrograms / 10);
  EXPECT_GE(t.with_select, kNumPrograms / 10);
  EXPECT_GE(t.with_cat, kNumPrograms / 10);
  // And fused kernels must actually have run (not fallen back to their ops one by one).
  EXPECT_GT(t.fused_executions, 0u) << "first fallback: " << t.first_fallback;
  EXPECT_GE(t.with_fused_kernel, kNumPrograms / 2) << "first fallback: " << t.first_fallback;
  EXPECT_EQ(t.with_fallback, 0) << "first fallback: " << t.first_fallback;
  EXPECT_GT(t.cached_fused_executions, 0u);
  EXPECT_GT(t.cache_hits, 0u);
  EXPECT_GT(t.shifted_cache_hits, 0u);
  EXPECT_GT(t.shifted_fused_executions, 0u);
}

// The search's block budget changes which ops share a block, how blocks merge and where order
// repair runs; the values must not change with it.
TEST(DifferentialFusion, RandomProgramsMatchUnderOtherBlockBudgets) {
  DefaultConfigOnExit restore;
  constexpr uint64_t kSeeds = 60;
  constexpr size_t kBudgets[] = {1, 2, 10};
  uint64_t fused_executions = 0;
  for (uint64_t i = 0; i < kSeeds; ++i) {
    const uint64_t seed = 100000 + i;
    const size_t max_blocks = kBudgets[i % 3];
    UseFusion(false);
    const RunResult unfused = RunOnce([seed] { return testing::RunRandomProgram(seed); });
    UseFusion(true, max_blocks);
    const RunResult fused = RunOnce([seed] { return testing::RunRandomProgram(seed); });
    fused_executions += fused.stats.fused_executions;
    const std::string diff = unfused.result.error + fused.result.error +
                             CompareAll(unfused.result.outputs, fused.result.outputs);
    EXPECT_EQ(diff, "") << "seed " << seed << ", max_blocks " << max_blocks << "\n"
                        << unfused.result.listing;
  }
  EXPECT_GT(fused_executions, 0u);
}

// --- Targeted end-to-end chains ---------------------------------------------------------------

// Host data in [lo, hi) from a fixed seed.
std::vector<float> HostData(size_t n, uint64_t seed, float lo = -1, float hi = 1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

ProgramOutput ReadF(Tensor t, const std::string& name) {
  ProgramOutput out{name, t.Dtype(), t.Shape(), {}, {}};
  out.floats = std::move(t).ToVector<float>();
  return out;
}

// Runs `program` unfused and fused; expects equal bits and at least one fused kernel.
void ExpectFusedMatchesUnfused(const std::function<std::vector<ProgramOutput>()>& program) {
  DefaultConfigOnExit restore;
  auto wrapped = [&] {
    ProgramResult r;
    r.outputs = program();
    return r;
  };
  const Differential d = RunBothWays(wrapped);
  EXPECT_EQ(d.unfused.stats.fused_executions, 0u);
  ASSERT_FALSE(d.unfused.result.outputs.empty());
  EXPECT_EQ(CompareAll(d.unfused.result.outputs, d.fused.result.outputs), "");
  EXPECT_EQ(CompareAll(d.unfused.result.outputs, d.cached.result.outputs), "");
  EXPECT_GT(d.fused.stats.fused_executions, 0u)
      << StatsText(d.fused.stats) << "\n"
      << (d.fused.fallbacks.empty() ? "no fallback logged" : d.fused.fallbacks[0]);
  EXPECT_GT(d.cached.stats.fused_executions, 0u) << StatsText(d.cached.stats);
  // A kernel the search chose must run as one: a fallback means the backend refused a trace
  // of the engine's own fusers.
  EXPECT_EQ(d.fused.fallbacks, std::vector<std::string>{});
}

TEST(DifferentialFusion, SoftmaxOverTheLastAxis) {
  ExpectFusedMatchesUnfused([] {
    Tensor x = Tensor::FromVector(HostData(64 * 1000, 11, -4, 4), {64, 1000});
    Tensor s = std::move(x) * 0.125;
    Tensor m = s.MaxDim(1);
    Tensor e = (std::move(s) - std::move(m)).Exp();
    Tensor z = e.SumDim(1);
    Tensor y = std::move(e) / std::move(z);
    const ProgramOutput out = ReadF(std::move(y), "softmax");
    // Not only equal to each other: a softmax (rows sum to 1).
    for (size_t row = 0; row < 64; row += 21) {
      double sum = 0;
      for (size_t j = 0; j < 1000; ++j) sum += out.floats[row * 1000 + j];
      EXPECT_NEAR(sum, 1.0, 1e-4) << "row " << row;
    }
    return std::vector<ProgramOutput>{out};
  });
}

TEST(DifferentialFusion, LayerNorm) {
  ExpectFusedMatchesUnfused([] {
    Tensor x = Tensor::FromVector(HostData(96 * 257, 12, -3, 3), {96, 257});
    Tensor gamma = Tensor::FromVector(HostData(257, 13, 0.5f, 1.5f), {257});
    Tensor beta = Tensor::FromVector(HostData(257, 14), {257});
    Tensor mu = x.MeanDim(-1);
    Tensor d = std::move(x) - std::move(mu);
    Tensor var = (d * d).MeanDim(-1);
    Tensor y = std::move(d) / (std::move(var) + 1e-5).Sqrt();
    y = std::move(y) * std::move(gamma) + std::move(beta);
    return std::vector<ProgramOutput>{ReadF(std::move(y), "layernorm")};
  });
}

TEST(DifferentialFusion, MlpLayerWithBiasAndRelu) {
  ExpectFusedMatchesUnfused([] {
    Tensor x = Tensor::FromVector(HostData(130 * 64, 15), {130, 64});
    Tensor w = Tensor::FromVector(HostData(64 * 96, 16, -0.125f, 0.125f), {64, 96});
    Tensor b = Tensor::FromVector(HostData(96, 17), {96});
    Tensor h = x.Matmul(w) + b;
    // Relu twice: through a mask and through clamp (two epilogue shapes of burn's matmul).
    Tensor neg = h.Lower(0.0);
    Tensor relu_mask = h.MaskFill(std::move(neg), 0.0);
    Tensor relu_clamp = (std::move(h)).Clamp(0.0, 1e30);
    Tensor y2 = (std::move(x).Matmul(std::move(w)) + std::move(b)).Tanh();
    return std::vector<ProgramOutput>{ReadF(std::move(relu_mask), "relu_mask"),
                                      ReadF(std::move(relu_clamp), "relu_clamp"),
                                      ReadF(std::move(y2), "tanh")};
  });
}

TEST(DifferentialFusion, ExpSumDimThenHalve) {
  ExpectFusedMatchesUnfused([] {
    Tensor x = Tensor::FromVector(HostData(257 * 33, 18), {257, 33});
    Tensor y = std::move(x).Exp().SumDim(1) / 2.0;
    return std::vector<ProgramOutput>{ReadF(std::move(y), "exp_sum_half")};
  });
}

TEST(DifferentialFusion, HalfPrecisionChain) {
  ExpectFusedMatchesUnfused([] {
    // f16 math runs in f32 and rounds at every stored result; the fused kernel must round
    // exactly where the unfused ops stored.
    Tensor x = Tensor::FromVector(HostData(70 * 65, 19, -2, 2), {70, 65}, DType::kF16);
    Tensor r = Tensor::FromVector(HostData(65, 20), {1, 65}, DType::kF16);
    Tensor y = ((x * 1.5 + r).Tanh() * 3.0).Exp();
    Tensor s = (std::move(y) - 1.0).SumDim(1);
    Tensor z = (std::move(x) * 0.1).Sin().Cast(DType::kF32).Cast(DType::kBF16) + 0.5;
    return std::vector<ProgramOutput>{ReadF(std::move(s), "f16_sum"), ReadF(std::move(z), "bf16")};
  });
}

// Found by the random programs (seed 508 and others, beyond the default 200): a reduce that
// reads a value an *earlier* block of a ReduceBroadcasted trace computed (`t` below, from block
// 0, reduced again after the first reduce's block) gives a trace the CPU backend refuses
// ("reduce stage from block 2 has unusable arguments"), so the whole optimization runs its ops
// one by one. The values stay right; the fusion is lost on every execution.
TEST(DifferentialFusion, SecondReduceOfAnEarlierBlocksValueRunsFused) {
  ExpectFusedMatchesUnfused([] {
    Tensor x = Tensor::FromVector(HostData(14 * 15, 21), {14, 15});
    Tensor t = std::move(x).Exp();
    Tensor r1 = t.SumDim(1);
    Tensor y1 = t - std::move(r1);
    Tensor r2 = t.MaxDim(1);
    Tensor y2 = (std::move(y1) - std::move(r2)).Exp();
    return std::vector<ProgramOutput>{ReadF(std::move(y2), "y2")};
  });
}

}  // namespace
}  // namespace ember

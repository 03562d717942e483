// The random programs of the CPU differential test (tests/end_to_end/program_generator.h) on
// Device::Cuda(0): each program runs on the CPU with fusion off (the oracle), on CUDA with fusion
// off (every op its own kernel), and on CUDA with fusion on three times (the search explores, the
// stored plans run again, and the program with shifted dims reuses them through their relative
// shapes). Every CUDA result is compared with the CPU's under Note [GPU tolerances]
// (gpu_test_util.h), and the fused CUDA results with the unfused CUDA ones as well.
//
// What is allowed, per output:
//   * f32: ‖gpu − cpu‖ / ‖cpu‖ ≤ 1e-5; f16 1e-2; bf16 2e-2, taking the least precise float
//     dtype the output's computation stored in (an f32 output that went through bf16 gets
//     bf16's tolerance). Non-finite elements must sit at the same positions.
//   * ints and bools: exactly equal,
//   * except fuzzy outputs (Note [Fuzzy outputs], program_generator.h): downstream of a float ->
//     int/bool cast, a comparison or an ArgMax/ArgMin of a computed float, a last-bit difference
//     legitimately becomes a jump (±1 after truncation, a flipped mask, another index among near
//     ties), and a reduction or matmul after it spreads the jump along a row. Such outputs are
//     checked for dtype and shape, and at most a quarter of their elements (at least one) may
//     differ; for floats an element differs when |gpu − cpu| > tol · (|cpu| + rms(cpu)). The
//     summary line counts the fuzzy outputs and how many used the allowance, so a backend that
//     leans on it shows. The exact behaviour of each op (casts, comparisons, arg reductions on
//     host data) is pinned bit for bit by public_ops_test.cpp.
//
// The phases run program by program within each engine configuration (all CPU runs, then all
// unfused CUDA runs, then all fused CUDA runs), so each engine starts only three times.
//
// A failure prints the seed and the program's listing. EMBER_GPU_DIFF_SEED=<s> runs one program
// and prints its listing, EMBER_GPU_DIFF_PROGRAMS=<n> runs n (default 300),
// EMBER_GPU_DIFF_TRACE=1 prints each seed before it runs (to find one that crashes),
// EMBER_GPU_DIFF_RTOL=<x> multiplies every float tolerance (to see how close a failure is).
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>

#include "tests/api/api_test_util.h"
#include "tests/end_to_end/program_generator.h"
#include "tests/gpu/gpu_test_util.h"

namespace ember::gpu {
namespace {

using testing::ProgramResult;

constexpr uint64_t kFirstSeed = 1;
constexpr int kNumPrograms = 300;
constexpr double kFuzzyFraction = 0.25;

std::vector<uint64_t> Seeds() {
  if (const char* one = std::getenv("EMBER_GPU_DIFF_SEED")) return {std::stoull(one)};
  int n = kNumPrograms;
  if (const char* count = std::getenv("EMBER_GPU_DIFF_PROGRAMS")) n = std::stoi(count);
  std::vector<uint64_t> seeds;
  for (int i = 0; i < n; ++i) seeds.push_back(kFirstSeed + static_cast<uint64_t>(i));
  return seeds;
}

double ToleranceScale() {
  const char* env = std::getenv("EMBER_GPU_DIFF_RTOL");
  return env ? std::stod(env) : 1.0;
}

struct Runs {
  ProgramResult cpu, cpu_shifted;        // fusion off
  ProgramResult cuda_unfused;            // fusion off
  ProgramResult fused, cached, shifted;  // fusion on: explored, plans reused, shifted dims
  // Fusion on, the program's third and fourth runs: its windows were captured at the end of the
  // third (graph_after = 2 eager runs of the plans), so the fourth replays them as CUDA graphs
  // (Note [Launch windows]) and must give the cached run's outputs bit for bit.
  ProgramResult third, replayed;
};

// Whether two runs' outputs are the same bits (NaN payloads aside: both NaN is the same).
std::string Identical(const ProgramResult& want, const ProgramResult& got) {
  if (!want.error.empty() || !got.error.empty()) return want.error == got.error ? "" : "  threw\n";
  if (want.outputs.size() != got.outputs.size()) return "  output counts differ\n";
  std::string diff;
  for (size_t i = 0; i < want.outputs.size(); ++i) {
    const ProgramOutput& a = want.outputs[i];
    const ProgramOutput& b = got.outputs[i];
    bool same = a.ints == b.ints && a.floats.size() == b.floats.size();
    for (size_t k = 0; same && k < a.floats.size(); ++k) {
      same = std::bit_cast<uint32_t>(a.floats[k]) == std::bit_cast<uint32_t>(b.floats[k]) ||
             (std::isnan(a.floats[k]) && std::isnan(b.floats[k]));
    }
    if (!same) diff += "  output " + a.name + " differs\n";
  }
  return diff;
}

struct Counts {
  int outputs = 0, fuzzy = 0, fuzzy_differing = 0;
};

ProgramResult RunProgram(uint64_t seed, bool shifted, Device device) {
  ProgramResult r;
  ember::testing::OnFreshStream(
      [&] { r = ember::testing::RunRandomProgram(seed, shifted, device); });
  return r;
}

DType Coarser(DType a, DType b) { return FloatTolerance(a) >= FloatTolerance(b) ? a : b; }

// The comparison of one output under the rules at the top of this file.
std::string CompareOutput(const ProgramOutput& want, const ProgramOutput& got, Counts* counts) {
  CompareOptions options;
  if (IsFloat(want.dtype)) {
    options.tolerance_scale = ToleranceScale() *
                              FloatTolerance(Coarser(want.dtype, want.coarsest_float)) /
                              FloatTolerance(want.dtype);
  }
  ++counts->outputs;
  if (!want.fuzzy) return Compare(want, got, options);
  ++counts->fuzzy;
  if (!Compare(want, got, options).empty()) ++counts->fuzzy_differing;
  options.allowed_mismatch_fraction = kFuzzyFraction;
  return Compare(want, got, options);
}

std::string CompareRuns(const ProgramResult& want, const ProgramResult& got, Counts* counts) {
  if (!want.error.empty()) return "  the reference run threw: " + want.error + "\n";
  if (!got.error.empty()) return "  threw: " + got.error + "\n";
  if (got.listing != want.listing) return "  generated another program (a generator bug)\n";
  if (want.outputs.size() != got.outputs.size()) return "  output counts differ\n";
  std::string diff;
  for (size_t i = 0; i < want.outputs.size(); ++i) {
    diff += CompareOutput(want.outputs[i], got.outputs[i], counts);
  }
  return diff;
}

TEST(DifferentialGpu, RandomProgramsMatchTheCpuFusedAndUnfused) {
  EMBER_CUDA_OR_SKIP(cuda);
  const bool trace = std::getenv("EMBER_GPU_DIFF_TRACE") != nullptr;
  const bool single = std::getenv("EMBER_GPU_DIFF_SEED") != nullptr;
  const std::vector<uint64_t> seeds = Seeds();
  std::map<uint64_t, Runs> runs;

  UseFusion(false);
  for (uint64_t seed : seeds) {
    if (trace) std::cerr << "cpu seed " << seed << std::endl;
    runs[seed].cpu = RunProgram(seed, false, Device::Cpu());
    runs[seed].cpu_shifted = RunProgram(seed, true, Device::Cpu());
  }
  for (uint64_t seed : seeds) {
    if (trace) std::cerr << "cuda unfused seed " << seed << std::endl;
    runs[seed].cuda_unfused = RunProgram(seed, false, cuda);
  }
  const Stats unfused_stats = GetStats(cuda);
  UseFusion(true);
  for (uint64_t seed : seeds) {
    if (trace) std::cerr << "cuda fused seed " << seed << std::endl;
    Runs& r = runs[seed];
    r.fused = RunProgram(seed, false, cuda);
    r.cached = RunProgram(seed, false, cuda);
    r.shifted = RunProgram(seed, true, cuda);
    r.third = RunProgram(seed, false, cuda);
    r.replayed = RunProgram(seed, false, cuda);
  }
  const Stats fused_stats = GetStats(cuda);
  UseFusion(true);  // a fresh engine for whatever runs next

  EXPECT_EQ(unfused_stats.fused_executions, 0u) << "fusion off must run no fused kernel";
  EXPECT_EQ(unfused_stats.explorations, 0u);

  Counts counts;
  int failures = 0, with_gather = 0, with_select = 0, with_cat = 0;
  for (uint64_t seed : seeds) {
    const Runs& r = runs.at(seed);
    with_gather += r.cpu.features.gathers > 0;
    with_select += r.cpu.features.selects > 0;
    with_cat += r.cpu.features.cats > 0;
    if (single) std::cout << "seed " << seed << ":\n" << r.cpu.listing;
    std::string problem;
    auto check = [&](const char* what, const ProgramResult& want, const ProgramResult& got) {
      const std::string diff = CompareRuns(want, got, &counts);
      if (!diff.empty()) problem += std::string(what) + ":\n" + diff;
    };
    check("cuda unfused vs cpu", r.cpu, r.cuda_unfused);
    check("cuda fused (explored) vs cpu", r.cpu, r.fused);
    check("cuda fused (cached plans) vs cpu", r.cpu, r.cached);
    check("cuda fused vs cuda unfused", r.cuda_unfused, r.fused);
    check("cuda fused, shifted dims (plans reused) vs cpu", r.cpu_shifted, r.shifted);
    check("cuda fused, fourth run (graph replays) vs cpu", r.cpu, r.replayed);
    if (const std::string diff = Identical(r.cached, r.replayed); !diff.empty()) {
      problem += "cuda fused, fourth run (graph replays) vs the cached run, bit for bit:\n" + diff;
    }
    if (problem.empty()) continue;
    if (++failures <= 5) {
      ADD_FAILURE() << "seed " << seed << " (rerun with EMBER_GPU_DIFF_SEED=" << seed << ")\n"
                    << problem << "program:\n"
                    << r.cpu.listing;
    } else {
      ADD_FAILURE() << "seed " << seed << " also fails (listing left out)";
    }
  }
  std::cout << "[differential-gpu] " << seeds.size() << " programs, " << counts.outputs
            << " output comparisons, " << counts.fuzzy << " of them fuzzy, "
            << counts.fuzzy_differing << " fuzzy ones differing beyond the tolerance (allowed)\n"
            << "[differential-gpu] indexed ops: programs with gather " << with_gather << ", select "
            << with_select << ", cat " << with_cat << "\n"
            << "[differential-gpu] cuda fused: explorations " << fused_stats.explorations
            << ", cache hits " << fused_stats.cache_hits << ", fused executions "
            << fused_stats.fused_executions << ", launches " << fused_stats.launches << "\n"
            << "[differential-gpu] graphs: " << fused_stats.graphs.captures << " captured, "
            << fused_stats.graphs.replays << " replays of " << fused_stats.graphs.replayed_launches
            << " launches, fallbacks " << fused_stats.graphs.fallback_diverged << " diverged / "
            << fused_stats.graphs.fallback_ended_early << " ended early\n";
  if (single) return;
  // Fused kernels must have run on the GPU, or the fused comparisons compare unfused runs.
  EXPECT_GT(fused_stats.fused_executions, 0u);
  EXPECT_GT(fused_stats.cache_hits, 0u);
  // Graph replays must have run, or the fourth runs compared eager runs (the CPU has none).
  if (!SuiteOnCpu()) {
    EXPECT_GT(fused_stats.graphs.replays, 0u);
  }
}

// Without a GPU the generator still runs on the CPU with an explicit device, identically to the
// CPU differential test's programs (the device parameter changes nothing else).
TEST(DifferentialGpu, ExplicitCpuDeviceGivesTheDefaultProgram) {
  UseFusion(false);
  for (uint64_t seed : {1u, 2u, 3u}) {
    ProgramResult a, b;
    ember::testing::OnFreshStream([&] { a = ember::testing::RunRandomProgram(seed); });
    ember::testing::OnFreshStream(
        [&] { b = ember::testing::RunRandomProgram(seed, false, Device::Cpu()); });
    EXPECT_EQ(a.listing, b.listing);
    ASSERT_EQ(a.outputs.size(), b.outputs.size());
    for (size_t i = 0; i < a.outputs.size(); ++i) {
      EXPECT_EQ(Compare(a.outputs[i], b.outputs[i], {.tolerance_scale = 0}), "") << seed;
    }
  }
  UseFusion(true);
}

}  // namespace
}  // namespace ember::gpu

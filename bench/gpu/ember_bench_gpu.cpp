// ember-bench-gpu: ember's fused and unfused CUDA kernels on the workloads of the GPU issue, timed
// as a user calls them, with the same workloads in PyTorch (bench/gpu/torch_peer.py) merged into
// one table by bench/gpu/report.py (docs/BENCHMARKS.md, "The GPU suite").
//
//   ember-bench-gpu OUT.json
//   EMBER_BENCH_GPU_SIZES=24,26,28,20,22  exponents of the elementwise / row sizes (f32 elements),
//                                         in the order they run (the targets' sizes first)
//   EMBER_BENCH_GPU_REPEATS=15            timed calls per case (the median is reported)
//   EMBER_BENCH_GPU_BUDGET_S=240          wall-time budget; cases past it are skipped, and say so
//   EMBER_BENCH_GPU_MATMUL=0              leaves the matmul cases out
//   EMBER_BENCH_GPU_DEVICE=cpu            runs on the CPU backend (a check of this program only)
//   EMBER_BENCH_GPU_ONLY=softmax,chain8   only these workloads (for a profiler run)
//   EMBER_BENCH_GPU_UNFUSED=0             leaves the unfused pass out
//   EMBER_BENCH_GPU_HOST=0                leaves the host-time-per-launch measurement out
//
// Workloads (n f32 elements per input):
//   seed        (a*b + c*2).exp()                       3 inputs, 1 output
//   chain8      |sin(tanh(exp(x*0.5 + 1) - 0.25) * 3)|  8 ops (tools/lab/seed_programs.h's
//               UnrelatedChain): MulScalar, AddScalar, Exp, SubScalar, Tanh, MulScalar, Sin, Abs
//   chains5x8   five independent chain8s of n elements each, queued before one sync (40 ops)
//   softmax     exp(x - max(x)) / sum(exp(x - max(x))) over rows of 4096
//   layernorm   (x - mean) / sqrt(var + 1e-5) * gamma + beta over rows of 4096
//   matmul      [8192,4096] x [4096,4096] f32, alone, + bias, + bias + relu (Clamp(y, 0, inf)),
//               and + bias + gelu (0.5*y*(1 + erf(y/√2)))
// each with fusion on (`fused`) and off (`unfused`, every op its own kernel), switched through the
// engine's configuration as EMBER_FUSION would (the device's engine is released in between).
// matmul + bias and matmul + bias + relu also run with each variant of
// engine/runtime/cuda/backend/matmul_epilogue.h forced (`fused-cublaslt`: cuBLASLt's own
// epilogue; `fused-kernel`: cuBLASLt then the generated epilogue kernel); the `fused` row is the
// engine's own measured choice, and says which it was (`epilogue_choice`).
//
// Two timings per case, after warm-up calls (which explore, compile and fill the plan cache):
//   per_call      one call as a user makes it: queue the ops, then ember::Sync(device), timed
//                 on the host clock around both, so host overhead is included; the median over
//                 EMBER_BENCH_GPU_REPEATS calls;
//   back_to_back  N calls queued, one Sync at the end, total / N; the median of 3 rounds. A
//                 steady state: every queued call reads its own input set (so no two calls read
//                 the same tensor, and a kernel the search builds over several calls still moves
//                 every byte counted), and the exact N-call sequence (the same sets, the same
//                 order, the previous round's outputs dropped and synced before the round) runs
//                 twice untimed first, so the timed rounds replay stored plans and compiled
//                 kernels; `back_to_back_engine` shows they explore nothing.
// Per call, inputs rotate over several sets so that, at small sizes, L2 (60 MB on an H200) does
// not hold them from one call to the next. Outputs stay alive until the Sync (the engine must
// compute them) and are dropped after it.
//
// Host time per fused launch on the cache-hit path (`host_launch` in the JSON; target < 5 µs):
// the seed expression on 256 elements, so its kernel is about as short as a kernel gets. 200
// calls, each with an ember::Sync, after three untimed ones (every plan a cache hit, one fused
// launch per call: `synced_engine` shows both); from the median call the round trip of a bare
// launch + cuStreamSynchronize of an empty kernel is taken away and that launch's own host time
// added back, which leaves ember's host work for one fused launch (queueing the ops, the plan
// lookup, handles, PlanTrace, KernelArguments) and its cuLaunchKernel. Breakdown: PlanTrace +
// KernelArguments of the seed's trace and cuLaunchKernel of an empty kernel, each timed alone in
// a loop; the rest is the engine's. Also: 2000 calls on their own inputs queued and synced once
// (after two untimed rounds), per call; the search may put several calls in one kernel there.
//
// Bandwidth counts the fewest bytes each workload must move: each input read once and each
// output written once (matmul: A, B, bias and the output, and its rate in TFLOP/s as well).
//
// Why a plain timing main and not Google Benchmark (as bench/*.cpp): the figures must be taken
// exactly as above (host clock around enqueue + sync, a rotation of inputs, a fixed number of
// calls inside a time budget shared with the tests on a leased machine) and merged with
// PyTorch's into one table; Google Benchmark's adaptive iteration counts and its own JSON layout
// would have to be overridden at every one of those points.
//
// The parts: gpu_workloads.h (the workloads), case_timing.h (one case timed), host_time.h (host
// time per launch and per op), gpu_bench_util.h (settings, fusion switch, clock).
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <ember/ember.h>

#include "bench/gpu/case_timing.h"
#include "bench/gpu/gpu_bench_util.h"
#include "bench/gpu/gpu_workloads.h"
#include "bench/gpu/host_time.h"

#ifdef EMBER_WITH_CUDA
#include "engine/runtime/cuda/backend/matmul_epilogue.h"
#endif

namespace {

using bench_gpu::Elementwise;
using bench_gpu::EnvDouble;
using bench_gpu::HostLaunch;
using bench_gpu::HostUnfused;
using bench_gpu::Matmuls;
using bench_gpu::RunCase;
using bench_gpu::SizeExponents;
using bench_gpu::Timer;
using bench_gpu::UseFusion;
using bench_gpu::Workload;
using ember::Device;

std::string Today() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ember-bench-gpu OUT.json (see the file's header for the env)\n");
    return 2;
  }
  nlohmann::json doc = {{"tool", "ember"}, {"date", Today()}, {"results", nlohmann::json::array()}};
  auto write = [&] { std::ofstream(argv[1]) << doc.dump(2) << "\n"; };
  Device device = Device::Cpu();
  const char* on = std::getenv("EMBER_BENCH_GPU_DEVICE");
  try {
    // EMBER_BENCH_GPU_DEVICE=cpu: the CPU backend, to check the program itself without a GPU.
    if (on == nullptr || std::string(on) != "cpu") device = Device::Cuda(0);
  } catch (const ember::Error& e) {
    std::printf("ember-bench-gpu: not measured: %s\n", e.what());
    doc["skipped"] = e.what();
    write();
    return 0;
  }
  doc["device"] = device.ToString();
  const int repeats = static_cast<int>(EnvDouble("EMBER_BENCH_GPU_REPEATS", 15));
  Timer timer{.budget_s = EnvDouble("EMBER_BENCH_GPU_BUDGET_S", 240)};
  // The matmuls first, then the sizes in the order given: what the targets need comes before
  // the budget can run out.
  std::vector<Workload> workloads;
  if (EnvDouble("EMBER_BENCH_GPU_MATMUL", 1) != 0) {
    for (Workload& w : Matmuls()) workloads.push_back(std::move(w));
  }
  for (int e : SizeExponents()) {
    for (Workload& w : Elementwise(int64_t{1} << e)) workloads.push_back(std::move(w));
  }
  if (const char* only = std::getenv("EMBER_BENCH_GPU_ONLY")) {
    const std::string wanted = std::string(",") + only + ",";
    std::erase_if(workloads, [&](const Workload& w) {
      return wanted.find("," + std::string(w.name) + ",") == std::string::npos;
    });
  }

  // Host time per fused launch first: a fresh engine, fusion on, nothing else queued.
  if (EnvDouble("EMBER_BENCH_GPU_HOST", 1) != 0) {
    UseFusion(device, true);
    try {
      doc["host_launch"] = HostLaunch(device);
      const nlohmann::json& h = doc["host_launch"];
      std::printf("host per fused launch: %.2f us (%.2f us per call synced, %.2f queued)\n",
                  h["us_per_launch"].get<double>(), h["synced_us_per_call"].get<double>(),
                  h["queued_us_per_call"].get<double>());
    } catch (const ember::Error& e) {
      doc["host_launch"] = {{"error", e.what()}};
    }
    write();
  }

  // Host time per unfused op: fusion off, a fresh engine.
  if (EnvDouble("EMBER_BENCH_GPU_HOST", 1) != 0) {
    UseFusion(device, false);
    try {
      doc["host_unfused"] = HostUnfused(device);
      const nlohmann::json& h = doc["host_unfused"];
      std::printf("host per unfused op: exp %.2f us queued (%.2f synced), add %.2f us queued\n",
                  h["exp"]["queued_us_per_op"].get<double>(),
                  h["exp"]["synced_us_per_op"].get<double>(),
                  h["add"]["queued_us_per_op"].get<double>());
    } catch (const ember::Error& e) {
      doc["host_unfused"] = {{"error", e.what()}};
    }
    write();
  }

  std::printf("%-18s %11s %-14s %12s %10s %12s %10s %9s\n", "workload", "n", "variant",
              "per call ms", "GB/s", "b2b ms", "GB/s", "rel err");
  auto run_one = [&](const Workload& w, const std::string& variant) {
    nlohmann::json r;
    if (timer.Spent()) {
      r = {{"workload", w.name},
           {"n", w.n},
           {"variant", variant},
           {"skipped", "time budget (EMBER_BENCH_GPU_BUDGET_S) spent"}};
    } else {
      try {
        r = RunCase(device, w, variant, repeats);
      } catch (const ember::Error& e) {
        r = {{"workload", w.name}, {"n", w.n}, {"variant", variant}, {"error", e.what()}};
        ember::ReleaseDevice(device);
      }
    }
    doc["results"].push_back(r);
    write();  // what is measured survives a later crash or kill
    if (r.contains("per_call_ms")) {
      std::printf("%-18s %11lld %-14s %12.4f %10.1f %12.4f %10.1f %9s %s\n", w.name.c_str(),
                  static_cast<long long>(w.n), variant.c_str(), r["per_call_ms"].get<double>(),
                  r["per_call_gbps"].get<double>(), r["back_to_back_ms"].get<double>(),
                  r["back_to_back_gbps"].get<double>(),
                  r.contains("max_rel_error")
                      ? std::to_string(r["max_rel_error"].get<double>()).substr(0, 9).c_str()
                      : "-",
                  r.value("epilogue_choice", std::string()).c_str());
    } else {
      std::printf("%-18s %11lld %-14s %s\n", w.name.c_str(), static_cast<long long>(w.n),
                  variant.c_str(), r.value("skipped", r.value("error", std::string())).c_str());
    }
    std::fflush(stdout);
  };
  // Fusion on first (the figures the targets are about), then off; each switch releases the
  // device's engine.
  for (bool fused : {true, false}) {
    if (!fused && EnvDouble("EMBER_BENCH_GPU_UNFUSED", 1) == 0) break;
    UseFusion(device, fused);
    for (const Workload& w : workloads) {
      run_one(w, fused ? "fused" : "unfused");
#ifdef EMBER_WITH_CUDA
      if (fused && w.epilogue_variants && device != Device::Cpu()) {
        using ember::cuda::EpilogueMode;
        for (const auto& [mode, name] : {std::pair{EpilogueMode::kCublasLt, "fused-cublaslt"},
                                         std::pair{EpilogueMode::kKernel, "fused-kernel"}}) {
          ember::cuda::SetMatmulEpilogueModeForTesting(mode);
          run_one(w, name);
        }
        ember::cuda::SetMatmulEpilogueModeForTesting(std::nullopt);
      }
#endif
    }
  }
  UseFusion(device, true);
  write();
  return 0;
}

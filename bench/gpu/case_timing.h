// One case of ember-bench-gpu (ember_bench_gpu.cpp): a workload in one variant (fused, unfused,
// or a forced matmul epilogue), timed per call and back to back as the file's header describes,
// with the engine's counters over each, as one JSON result; and the time budget the cases share.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <ember/ember.h>

#ifdef EMBER_WITH_CUDA
#include "engine/runtime/cuda/backend/matmul_epilogue.h"
#endif

#include "bench/gpu/gpu_bench_util.h"
#include "bench/gpu/gpu_workloads.h"

namespace bench_gpu {

// --- Timing ----------------------------------------------------------------------------------

struct Timer {
  Clock::time_point start = Clock::now();
  double budget_s;
  bool Spent() const { return Ms(Clock::now() - start) / 1000.0 > budget_s; }
};

// Counters of the matmul epilogue chooser (process-wide), or zeros without CUDA.
struct EpilogueCounts {
  uint64_t measured = 0, chose_cublaslt = 0, refused = 0, runs_cublaslt = 0, runs_kernel = 0;
};
inline EpilogueCounts EpilogueCountsNow() {
#ifdef EMBER_WITH_CUDA
  const ember::cuda::EpilogueCounters c = ember::cuda::MatmulEpilogueCounters();
  return {c.measured, c.chose_cublaslt, c.refused, c.runs_cublaslt, c.runs_kernel};
#else
  return {};
#endif
}

// `variant`: fused, unfused, fused-cublaslt or fused-kernel (the caller set the engine up).
inline nlohmann::json RunCase(Device device, const Workload& w, const std::string& variant,
                              int repeats) {
  nlohmann::json r = {{"workload", w.name}, {"n", w.n}, {"variant", variant}, {"bytes", w.bytes}};
  if (w.flops > 0) r["flops"] = w.flops;
  const EpilogueCounts epilogue_before = EpilogueCountsNow();
  // Back to back: N calls, each on its own input set; inputs and outputs of one round stay
  // under ~24 GB.
  const double call_bytes = std::max(1.0, w.bytes);
  const int calls = static_cast<int>(std::clamp(24e9 / call_bytes, 3.0, 50.0));
  // Per call: enough input sets that their total exceeds a few L2s, at least two.
  const int sets = static_cast<int>(std::clamp(std::ceil(4 * kL2Bytes / call_bytes), 2.0, 16.0));
  std::vector<InputSet> inputs;
  for (int s = 0; s < std::max(sets, calls); ++s) inputs.push_back(w.make_inputs(device));
  ember::Sync(device);

  // Warm-up: explores, compiles, and fills the plan cache; one checked call.
  for (int i = 0; i < 3; ++i) {
    std::vector<Tensor> out = w.call(inputs[static_cast<size_t>(i % sets)]);
    ember::Sync(device);
    if (i == 2) {
      if (const auto err = w.check(inputs[static_cast<size_t>(i % sets)], out)) {
        r["max_rel_error"] = *err;
      }
    }
  }

  const ember::Stats before = ember::GetStats(device);
  std::vector<double> per_call;
  for (int i = 0; i < repeats; ++i) {
    const InputSet& in = inputs[static_cast<size_t>(i % sets)];
    const Clock::time_point t0 = Clock::now();
    std::vector<Tensor> out = w.call(in);
    ember::Sync(device);
    per_call.push_back(Ms(Clock::now() - t0));
  }
  // What the engine did over the timed calls: a steady state explores nothing.
  r["per_call_engine"] = EngineDelta(before, ember::GetStats(device), repeats);
  r["per_call_ms"] = Median(per_call);
  r["per_call_min_ms"] = *std::min_element(per_call.begin(), per_call.end());

  // Back to back: two untimed rounds of the exact sequence, then three timed ones. Each round
  // starts on a drained engine: the previous round's outputs are dropped and synced first, so
  // every round queues the same ops in the same order.
  std::vector<double> b2b;
  ember::Stats b2b_before;
  for (int round = 0; round < 5; ++round) {
    if (round == 2) b2b_before = ember::GetStats(device);
    std::vector<std::vector<Tensor>> outs;
    outs.reserve(static_cast<size_t>(calls));
    const Clock::time_point t0 = Clock::now();
    for (int i = 0; i < calls; ++i) outs.push_back(w.call(inputs[static_cast<size_t>(i)]));
    ember::Sync(device);
    if (round >= 2) b2b.push_back(Ms(Clock::now() - t0) / calls);
    outs.clear();
    ember::Sync(device);
  }
  r["back_to_back_engine"] = EngineDelta(b2b_before, ember::GetStats(device), 3 * calls);
  // Row kernels the process runs under a register cap so far (Note [Register cap]).
  r["kernels_register_capped"] = ember::GetStats(device).kernels_register_capped;
  r["back_to_back_ms"] = Median(b2b);
  r["back_to_back_calls"] = calls;
  r["input_sets"] = std::max(sets, calls);
  for (const char* mode : {"per_call", "back_to_back"}) {
    const double ms = r[std::string(mode) + "_ms"].get<double>();
    r[std::string(mode) + "_gbps"] = w.bytes / (ms * 1e6);
    if (w.flops > 0) r[std::string(mode) + "_tflops"] = w.flops / (ms * 1e9);
  }
  if (w.epilogue_variants) {
    const EpilogueCounts a = EpilogueCountsNow();
    const EpilogueCounts& b = epilogue_before;
    r["epilogue"] = {{"measured", a.measured - b.measured},
                     {"chose_cublaslt", a.chose_cublaslt - b.chose_cublaslt},
                     {"refused", a.refused - b.refused},
                     {"runs_cublaslt", a.runs_cublaslt - b.runs_cublaslt},
                     {"runs_kernel", a.runs_kernel - b.runs_kernel}};
    // The variant the timed calls ran: they are all one shape class.
    if (variant == "fused") {
      r["epilogue_choice"] = a.refused > b.refused                 ? "kernel (refused)"
                             : a.chose_cublaslt > b.chose_cublaslt ? "cublaslt"
                             : a.measured > b.measured             ? "kernel"
                                                                   : "unknown";
    }
  }
  return r;
}

}  // namespace bench_gpu

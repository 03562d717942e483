// ember-bench-gpu's host time (ember_bench_gpu.cpp's header): per fused launch on the cache-hit
// path (`host_launch`, with its breakdown: PlanTrace + KernelArguments of the seed's trace and a
// bare cuLaunchKernel, each timed alone) and per unfused op (`host_unfused`).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <ember/ember.h>

#include "codegen/kernel_source.h"
#include "codegen/plan_trace.h"
#include "engine/fuse/elementwise_fuser.h"
#include "engine/fuse/trace_optimization.h"
#include "engine/ir/builders.h"

#ifdef EMBER_WITH_CUDA
#include "engine/runtime/cuda/cuda_device.h"
#include "engine/runtime/cuda/cuda_stream.h"
#include "engine/runtime/cuda/driver_api.h"
#include "engine/runtime/cuda/kernel_cache.h"
#endif

#include "bench/gpu/gpu_bench_util.h"
#include "bench/gpu/gpu_workloads.h"

namespace bench_gpu {

// --- Host time per fused launch --------------------------------------------------------------

// The seed's fused trace as the elementwise fuser builds it, and a launch of it on n elements at
// fake addresses (codegen never dereferences them).
struct SeedTrace {
  ember::FuseTrace trace;
  ember::codegen::TraceLaunch launch;
};
inline SeedTrace MakeSeedTrace(int64_t n) {
  using ember::OpKind;
  using ember::TensorIr;
  using ember::TensorStatus;
  auto t = [](ember::TensorId id, TensorStatus status) {
    return TensorIr{.id = id, .shape = {1}, .status = status, .dtype = DType::kF32};
  };
  const TensorStatus ro = TensorStatus::kReadOnly, rw = TensorStatus::kReadWrite,
                     out = TensorStatus::kNotInit;
  ember::ElementWiseFuser fuser(0xffffffffu);
  for (const ember::OperationIr& op :
       {ember::ir::Binary(OpKind::kMul, t(0, ro), t(1, ro), t(3, out)),
        ember::ir::Scalar(OpKind::kMulScalar, t(2, ro), ember::ScalarIr::UInt(0), t(4, out)),
        ember::ir::Binary(OpKind::kAdd, t(3, rw), t(4, rw), t(5, out)),
        ember::ir::Unary(OpKind::kExp, t(5, rw), t(6, out))}) {
    fuser.Fuse(op);
  }
  SeedTrace s;
  s.trace = std::dynamic_pointer_cast<ember::TraceOptimization>(fuser.Finish())->trace();
  uint64_t address = 1 << 20;
  auto bound = [&](DType dtype) {
    ember::codegen::BoundTensor b{.dtype = dtype, .shape = {n}, .strides = {1}, .address = address};
    address += 1 << 20;
    return b;
  };
  s.launch.trace = &s.trace;
  for (const TensorIr& in : s.trace.resources.inputs) s.launch.inputs.push_back(bound(in.dtype));
  for (const TensorIr& o : s.trace.resources.outputs) s.launch.outputs.push_back(bound(o.dtype));
  for (size_t k = 0; k < s.trace.resources.scalars.size(); ++k) {
    s.launch.scalars.push_back(ember::ScalarIr::Float(2.0));
  }
  for (size_t b = 0; b < s.trace.blocks.size(); ++b) s.launch.block_shapes.push_back({n});
  return s;
}

// µs per PlanTrace + KernelArguments of the seed's trace on n elements.
inline double PlanTraceUs(int64_t n) {
  SeedTrace s = MakeSeedTrace(n);
  s.launch.trace = &s.trace;
  const ember::codegen::TracePlan first = ember::codegen::PlanTrace(s.launch);
  std::vector<std::vector<ember::codegen::Slot>> slots;
  for (const auto& spec : first.kernels) {
    slots.push_back(ember::codegen::GenerateKernel(s.trace, spec).slots);
  }
  constexpr int kIterations = 20000;
  uint64_t sink = 0;
  const Clock::time_point t0 = Clock::now();
  for (int i = 0; i < kIterations; ++i) {
    const ember::codegen::TracePlan plan = ember::codegen::PlanTrace(s.launch);
    for (size_t k = 0; k < plan.kernels.size() && k < slots.size(); ++k) {
      sink += ember::codegen::KernelArguments(s.launch, plan, slots[k]).size();
    }
  }
  const double us = Ms(Clock::now() - t0) * 1000.0 / kIterations;
  // The arguments are used, so the loop is not optimized away.
  if (sink == 0) std::fprintf(stderr, "ember-bench-gpu: the seed's trace planned no kernel\n");
  return us;
}

// An empty kernel's host time per cuLaunchKernel (batches of 256, synced between, the sync not
// counted) and its launch + cuStreamSynchronize round trip (the median of 200), or nullopt
// without CUDA.
struct BareLaunch {
  double launch_us = 0;
  double launch_sync_us = 0;
};
inline std::optional<BareLaunch> MeasureBareLaunch() {
#ifdef EMBER_WITH_CUDA
  using namespace ember::cuda;
  std::shared_ptr<CudaDevice> device = CudaDevice::Open(0);
  ScopedContext scope(*device);
  CudaStream stream(device);
  KernelCache cache(device);
  CUfunction f =
      cache.Get({"ember_empty", "extern \"C\" __global__ void ember_empty(unsigned long long) {}"});
  unsigned long long arg = 0;
  void* params[] = {&arg};
  auto launch = [&] {
    EMBER_CU(cuLaunchKernel, f, 1, 1, 1, 32, 1, 1, 0, stream.get(), params, nullptr);
  };
  double total_ms = 0;
  constexpr int kBatches = 20, kPerBatch = 256;
  for (int b = 0; b < kBatches; ++b) {
    const Clock::time_point t0 = Clock::now();
    for (int i = 0; i < kPerBatch; ++i) launch();
    total_ms += Ms(Clock::now() - t0);
    stream.Synchronize();
  }
  std::vector<double> round_trip;
  for (int i = 0; i < 200; ++i) {
    const Clock::time_point t0 = Clock::now();
    launch();
    stream.Synchronize();
    round_trip.push_back(Ms(Clock::now() - t0) * 1000.0);
  }
  return BareLaunch{.launch_us = total_ms * 1000.0 / (kBatches * kPerBatch),
                    .launch_sync_us = Median(round_trip)};
#else
  return std::nullopt;
#endif
}

inline nlohmann::json HostLaunch(Device device) {
  constexpr int64_t kTiny = 256;
  constexpr int kCalls = 2000, kSynced = 200;
  std::vector<InputSet> inputs;
  for (int i = 0; i < kCalls; ++i) {
    inputs.push_back({Uniform({kTiny}, device, -1, 1), Uniform({kTiny}, device, -1, 1),
                      Uniform({kTiny}, device, -1, 1)});
  }
  ember::Sync(device);
  nlohmann::json r = {{"workload", "seed"}, {"n", kTiny}, {"target_us", 5.0}};
  // Synced after each call, one fused launch each: three untimed calls, then kSynced timed.
  for (int i = 0; i < 3; ++i) {
    Tensor y = Seed(inputs[0][0], inputs[0][1], inputs[0][2]);
    ember::Sync(device);
  }
  ember::Stats before = ember::GetStats(device);
  std::vector<double> per_call;
  for (int i = 0; i < kSynced; ++i) {
    const InputSet& in = inputs[static_cast<size_t>(i)];
    const Clock::time_point t0 = Clock::now();
    Tensor y = Seed(in[0], in[1], in[2]);
    ember::Sync(device);
    per_call.push_back(Ms(Clock::now() - t0) * 1000.0);
  }
  r["synced_engine"] = EngineDelta(before, ember::GetStats(device), kSynced);
  r["synced_us_per_call"] = Median(per_call);
  // Queued, one sync: two untimed rounds of the exact sequence, then one timed. The search may
  // put several independent calls in one kernel, so this is per call, not per launch.
  double wall_ms = 0;
  for (int round = 0; round < 3; ++round) {
    if (round == 2) before = ember::GetStats(device);
    std::vector<Tensor> outs;
    outs.reserve(kCalls);
    const Clock::time_point t0 = Clock::now();
    for (const InputSet& in : inputs) outs.push_back(Seed(in[0], in[1], in[2]));
    ember::Sync(device);
    wall_ms = Ms(Clock::now() - t0);
    outs.clear();
    ember::Sync(device);
  }
  r["queued_engine"] = EngineDelta(before, ember::GetStats(device), kCalls);
  r["queued_us_per_call"] = wall_ms * 1000.0 / kCalls;
  // Per fused launch: the synced call less what a bare launch + sync round trip costs, plus
  // the bare launch's own host time (so what remains is ember's host work and one launch).
  nlohmann::json breakdown = {{"plan_trace_and_arguments_us", PlanTraceUs(kTiny)}};
  double per_launch = r["synced_us_per_call"].get<double>();
  if (device != Device::Cpu()) {
    if (const std::optional<BareLaunch> bare = MeasureBareLaunch()) {
      breakdown["cu_launch_kernel_us"] = bare->launch_us;
      breakdown["bare_launch_sync_us"] = bare->launch_sync_us;
      per_launch = per_launch - bare->launch_sync_us + bare->launch_us;
    }
  }
  r["us_per_launch"] = per_launch;
  // A launch that replays a launch record runs no PlanTrace (engine/runtime/cuda/backend/
  // launch_records.h): its cost is then not part of the launch.
  const bool recorded = r["synced_engine"]["launch_record_hits"].get<uint64_t>() > 0;
  breakdown["plan_trace_on_path"] = !recorded;
  breakdown["engine_rest_us"] =
      per_launch - (recorded ? 0.0 : breakdown["plan_trace_and_arguments_us"].get<double>()) -
      breakdown.value("cu_launch_kernel_us", 0.0);
  r["breakdown"] = breakdown;
  return r;
}

// Host time per unfused op (fusion off): `x.Exp()` and `x + y` on 256 elements, queued (N
// ops, one sync: the host's cost per op) and synced after each. The peer is PyTorch eager's
// per-op time (torch_peer.py's host_per_op), measured in the same call.
inline nlohmann::json HostUnfused(Device device) {
  constexpr int kCalls = 2000, kSynced = 200;
  const Tensor x = Uniform({256}, device, -1, 1), y = Uniform({256}, device, -1, 1);
  ember::Sync(device);
  nlohmann::json r = {{"n", 256}};
  auto measure = [&](const char* name, auto op) {
    for (int i = 0; i < 20; ++i) (void)op();
    ember::Sync(device);
    ember::Stats before = ember::GetStats(device);
    double wall_ms = 0;
    {
      std::vector<Tensor> outs;
      outs.reserve(kCalls);
      const Clock::time_point t0 = Clock::now();
      for (int i = 0; i < kCalls; ++i) outs.push_back(op());
      ember::Sync(device);
      wall_ms = Ms(Clock::now() - t0);
    }
    ember::Sync(device);
    nlohmann::json m = {{"queued_us_per_op", wall_ms * 1000.0 / kCalls},
                        {"queued_engine", EngineDelta(before, ember::GetStats(device), kCalls)}};
    std::vector<double> per_call;
    for (int i = 0; i < kSynced; ++i) {
      const Clock::time_point t0 = Clock::now();
      Tensor out = op();
      ember::Sync(device);
      per_call.push_back(Ms(Clock::now() - t0) * 1000.0);
    }
    m["synced_us_per_op"] = Median(per_call);
    r[name] = m;
  };
  measure("exp", [&] { return x.Exp(); });
  measure("add", [&] { return x + y; });
  return r;
}

}  // namespace bench_gpu

// One run of a materialized queue for the plan_execute fuzz target (plan_execute_fuzz.cpp): on a
// fresh CPU device, with the stored plan handed over as the plan database hands one (fusion on)
// or with fusion off; what it leaves alive, and how two runs' tensors compare (bit for bit, any
// NaN equal to any NaN).
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/core/half.h"
#include "engine/fuse/builtin_fusers.h"
#include "engine/runtime/cpu/cpu_backend.h"
#include "engine/runtime/handle_container.h"
#include "engine/stream/multi_stream.h"
#include "engine/stream/plan_backing.h"
#include "engine/stream/stream_id.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/plan_execute_limits.h"
#include "tests/fuzz/plan_execute_queue.h"

namespace ember::fuzz::plan_execute {

// Deterministic values of `t`'s dtype, different per tensor.
inline std::vector<std::byte> Values(const TensorIr& t) {
  const int64_t n = NumElements(t.shape);
  std::vector<std::byte> bytes(static_cast<size_t>(n * DTypeSize(t.dtype)));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = static_cast<int64_t>((static_cast<uint64_t>(i) * 7 + t.id * 3) % 11) - 5;
    const float f = static_cast<float>(v) * 0.375f;
    std::byte* at = bytes.data() + i * DTypeSize(t.dtype);
    switch (t.dtype) {
      case DType::kF32: std::memcpy(at, &f, 4); break;
      case DType::kF16: {
        const uint16_t h = FloatToHalf(f);
        std::memcpy(at, &h, 2);
        break;
      }
      case DType::kBF16: {
        const uint16_t h = FloatToBFloat16(f);
        std::memcpy(at, &h, 2);
        break;
      }
      case DType::kI32: {
        const int32_t x = static_cast<int32_t>(v);
        std::memcpy(at, &x, 4);
        break;
      }
      case DType::kI64: std::memcpy(at, &v, 8); break;
      case DType::kBool: *at = std::byte{v % 3 == 0 ? uint8_t{1} : uint8_t{0}}; break;
    }
  }
  return bytes;
}

// The stored plan, handed to the store as the plan database hands over a loaded plan
// (PersistentPlans::Load). Nothing else is stored, and nothing may be explored.
class OnePlanBacking final : public PlanBacking {
 public:
  explicit OnePlanBacking(const ExecutionPlan& plan) : plan_(plan) {}

  void Load(const OperationIr& first, const AddPlan& add) override {
    if (first == plan_.operations.front()) add(plan_);
  }
  void OnPlanAdded(PlanId, const ExecutionPlan&, double) override { ++plans_added_; }
  void OnTriggerAdded(PlanId, const ExecutionPlan&, const ExecutionTrigger&) override {}
  void OnHit(PlanId) override { ++hits_; }
  bool ExplorationAllowed() override { return false; }
  void OnExploration() override {}
  void OnUnfusedRun() override {}
  void Flush() override {}
  BackingCounters counters() const override { return {}; }

  uint64_t hits() const { return hits_; }
  uint64_t plans_added() const { return plans_added_; }

 private:
  const ExecutionPlan& plan_;
  uint64_t hits_ = 0;
  uint64_t plans_added_ = 0;
};

struct Result {
  bool alive = false;
  Shape shape;
  DType dtype = DType::kF32;
  std::vector<std::byte> bytes;
};

struct Run {
  std::vector<Result> tensors;  // by relative id
  ProcessorCounters counters;
  bool queue_empty = true;
};

// Registers the live queue on a fresh CPU device and drains it. `backing` null: fusion off.
inline Run Execute(const LiveQueue& live, OnePlanBacking* backing) {
  std::unique_ptr<Backend> backend = cpu::MakeCpuBackend(1);
  HandleContainer handles;
  SearchSettings settings;
  settings.fusion_enabled = backing != nullptr;
  MultiStream streams(
      *backend, [] { return BuiltinFusers(kCpuMaxBindings); }, settings);
  if (backing != nullptr) streams.SetPlanBacking(backing);
  const StreamId stream = CurrentStreamId();
  const char* mode = backing != nullptr ? "the stored plan" : "fusion off";
  try {
    for (const TensorIr& t : live.existing) {
      handles.Register(t.id, backend->FromHost(Values(t), t.shape, t.dtype));
    }
    for (const OperationIr& op : live.ops) {
      if (op.kind == OpKind::kInit) {
        const TensorIr& out = op.outputs[0];
        handles.Register(out.id, backend->FromHost(Values(out), out.shape, out.dtype));
      }
      streams.Register(stream, op, handles);
    }
    streams.Drain(stream, handles);
    backend->Synchronize();
  } catch (const std::exception& e) {
    fuzz::Fail(kTarget, fmt::format("the live queue failed with {}: {}", mode, e.what()));
  }
  Run run;
  run.counters = streams.counters();
  const OperationQueue* queue = streams.queue(stream);
  run.queue_empty = queue == nullptr || queue->empty();
  run.tensors.resize(live.num_tensors);
  for (size_t r = 0; r < live.num_tensors; ++r) {
    const TensorHandle* handle = handles.Peek(kFirstId + r);
    if (handle == nullptr) continue;
    Result& result = run.tensors[r];
    result.alive = true;
    result.shape = handle->shape;
    result.dtype = handle->dtype;
    if (!Known(handle->dtype) || NumElements(handle->shape) > kMaxElements) continue;
    result.bytes.resize(static_cast<size_t>(handle->NumElements() * DTypeSize(handle->dtype)));
    backend->ToHost(*handle, result.bytes);
  }
  return run;
}

inline bool IsNan(const std::byte* at, DType dtype) {
  uint32_t bits = 0;
  switch (dtype) {
    case DType::kF32: {
      std::memcpy(&bits, at, 4);
      return std::isnan(std::bit_cast<float>(bits));
    }
    case DType::kF16: {
      std::memcpy(&bits, at, 2);
      return (bits & 0x7c00) == 0x7c00 && (bits & 0x03ff) != 0;
    }
    case DType::kBF16: {
      std::memcpy(&bits, at, 2);
      return (bits & 0x7f80) == 0x7f80 && (bits & 0x007f) != 0;
    }
    default: return false;
  }
}

// Empty when equal (bit for bit, any NaN equals any NaN); else the first difference.
inline std::string Compare(const Result& want, const Result& got) {
  if (want.alive != got.alive) return want.alive ? "freed by the plan" : "kept alive by the plan";
  if (!want.alive) return "";
  if (want.shape != got.shape || want.dtype != got.dtype) return "shape or dtype differs";
  if (want.bytes.size() != got.bytes.size()) return "sizes differ";
  const size_t size = static_cast<size_t>(DTypeSize(want.dtype));
  for (size_t i = 0; i < want.bytes.size(); i += size) {
    const std::byte* w = want.bytes.data() + i;
    const std::byte* g = got.bytes.data() + i;
    if (std::memcmp(w, g, size) == 0) continue;
    if (IsNan(w, want.dtype) && IsNan(g, want.dtype)) continue;
    return fmt::format("element {} differs", i / size);
  }
  return "";
}

}  // namespace ember::fuzz::plan_execute

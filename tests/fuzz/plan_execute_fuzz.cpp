// A decoded plan executed on a live queue: validation of a stored plan (DecodePlan, which runs
// ValidatePlan: orderings, shape ids, op counts, the fused leaves' proof) must be enough for it
// to execute, through the engine's own plan path, without touching memory it does not own and
// computing what its ops compute. Input: an encoded plan, as DecodePlan reads it (the same
// bytes as the plan_decode target).
//
// For a plan that decodes, the target builds the queue the plan applies to, as the public API
// would have queued it:
//   * relative tensor id r becomes global id kFirstId + r; relative shape id 0 becomes dim 1
//     and shape id s >= 1 becomes dim s + 1 (distinct, never 1), so that converting the global
//     ops back (OperationConverter) gives exactly plan.operations, which is checked;
//   * scalar placeholders get deterministic values of the kind the API gives the op's dtype
//     (checks::ScalarFor: Float, Int or Bool; Clamp's lo <= hi), slice placeholders the range
//     that keeps the last out-dim elements of each sliced dim;
//   * tensors a plan op reads before any op produced them exist before the segment: they get
//     real buffers with deterministic values, as do Init's outputs (registered before the Init
//     is queued, as Upload does);
//   * the plan reaches the device's store the way a stored plan does: a PlanBacking (the
//     persistent path's interface) hands it over in Load when its first op is first seen.
// The ops are registered on a stream of a CPU MultiStream with the built-in fusers, one at a time
// (Lazy), then the stream drains (Sync). The same ops then run on a second device with fusion
// off (every op its own kernel, in submission order).
//
// Invariants (fuzz::Fail): the materialized ops are the plan's ops in relative form; the fused
// device executes the stored plan (one cache hit, no exploration) and leaves its queue empty;
// neither run throws; both leave the same tensors alive with the same shapes, dtypes and values
// (bit for bit, any NaN equals any NaN: the CPU fused kernels round where unfused ones store,
// tests/end_to_end/differential_test.cpp). Memory errors are the sanitizers' (libFuzzer build).
//
// Plans whose ops no API call sequence could queue are skipped (return), since such a queue
// never exists for a plan to match: a tensor with two shapes or dtypes, one used after its last
// use (ReadWrite) or produced twice, an output not NotInit, an input NotInit, a family dtype
// other than the first input's (the output's for creation ops), and ops that break their
// kind's API rule (dtype classes, numpy broadcasting, matmul inner dims, reshape element counts,
// expand and slice extents, axes in range, a permutation). Skipped as well, to keep an input a
// few milliseconds: more than kMaxOps ops, shape ids above kMaxShapeId (dims above 8), tensors
// above kMaxElements elements. And four op kinds are not materialized (documented limits):
//   * Random: its values depend on the generator's position, which the plan's ordering moves;
//   * Gather and Select: data-dependent indices (an index a prior op computed is any value);
//   * Cat: its out dim is the sum of its inputs', which the injective dim choice above can
//     only meet by accident; a solver for dims is not worth it for one kind.
#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/core/half.h"
#include "engine/fuse/builtin_fusers.h"
#include "engine/ir/relative.h"
#include "engine/runtime/cpu/cpu_backend.h"
#include "engine/runtime/handle_container.h"
#include "engine/stream/multi_stream.h"
#include "engine/stream/plan_backing.h"
#include "engine/stream/stream_id.h"
#include "store/codec/plan_codec.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

using namespace ember;

constexpr const char* kTarget = "plan_execute";
constexpr size_t kMaxOps = 128;
constexpr int64_t kMaxShapeId = 7;  // dims 1..8
constexpr int64_t kMaxElements = 4096;
constexpr TensorId kFirstId = 1000;

int64_t DimOf(int64_t shape_id) { return shape_id == 0 ? 1 : shape_id + 1; }

int64_t Elements(const Shape& relative) {
  int64_t n = 1;
  for (int64_t id : relative) n *= DimOf(id);
  return n;
}

bool Known(DType d) { return static_cast<int>(d) < kNumDTypes; }
bool Numeric(DType d) { return Known(d) && d != DType::kBool; }
bool Float(DType d) { return Known(d) && IsFloat(d); }

// Numpy broadcasting of relative shapes (aligned on the right; id 0, dim 1, stretches). The
// dims are an injective function of the ids, so equal ids are exactly equal dims.
std::optional<Shape> Broadcast(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()), 0);
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t x = i < out.size() - a.size() ? 0 : a[i - (out.size() - a.size())];
    const int64_t y = i < out.size() - b.size() ? 0 : b[i - (out.size() - b.size())];
    if (x != y && x != 0 && y != 0) return std::nullopt;
    out[i] = x != 0 ? x : y;
  }
  return out;
}

bool Is(const std::optional<Shape>& shape, const Shape& want) { return shape && *shape == want; }

bool AxisOk(int64_t axis, size_t rank) { return axis >= 0 && static_cast<size_t>(axis) < rank; }

// Whether the public API could have queued `op` (relative form; statuses are checked by the
// caller): the rules of engine/api/tensor_*.cpp, on dims as chosen by DimOf.
bool ApiCouldQueue(const OperationIr& op) {
  const std::vector<TensorIr>& in = op.inputs;
  const TensorIr& out = op.outputs.empty() ? in.at(0) : op.outputs[0];
  auto same = [&](const TensorIr& t) { return t.shape == out.shape && t.dtype == out.dtype; };
  switch (op.kind) {
    case OpKind::kInit:
    case OpKind::kZeros:
    case OpKind::kOnes:
    case OpKind::kFull: return true;
    case OpKind::kDrop: return in[0].status == TensorStatus::kReadWrite;
    case OpKind::kRandom:
    case OpKind::kCat:
    case OpKind::kGather:
    case OpKind::kSelect: return false;  // not materialized (header comment)
    case OpKind::kExp:
    case OpKind::kLog:
    case OpKind::kLog1p:
    case OpKind::kSqrt:
    case OpKind::kRecip:
    case OpKind::kSin:
    case OpKind::kCos:
    case OpKind::kTanh:
    case OpKind::kErf: return Float(in[0].dtype) && same(in[0]);
    case OpKind::kAbs:
    case OpKind::kNeg: return Numeric(in[0].dtype) && same(in[0]);
    case OpKind::kCast: return in[0].shape == out.shape && in[0].dtype != out.dtype;
    case OpKind::kAdd:
    case OpKind::kSub:
    case OpKind::kMul:
    case OpKind::kDiv:
    case OpKind::kRem:
    case OpKind::kPowf:
    case OpKind::kEqual:
    case OpKind::kLower:
    case OpKind::kGreater:
    case OpKind::kLowerEqual:
    case OpKind::kGreaterEqual: {
      const bool compare = op.kind >= OpKind::kEqual;
      const bool accepts = op.kind == OpKind::kPowf    ? Float(in[0].dtype)
                           : op.kind == OpKind::kEqual ? true
                                                       : Numeric(in[0].dtype);
      return accepts && in[0].dtype == in[1].dtype &&
             out.dtype == (compare ? DType::kBool : in[0].dtype) &&
             Is(Broadcast(in[0].shape, in[1].shape), out.shape);
    }
    case OpKind::kAddScalar:
    case OpKind::kSubScalar:
    case OpKind::kMulScalar:
    case OpKind::kDivScalar:
    case OpKind::kRemScalar:
    case OpKind::kPowfScalar:
    case OpKind::kEqualElem:
    case OpKind::kLowerElem:
    case OpKind::kGreaterElem:
    case OpKind::kLowerEqualElem:
    case OpKind::kGreaterEqualElem: {
      const bool compare = op.kind >= OpKind::kEqualElem;
      const bool accepts = op.kind == OpKind::kPowfScalar  ? Float(in[0].dtype)
                           : op.kind == OpKind::kEqualElem ? true
                                                           : Numeric(in[0].dtype);
      return accepts && in[0].shape == out.shape &&
             out.dtype == (compare ? DType::kBool : in[0].dtype);
    }
    case OpKind::kClamp: return Numeric(in[0].dtype) && same(in[0]);
    case OpKind::kMaskWhere: {
      if (in[1].dtype != DType::kBool || in[0].dtype != in[2].dtype || out.dtype != in[0].dtype) {
        return false;
      }
      const std::optional<Shape> xm = Broadcast(in[0].shape, in[1].shape);
      return xm && Is(Broadcast(*xm, in[2].shape), out.shape);
    }
    case OpKind::kMaskFill:
      return in[1].dtype == DType::kBool && out.dtype == in[0].dtype &&
             Is(Broadcast(in[0].shape, in[1].shape), out.shape);
    case OpKind::kReshape:
      return out.dtype == in[0].dtype && Elements(in[0].shape) == Elements(out.shape);
    case OpKind::kSwapDims: {
      const size_t rank = in[0].shape.size();
      if (!AxisOk(op.dims[0], rank) || !AxisOk(op.dims[1], rank)) return false;
      Shape swapped = in[0].shape;
      std::swap(swapped[static_cast<size_t>(op.dims[0])], swapped[static_cast<size_t>(op.dims[1])]);
      return out.dtype == in[0].dtype && swapped == out.shape;
    }
    case OpKind::kPermute: {
      const size_t rank = in[0].shape.size();
      if (op.dims.size() != rank || out.shape.size() != rank || out.dtype != in[0].dtype) {
        return false;
      }
      std::vector<bool> seen(rank, false);
      for (size_t i = 0; i < rank; ++i) {
        if (!AxisOk(op.dims[i], rank) || seen[static_cast<size_t>(op.dims[i])]) return false;
        seen[static_cast<size_t>(op.dims[i])] = true;
        if (out.shape[i] != in[0].shape[static_cast<size_t>(op.dims[i])]) return false;
      }
      return true;
    }
    case OpKind::kExpand: {
      const Shape& from = in[0].shape;
      if (out.shape.size() < from.size() || out.dtype != in[0].dtype) return false;
      const size_t lead = out.shape.size() - from.size();
      for (size_t i = lead; i < out.shape.size(); ++i) {
        if (from[i - lead] != 0 && from[i - lead] != out.shape[i]) return false;
      }
      return true;
    }
    case OpKind::kSlice: {
      const Shape& from = in[0].shape;
      if (op.ranges.size() > from.size() || out.shape.size() != from.size() ||
          out.dtype != in[0].dtype) {
        return false;
      }
      for (size_t i = 0; i < from.size(); ++i) {
        if (i < op.ranges.size() ? DimOf(out.shape[i]) > DimOf(from[i]) : out.shape[i] != from[i]) {
          return false;
        }
      }
      return true;
    }
    case OpKind::kSumDim:
    case OpKind::kMeanDim:
    case OpKind::kProdDim:
    case OpKind::kMaxDim:
    case OpKind::kMinDim:
    case OpKind::kArgMax:
    case OpKind::kArgMin: {
      if (!Numeric(in[0].dtype) || !AxisOk(op.dims[0], in[0].shape.size())) return false;
      Shape reduced = in[0].shape;
      reduced[static_cast<size_t>(op.dims[0])] = 0;
      const bool arg = op.kind == OpKind::kArgMax || op.kind == OpKind::kArgMin;
      return reduced == out.shape && out.dtype == (arg ? DType::kI64 : in[0].dtype);
    }
    case OpKind::kSum:
    case OpKind::kMean:
      return Numeric(in[0].dtype) && out.shape == Shape{0} && out.dtype == in[0].dtype;
    case OpKind::kMatmul: {
      const Shape& a = in[0].shape;
      const Shape& b = in[1].shape;
      if (!Numeric(in[0].dtype) || in[0].dtype != in[1].dtype || out.dtype != in[0].dtype ||
          a.size() < 2 || b.size() < 2 || a[a.size() - 1] != b[b.size() - 2]) {
        return false;
      }
      std::optional<Shape> batch =
          Broadcast(Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2));
      if (!batch) return false;
      batch->push_back(a[a.size() - 2]);
      batch->push_back(b[b.size() - 1]);
      return *batch == out.shape;
    }
  }
  return false;
}

// A scalar of the kind the API gives an op on `dtype` (checks::ScalarFor), small enough for
// every dtype (checks::StoredScalarFor).
ScalarIr ScalarValue(const OperationIr& op, size_t index_in_op, size_t index_in_queue) {
  const bool clamp = op.kind == OpKind::kClamp;
  if (IsFloat(op.dtype)) {
    if (clamp) return ScalarIr::Float(index_in_op == 0 ? -0.75 : 1.25);
    return ScalarIr::Float(0.5 + 0.25 * static_cast<double>(index_in_queue % 8));
  }
  if (IsInt(op.dtype)) {
    if (clamp) return ScalarIr::Int(index_in_op == 0 ? -1 : 2);
    return ScalarIr::Int(2 + static_cast<int64_t>(index_in_queue % 5));
  }
  return ScalarIr::Bool(index_in_queue % 2 == 1);
}

TensorIr Global(const TensorIr& relative) {
  TensorIr global = relative;
  global.id = kFirstId + relative.id;
  for (int64_t& dim : global.shape) dim = DimOf(dim);
  return global;
}

// The live queue a plan applies to (header comment).
struct LiveQueue {
  std::vector<OperationIr> ops;    // global
  std::vector<TensorIr> existing;  // tensors that exist before the segment (global)
  size_t num_tensors = 0;          // relative ids 0..num_tensors-1
};

std::optional<LiveQueue> Materialize(const ExecutionPlan& plan) {
  if (plan.operations.size() > kMaxOps) return std::nullopt;
  struct Seen {
    Shape shape;
    DType dtype;
    bool dead = false;
  };
  std::vector<std::optional<Seen>> tensors;
  LiveQueue live;
  size_t scalars = 0;
  for (const OperationIr& op : plan.operations) {
    std::vector<TensorIr> nodes = op.Nodes();
    for (const TensorIr& t : nodes) {
      if (!Known(t.dtype) || t.id >= kMaxOps * 8) return std::nullopt;
      for (int64_t id : t.shape) {
        if (id < 0 || id > kMaxShapeId) return std::nullopt;
      }
      if (t.shape.size() > 6 || Elements(t.shape) > kMaxElements) return std::nullopt;
    }
    const DType family = op.inputs.empty() ? op.outputs.at(0).dtype : op.inputs[0].dtype;
    if (op.dtype != family || !ApiCouldQueue(op)) return std::nullopt;
    for (const TensorIr& t : op.inputs) {
      if (t.status == TensorStatus::kNotInit) return std::nullopt;
      if (t.id >= tensors.size()) tensors.resize(t.id + 1);
      std::optional<Seen>& seen = tensors[t.id];
      if (!seen) {
        seen = Seen{t.shape, t.dtype};
        TensorIr existing = Global(t);
        existing.status = TensorStatus::kReadOnly;
        live.existing.push_back(existing);
      } else if (seen->dead || seen->shape != t.shape || seen->dtype != t.dtype) {
        return std::nullopt;
      }
    }
    // A last use ends the tensor after this op (an op may read it twice, x * x).
    for (const TensorIr& t : op.inputs) {
      if (t.status == TensorStatus::kReadWrite) tensors[t.id]->dead = true;
    }
    for (const TensorIr& t : op.outputs) {
      if (t.status != TensorStatus::kNotInit) return std::nullopt;
      if (t.id >= tensors.size()) tensors.resize(t.id + 1);
      if (tensors[t.id]) return std::nullopt;  // produced twice, or an input produced
      tensors[t.id] = Seen{t.shape, t.dtype};
    }
    OperationIr global = op;
    for (TensorIr& t : global.inputs) t = Global(t);
    for (TensorIr& t : global.outputs) t = Global(t);
    for (size_t i = 0; i < global.scalars.size(); ++i) {
      global.scalars[i] = ScalarValue(op, i, scalars++);
    }
    for (size_t i = 0; i < global.ranges.size(); ++i) {
      const int64_t from = DimOf(op.inputs[0].shape[i]);
      const int64_t keep = DimOf(op.outputs[0].shape[i]);
      global.ranges[i] = Slice{from - keep, from, 1};
    }
    live.ops.push_back(std::move(global));
  }
  live.num_tensors = tensors.size();
  return live;
}

// Deterministic values of `t`'s dtype, different per tensor.
std::vector<std::byte> Values(const TensorIr& t) {
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
Run Execute(const LiveQueue& live, OnePlanBacking* backing) {
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

bool IsNan(const std::byte* at, DType dtype) {
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
std::string Compare(const Result& want, const Result& got) {
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

}  // namespace

EMBER_FUZZ_TARGET(plan_execute) {
  ExecutionPlan plan;
  if (!DecodePlan(data, &plan).ok()) return;
  const std::optional<LiveQueue> live = Materialize(plan);
  if (!live) return;
  // The queue's own relative form must be the plan's ops, or the plan could not match it.
  OperationConverter converter;
  for (size_t i = 0; i < live->ops.size(); ++i) {
    if (converter.ToRelative(live->ops[i]) != plan.operations[i]) {
      fuzz::Fail(kTarget, fmt::format("materialized op {} does not convert back to the plan's", i));
    }
  }

  OnePlanBacking backing(plan);
  const Run fused = Execute(*live, &backing);
  if (backing.plans_added() != 0 || fused.counters.explorations != 0) {
    fuzz::Fail(kTarget, "the device explored although the stored plan matches its queue");
  }
  if (fused.counters.cache_hits != 1 || backing.hits() != 1) {
    fuzz::Fail(kTarget, fmt::format("the stored plan was hit {} times (backing: {}); expected once",
                                    fused.counters.cache_hits, backing.hits()));
  }
  if (!fused.queue_empty) fuzz::Fail(kTarget, "ops are left queued after the drain");

  const Run unfused = Execute(*live, nullptr);
  for (size_t r = 0; r < live->num_tensors; ++r) {
    const std::string diff = Compare(unfused.tensors[r], fused.tensors[r]);
    if (!diff.empty()) {
      fuzz::Fail(kTarget, fmt::format("tensor {} after the stored plan: {}", r, diff));
    }
  }
}

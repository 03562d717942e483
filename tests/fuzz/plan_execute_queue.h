// The live queue a decoded plan applies to, for the plan_execute fuzz target
// (plan_execute_fuzz.cpp's header): global ids and dims, deterministic scalars, and the tensors
// that exist before the segment; nullopt for a plan whose ops no API call sequence could queue.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/ir/relative.h"
#include "engine/stream/plan_backing.h"
#include "tests/fuzz/plan_execute_api_rules.h"
#include "tests/fuzz/plan_execute_limits.h"

namespace ember::fuzz::plan_execute {

// A scalar of the kind the API gives an op on `dtype` (checks::ScalarFor), small enough for
// every dtype (checks::StoredScalarFor).
inline ScalarIr ScalarValue(const OperationIr& op, size_t index_in_op, size_t index_in_queue) {
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

inline TensorIr Global(const TensorIr& relative) {
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

inline std::optional<LiveQueue> Materialize(const ExecutionPlan& plan) {
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

}  // namespace ember::fuzz::plan_execute

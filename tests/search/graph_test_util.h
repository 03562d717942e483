// Test helpers for the graph toolkit suites: burn's TestNode (search/graph/tests.rs) as a
// designated-initializer spec, and burn's Block data-flow sets built from ops
// (search/block.rs register_op) for the block dependency scenarios.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "engine/ir/builders.h"
#include "engine/ir/operation_ir.h"
#include "engine/search/graph/node.h"
#include "engine/search/graph/subgraph.h"
#include "tests/common/ir_builders.h"

namespace ember::graph_test {

// burn's TestNode: `frees` ids are read for the last time, so they go to both read and freed.
struct NodeSpec {
  size_t position = 0;
  std::vector<TensorId> produces;
  std::vector<TensorId> reads;
  std::vector<TensorId> frees;
};

inline DataFlow Node(NodeSpec spec) {
  std::vector<TensorId> read = spec.reads;
  read.insert(read.end(), spec.frees.begin(), spec.frees.end());
  return MakeDataFlow(std::move(spec.produces), std::move(read), std::move(spec.frees),
                      spec.position);
}

// A DataFlow with raw sets (no implied read for a free), for lifetime corner cases.
inline DataFlow Raw(size_t position, std::vector<TensorId> produced, std::vector<TensorId> read,
                    std::vector<TensorId> freed) {
  return MakeDataFlow(std::move(produced), std::move(read), std::move(freed), position);
}

inline std::vector<size_t> Indices(const SubGraph& set) {
  return std::vector<size_t>(set.begin(), set.end());
}

// burn's search/testing.rs tensors: [32, 32] f32.
inline const Shape kShape = {32, 32};

// burn's add(lhs, rhs, out): both inputs ReadOnly.
inline OperationIr Add(TensorId lhs, TensorId rhs, TensorId out) {
  return ir::Binary(OpKind::kAdd, test::Ro(lhs, kShape), test::Ro(rhs, kShape),
                    test::Out(out, kShape));
}

// burn's add_rw: lhs is read for the last time (ReadWrite).
inline OperationIr AddRw(TensorId lhs, TensorId rhs, TensorId out) {
  return ir::Binary(OpKind::kAdd, test::Rw(lhs, kShape), test::Ro(rhs, kShape),
                    test::Out(out, kShape));
}

// The data-flow sets a Block holds after registering `ops` at their positions, by burn's
// register_op rules: read = inputs not produced by an op registered earlier (and dropped when a
// later op produces them), freed = ReadWrite inputs, produced = outputs, position = start_pos.
inline DataFlow BlockFlow(const std::vector<std::pair<OperationIr, size_t>>& ops) {
  std::vector<TensorId> produced;
  std::vector<TensorId> read;
  std::vector<TensorId> freed;
  size_t start = static_cast<size_t>(-1);
  const auto has = [](const std::vector<TensorId>& ids, TensorId id) {
    for (TensorId x : ids) {
      if (x == id) return true;
    }
    return false;
  };
  for (const auto& [op, position] : ops) {
    if (position < start) start = position;
    for (const TensorIr& in : op.inputs) {
      if (!has(produced, in.id)) read.push_back(in.id);
      if (in.status == TensorStatus::kReadWrite) freed.push_back(in.id);
    }
    for (const TensorIr& out : op.outputs) {
      produced.push_back(out.id);
      std::erase(read, out.id);
    }
  }
  return MakeDataFlow(std::move(produced), std::move(read), std::move(freed), start);
}

}  // namespace ember::graph_test

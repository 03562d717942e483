// ember-plans dot ID: Graphviz of a plan — one cluster per strategy block (fused or not), one
// node per relative op, an edge per tensor passed from op to op, and the plan's global inputs
// as ellipses. `ember-plans dot 7 | dot -Tsvg > plan7.svg`; with --json, the same graph as data.
#include <fmt/format.h>

#include <iostream>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "engine/ir/format.h"
#include "engine/stream/trace.h"
#include "store/admin/plan_inventory.h"
#include "store/repository/plan_row_check.h"
#include "tools/plans/commands.h"
#include "tools/plans/json_output.h"
#include "tools/plans/plan_description.h"

namespace ember::plans {

namespace {

// A double-quoted DOT string.
std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

// The graph: each op's inputs come from the op that last wrote them, or from the plan's inputs.
struct Edge {
  std::optional<size_t> from;  // an op position; nullopt: the plan's input tensor
  size_t to = 0;
  TensorIr tensor;
};

std::vector<Edge> Edges(const ExecutionPlan& plan) {
  std::vector<Edge> edges;
  std::map<TensorId, size_t> writer;
  for (size_t i = 0; i < plan.operations.size(); ++i) {
    const OperationIr& op = plan.operations[i];
    for (const TensorIr& input : op.inputs) {
      const auto w = writer.find(input.id);
      edges.push_back(
          {w != writer.end() ? std::optional<size_t>(w->second) : std::nullopt, i, input});
    }
    for (const TensorIr& output : op.outputs) writer[output.id] = i;
  }
  return edges;
}

std::string BlockLabel(size_t index, const PlanLeaf& leaf) {
  return leaf.fused ? fmt::format("block {}: fused {} (score={}, {} ops)", index, leaf.name,
                                  leaf.score, leaf.positions.size())
                    : fmt::format("block {}: un-fused ({} ops)", index, leaf.positions.size());
}

std::string PlanDot(int64_t id, const ExecutionPlan& plan) {
  std::string out = fmt::format("digraph plan_{} {{\n", id);
  out += "  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
  out += "  edge [fontname=\"monospace\", fontsize=9];\n";
  const std::vector<PlanLeaf> leaves = FlattenLeaves(plan.optimization.strategy);
  for (size_t b = 0; b < leaves.size(); ++b) {
    const PlanLeaf& leaf = leaves[b];
    out += fmt::format("  subgraph cluster_{} {{\n    label={};\n    style={};\n", b,
                       Quoted(BlockLabel(b, leaf)), leaf.fused ? "\"filled,rounded\"" : "dashed");
    if (leaf.fused) out += "    fillcolor=\"#e8f0fe\";\n";
    for (size_t position : leaf.positions) {
      const OperationIr& op = plan.operations[position];
      out += fmt::format(
          "    op{} [label={}];\n", position,
          Quoted(fmt::format("{}: {}\n{}", position, OpName(op), FormatTensors(op.outputs))));
    }
    out += "  }\n";
  }
  std::set<TensorId> inputs_drawn;
  for (const Edge& e : Edges(plan)) {
    if (e.from.has_value()) {
      out += fmt::format("  op{} -> op{} [label=\"t{}\"];\n", *e.from, e.to, e.tensor.id);
      continue;
    }
    if (inputs_drawn.insert(e.tensor.id).second) {
      out += fmt::format("  t{} [shape=ellipse, label={}];\n", e.tensor.id,
                         Quoted(FormatTensor(e.tensor)));
    }
    out += fmt::format("  t{} -> op{};\n", e.tensor.id, e.to);
  }
  out += "}\n";
  return out;
}

// The same graph as data: {"id", "blocks": [{"label", "fused", "ops": [positions]}],
// "ops": [{"position", "op", "outputs"}], "edges": [{"from" (position or null: a plan input),
// "to", "tensor"}]}.
nlohmann::ordered_json PlanGraphJson(int64_t id, const ExecutionPlan& plan) {
  nlohmann::ordered_json blocks = nlohmann::ordered_json::array();
  const std::vector<PlanLeaf> leaves = FlattenLeaves(plan.optimization.strategy);
  for (size_t b = 0; b < leaves.size(); ++b) {
    blocks.push_back({{"label", BlockLabel(b, leaves[b])},
                      {"fused", leaves[b].fused},
                      {"ops", leaves[b].positions}});
  }
  nlohmann::ordered_json ops = nlohmann::ordered_json::array();
  for (size_t i = 0; i < plan.operations.size(); ++i) {
    ops.push_back({{"position", i},
                   {"op", OpName(plan.operations[i])},
                   {"outputs", FormatTensors(plan.operations[i].outputs)}});
  }
  nlohmann::ordered_json edges = nlohmann::ordered_json::array();
  for (const Edge& e : Edges(plan)) {
    edges.push_back({{"from", e.from.has_value() ? nlohmann::ordered_json(*e.from) : nullptr},
                     {"to", e.to},
                     {"tensor", FormatTensor(e.tensor)}});
  }
  return {{"id", id}, {"blocks", blocks}, {"ops", ops}, {"edges", edges}};
}

}  // namespace

int RunDot(const GlobalOptions& global, int64_t plan_id) {
  std::unique_ptr<PlanRepository> db;
  if (Status s = OpenRepositoryForReading(global, &db); !s.ok()) {
    return ReportOpenFailure(global, s);
  }
  PlanRecord record;
  if (Status s = ReadPlan(db->sql(), plan_id, &record); !s.ok()) return ReportFailure(s);
  ExecutionPlan plan;
  if (Status s = CheckPlanRecord(record, &plan); !s.ok()) {
    return ReportFailure(
        Status::Corruption(fmt::format("plan {} is damaged: {}", plan_id, s.message())));
  }
  if (global.json) {
    std::cout << JsonText(PlanGraphJson(plan_id, plan)) << "\n";
  } else {
    std::cout << PlanDot(plan_id, plan);
  }
  return kExitOk;
}

}  // namespace ember::plans

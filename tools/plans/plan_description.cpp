#include "tools/plans/plan_description.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/fuse/trace_optimization.h"

namespace ember::plans {

namespace {

void Flatten(const ExecutionStrategy& strategy, std::vector<PlanLeaf>& out) {
  switch (strategy.kind) {
    case ExecutionStrategy::Kind::kOptimization: {
      PlanLeaf leaf{.fused = true, .score = strategy.score, .positions = strategy.ordering};
      if (strategy.optimization != nullptr) {
        leaf.name = std::string(strategy.optimization->name());
        if (const auto* traced =
                dynamic_cast<const TraceOptimization*>(strategy.optimization.get())) {
          leaf.trace = &traced->trace();
        }
      }
      out.push_back(std::move(leaf));
      return;
    }
    case ExecutionStrategy::Kind::kOperations:
      out.push_back(PlanLeaf{.fused = false, .positions = strategy.ordering});
      return;
    case ExecutionStrategy::Kind::kComposed:
      for (const ExecutionStrategy& child : strategy.children) Flatten(child, out);
      return;
  }
}

}  // namespace

std::vector<PlanLeaf> FlattenLeaves(const ExecutionStrategy& strategy) {
  std::vector<PlanLeaf> leaves;
  Flatten(strategy, leaves);
  return leaves;
}

std::string StrategySummary(const ExecutionPlan& plan) {
  std::string out;
  for (const PlanLeaf& leaf : FlattenLeaves(plan.optimization.strategy)) {
    if (!out.empty()) out += " + ";
    out += leaf.fused ? fmt::format("fused {}({})", leaf.name, leaf.positions.size())
                      : fmt::format("un-fused({})", leaf.positions.size());
  }
  return out;
}

uint64_t BestScore(const ExecutionPlan& plan) {
  uint64_t best = 0;
  for (const PlanLeaf& leaf : FlattenLeaves(plan.optimization.strategy)) {
    if (leaf.fused) best = std::max(best, leaf.score);
  }
  return best;
}

std::string TriggerKindName(int kind) {
  switch (kind) {
    case static_cast<int>(ExecutionTrigger::Kind::kOnOperations): return "on_operations";
    case static_cast<int>(ExecutionTrigger::Kind::kOnSync): return "on_sync";
    case static_cast<int>(ExecutionTrigger::Kind::kAlways): return "always";
    default: return fmt::format("kind {}", kind);
  }
}

std::string Hex(const Blob& bytes) {
  std::string out;
  for (uint8_t b : bytes) out += fmt::format("{:02x}", b);
  return out;
}

std::string HexHash(uint64_t hash) { return fmt::format("0x{:016x}", hash); }

}  // namespace ember::plans

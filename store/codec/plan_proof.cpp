#include "store/codec/plan_proof.h"

#include <memory>
#include <span>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/fuse/builtin_fusers.h"
#include "engine/fuse/trace_optimization.h"

namespace ember {
namespace {

// "positions [3,4,5]", or the first few and the count: the text lands in quarantine reasons.
std::string Positions(const ExecutionStrategy& leaf) {
  constexpr size_t kShown = 8;
  const std::span<const size_t> all(leaf.ordering);
  if (all.size() <= kShown) return fmt::format("positions [{}]", fmt::join(all, ","));
  return fmt::format("{} positions [{},...]", all.size(), fmt::join(all.first(kShown), ","));
}

Status ProveLeaf(const ExecutionStrategy& leaf, std::span<const OperationIr> ops) {
  // OptimizationFromState (engine/fuse/optimization_factory.h) makes only these.
  const auto* stored = dynamic_cast<const TraceOptimization*>(leaf.optimization.get());
  if (stored == nullptr) return Status::Corruption("a fused leaf that is not a fused trace");
  // The CPU backend's limit, as engine/api/device_registry.cpp gives its fusers: the only
  // backend of this build. A backend with a limit of its own must have its plans re-derived
  // with that limit (engine/fuse/builtin_fusers.h says why), taken from their environment.
  std::unique_ptr<OperationFuser> fuser = BuiltinFuser(stored->name(), kCpuMaxBindings);
  if (fuser == nullptr) {
    return Status::Corruption(fmt::format("no fuser makes '{}' optimizations", stored->name()));
  }
  for (size_t position : leaf.ordering) {
    if (position >= ops.size()) {
      return Status::Corruption(fmt::format("fused position {} of {} ops", position, ops.size()));
    }
    fuser->Fuse(ops[position]);
  }
  const FuserProperties properties = fuser->properties();
  const std::string where = fmt::format("{} optimization over {}", stored->name(), Positions(leaf));
  if (fuser->len() != leaf.ordering.size() || !properties.ready) {
    return Status::Corruption(fmt::format("the {}: its fuser fuses {} of those ops{}", where,
                                          fuser->len(), properties.ready ? "" : " (not ready)"));
  }
  if (properties.score != leaf.score) {
    return Status::Corruption(fmt::format("the {} has score {}; its fuser scores those ops {}",
                                          where, leaf.score, properties.score));
  }
  // Equal values, which is equal canonical states: encoding is a function of the value, and
  // decoding gives back the value encoded (Note [Canonical messages]). Comparing the values
  // spares encoding both states, a quarter of the proof's time.
  const std::shared_ptr<Optimization> made = fuser->Finish();
  const auto* rederived = dynamic_cast<const TraceOptimization*>(made.get());
  if (rederived == nullptr || rederived->name() != stored->name() ||
      rederived->len() != stored->len() || rederived->score() != stored->score() ||
      !(rederived->trace() == stored->trace())) {
    return Status::Corruption(
        fmt::format("the {} is not what its fuser makes of those ops", where));
  }
  return Status::Ok();
}

Status Prove(const ExecutionStrategy& strategy, std::span<const OperationIr> ops) {
  switch (strategy.kind) {
    case ExecutionStrategy::Kind::kOptimization:
      if (strategy.optimization == nullptr) {
        return Status::Corruption("fused leaf without optimization");
      }
      return ProveLeaf(strategy, ops);
    case ExecutionStrategy::Kind::kOperations: return Status::Ok();
    case ExecutionStrategy::Kind::kComposed:
      for (const ExecutionStrategy& child : strategy.children) {
        if (Status s = Prove(child, ops); !s.ok()) return s;
      }
      return Status::Ok();
  }
  return Status::Corruption("unknown strategy kind");
}

}  // namespace

Status ProveFusedLeaves(const ExecutionPlan& plan) {
  return Prove(plan.optimization.strategy, plan.operations);
}

}  // namespace ember

// How a stored plan is described to a user: its leaves, a one-line strategy summary, its best
// score, trigger kinds, hex keys. Shared by ls, show and dot. Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/stream/plan.h"
#include "engine/trace/fuse_trace.h"
#include "store/repository/plan_rows.h"

namespace ember::plans {

// One leaf of a strategy, in execution order.
struct PlanLeaf {
  bool fused = false;
  std::string name;                  // the optimization's name when fused
  uint64_t score = 0;                // when fused
  std::vector<size_t> positions;     // the relative op positions it covers, in its order
  const FuseTrace* trace = nullptr;  // when fused by a built-in fuser (TraceOptimization)
};

// Leaves through nested Composed. The traces point into `strategy`'s optimizations.
std::vector<PlanLeaf> FlattenLeaves(const ExecutionStrategy& strategy);

// "fused ElementWise(4) + un-fused(1)".
std::string StrategySummary(const ExecutionPlan& plan);

// The highest score of a fused leaf; 0 when the plan runs unfused.
uint64_t BestScore(const ExecutionPlan& plan);

// "on_operations", "on_sync", "always", or "kind N" for an unknown stored number.
std::string TriggerKindName(int kind);

// Lowercase hex of `bytes` ("" for none).
std::string Hex(const Blob& bytes);
// 0x followed by 16 hex digits.
std::string HexHash(uint64_t hash);

}  // namespace ember::plans

// The built-in fusers (docs/FUSERS.md): one table of (name, version, factory) in registration
// order, which breaks score ties, and every list derived from it: the fusers a search runs,
// the fresh fuser that makes an optimization of a given name, the names OptimizationFromState
// knows (engine/fuse/optimization_factory.h) and the versions the environment fingerprint
// records (engine/api/device_setup.cpp). Adding a fuser is one row (docs/ARCHITECTURE.md,
// "Adding a fuser"). The one list both the engine
// (engine/api/device_registry.cpp) and the plan database's proof (Note [Optimization proof],
// store/codec/plan_proof.h) build fusers from: a loaded plan is re-derived by exactly the fusers
// that explored it.
//
// `max_bindings` is the backend's limit on the buffers one kernel may take (burn's
// max_bindings). It decides acceptance only (TraceOpFuser rejects an op whose binding estimate
// exceeds it), but acceptance shapes the result: ReduceBroadcasted opens a new block where its
// last block refuses an op, so the same ops can give another trace under another limit. Plans
// must therefore be re-derived with the limit they were explored with: kCpuMaxBindings for the
// CPU backend, ember's only one.
//
// Pure factories; callable from any thread.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "engine/fuse/fuser.h"

namespace ember {

// burn's CPU runtime: u32::MAX, no limit.
inline constexpr uint32_t kCpuMaxBindings = std::numeric_limits<uint32_t>::max();

// One built-in fuser: the name of the optimizations it makes, its version (raised whenever it
// would decide differently: part of the environment fingerprint, so plans found under the old
// rules are not served), and a factory for a fresh one.
struct BuiltinFuserEntry {
  std::string_view name;
  uint32_t version;
  std::unique_ptr<OperationFuser> (*make)(uint32_t max_bindings);
};

// ElementWise, Matmul, Reduce, ReduceBroadcasted: the order breaks score ties.
std::span<const BuiltinFuserEntry> BuiltinFuserTable();

// A fresh fuser of every row, in the table's order.
std::vector<std::unique_ptr<OperationFuser>> BuiltinFusers(uint32_t max_bindings);

// A fresh fuser whose Finish() gives optimizations named `name` (ElementWiseFuser::kName, ...),
// or null for a name no built-in fuser gives.
std::unique_ptr<OperationFuser> BuiltinFuser(std::string_view name, uint32_t max_bindings);

}  // namespace ember

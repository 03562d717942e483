// OptimizationFromState: rebuilds an optimization from the state it saved (burn's
// from_state; the inverse of Optimization::ToState). The plan database calls it for every
// fused leaf of a loaded plan.
//
// Known names are those of the built-in fusers (ElementWise, Matmul, Reduce,
// ReduceBroadcasted), which all produce a TraceOptimization whose bytes are a trace state
// (engine/trace/trace_codec.h). Their traces are backend-neutral, so one factory serves every
// backend; a backend that adds its own optimization kinds (with per-backend choices in their
// bytes) adds their names here.
//
// Contract: from_state(to_state(x)) executes identically to x (CONFORMANCE.md §D9) and
// to_state(from_state(s)) == s for every state this accepts. Pure; callable from any thread.
#pragma once

#include <memory>

#include "engine/core/status.h"
#include "engine/fuse/optimization.h"

namespace ember {

// On success sets *out to a new optimization. An unknown name, or bytes that do not decode and
// validate, give Status::Corruption (the plan is then quarantined by the caller) and leave
// *out untouched.
Status OptimizationFromState(const OptimizationState& state, std::shared_ptr<Optimization>* out);

}  // namespace ember

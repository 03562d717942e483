// OptimizationFromState: rebuilds an optimization from the state it saved (burn's
// from_state; the inverse of Optimization::ToState). The plan database calls it for every
// fused leaf of a loaded plan.
//
// Known names are those of the built-in fusers (ElementWise, Matmul, Reduce,
// ReduceBroadcasted), which all produce a TraceOptimization whose state is a TraceState
// (engine/trace/trace_state.h). Their traces are backend-neutral, so one factory serves every
// backend; a backend that adds its own optimization kinds (with per-backend choices in their
// state) adds their names here.
//
// Contract: from_state(to_state(x)) executes identically to x (tests/store/codec_trace_test.cpp,
// Conformance.D9FromStateOfToStateExecutesIdentically) and to_state(from_state(s)) == s for
// every state this accepts. Pure; callable from any thread.
#pragma once

#include <memory>
#include <string_view>

#include "engine/core/status.h"
#include "engine/fuse/optimization.h"

namespace ember {

// Whether `name` is an optimization kind OptimizationFromState rebuilds.
bool IsKnownOptimization(std::string_view name);

// On success sets *out to a new optimization. An unknown name, or a trace that fails
// CheckTraceState or does not match its kind, give Status::Corruption (the plan is then
// quarantined by the caller) and leave *out untouched.
Status OptimizationFromState(const OptimizationState& state, std::shared_ptr<Optimization>* out);

}  // namespace ember

// The Cap'n Proto codec of fused traces (schema/plan.capnp, TraceOptimizationState): the bytes
// of the TraceState a TraceOptimization saves (engine/trace/trace_state.h). The plan codec
// stores them as an OptimizationState's bytes. Encoding is canonical and decoding strict
// (Note [Canonical messages], canonical_message.h). Pure functions; callable from any thread.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/core/status.h"
#include "engine/trace/trace_state.h"

namespace ember {

// The canonical bytes of a schema::TraceOptimizationState.
std::vector<uint8_t> EncodeTraceState(const TraceState& state);

// Decodes and validates bytes written by EncodeTraceState: enum values, argument kinds and
// arities, and CheckTraceState (positions, stage links, len >= 1). On error returns
// Status::Corruption and leaves *out unspecified.
Status DecodeTraceState(std::span<const uint8_t> bytes, TraceState* out);

}  // namespace ember

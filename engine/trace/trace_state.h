// TraceState: what a TraceOptimization saves and is rebuilt from (Optimization::ToState,
// engine/fuse/optimization_factory.h) — its fused trace, how many relative ops it covers and its
// score — as plain data. The plan database turns it into bytes and back
// (store/codec/trace_codec.h); the engine never sees the bytes.
//
// The structural checks below are what makes a trace safe to run: every position an op, view
// or stage names exists, and only writable arguments are written. Whoever builds an
// optimization from a trace it did not derive itself (the decoder, the factory) runs them.
// Pure functions; callable from any thread.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/core/status.h"
#include "engine/trace/fuse_trace.h"

namespace ember {

struct TraceState {
  FuseTrace trace;
  size_t len = 0;
  uint64_t score = 0;

  bool operator==(const TraceState&) const = default;
};

// Cross references inside `trace`: argument positions inside the resource lists, locals inside
// their block, views of existing inputs, reduce and matmul stage links. Status::Corruption
// ("fused trace: …") with the first problem found.
Status CheckFuseTrace(const FuseTrace& trace);

// CheckFuseTrace, and that the state covers at least one op.
Status CheckTraceState(const TraceState& state);

}  // namespace ember

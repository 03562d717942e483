// Optimization: an executable plan for a run of queued ops that a fuser built (burn's
// Optimization + NumOperations). An interface because it is a plug-in: one implementation
// per fuser kind (fused elementwise trace, matmul with epilogue, reduce, ...).
//
// An optimization is built from *relative* ops and executed against the global ops of the
// current queue through a Context (real tensors, scalars, ranges and shapes) and the
// OrderedExecution (the queue positions it covers, in its ops' order, and a way to run one of
// them unfused as a fallback).
//
// Threading: owned by the plan store of one device and executed under its server's lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/trace/trace_state.h"

namespace ember {

struct Context;
class OrderedExecution;

// What an optimization saves so that it can be rebuilt (burn's cubecl OptimizationState, which
// burn serializes with serde): `name` says which implementation can rebuild it, `trace` is its
// state as plain data. The plan database turns it into bytes and back (store/codec/).
struct OptimizationState {
  std::string name;
  TraceState trace;

  bool operator==(const OptimizationState&) const = default;
};

class Optimization {
 public:
  virtual ~Optimization() = default;

  // Runs the covered ops. REQUIRES: called through OrderedExecution::ExecuteOptimization.
  virtual void Execute(Context& context, OrderedExecution& execution) = 0;
  // The number of relative ops it covers; authoritative for how much of the queue it drains
  // (as in burn: Block::optimize and OrderedExecution count len(), not the ordering's length).
  virtual size_t len() const = 0;
  // Shown in the fusion trace ("ElementWise").
  virtual std::string_view name() const = 0;
  // The highest relative shape id its code refers to, if any (the safety check of
  // OperationQueue::Execute, engine/stream/operation_queue.h).
  virtual std::optional<size_t> max_relative_shape_id() const { return std::nullopt; }
  // The serialized state (implemented by each optimization for the plan database; rebuilding
  // from it is the job of the backend's optimization factory).
  virtual OptimizationState ToState() const = 0;
};

}  // namespace ember

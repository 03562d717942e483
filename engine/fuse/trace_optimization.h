// TraceOptimization: the one Optimization every built-in fuser produces (ElementWise, Matmul,
// Reduce, ReduceBroadcasted): a fused trace over `len` relative ops. Executing binds the trace
// to the queue's real tensors through the Context and hands it to the backend
// (Backend::ExecuteFused); the four kinds differ only in the trace they carry (its reduce and
// matmul stages) and in their name.
//
// Note [Fused fallback]
// A backend may fail to run a trace (a CPU or GPU kernel that cannot run, a backend without
// fused kernels). The inputs it would consume are then given back to the handle container and
// the optimization's ops run one by one, in order, so the user gets the same results, only
// slower; the failure is logged once per optimization at `basic`. Backends promise not to have
// written anything when they throw (backend.h), so nothing half-done is ever visible.
#pragma once

#include <atomic>
#include <cstddef>
#include <optional>
#include <string>

#include "engine/fuse/optimization.h"
#include "engine/trace/fuse_trace.h"

namespace ember {

class TraceOptimization final : public Optimization {
 public:
  TraceOptimization(std::string name, FuseTrace trace, size_t len, uint64_t score);

  void Execute(Context& context, OrderedExecution& execution) override;
  size_t len() const override { return len_; }
  std::string_view name() const override { return name_; }
  std::optional<size_t> max_relative_shape_id() const override;
  OptimizationState ToState() const override;

  const FuseTrace& trace() const { return trace_; }
  uint64_t score() const { return score_; }

 private:
  std::string name_;
  const FuseTrace trace_;
  // Names trace_ for the backends' per-trace caches (FusedLaunch::trace_serial).
  const uint64_t serial_;
  // MaxRelativeShapeId(trace_), asked before every execution of a plan: walked once here.
  const std::optional<size_t> max_shape_id_;
  size_t len_;
  uint64_t score_;
  std::atomic<bool> failure_logged_{false};

  void RunOneByOne(Context& context, OrderedExecution& execution);
};

}  // namespace ember

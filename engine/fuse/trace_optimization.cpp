#include "engine/fuse/trace_optimization.h"

#include <exception>
#include <utility>

#include <fmt/format.h>

#include <ember/error.h>

#include "engine/core/check.h"
#include "engine/core/log.h"
#include "engine/fuse/context.h"
#include "engine/fuse/ordered_execution.h"
#include "engine/runtime/fused_launch.h"
#include "engine/trace/trace_serial.h"

namespace ember {
namespace {

Shape RealShape(const Shape& relative, const Context& context) {
  Shape real(relative.size());
  for (size_t i = 0; i < relative.size(); ++i) {
    const auto id = static_cast<size_t>(relative[i]);
    if (id >= context.shapes.size()) {
      throw Error(fmt::format("relative shape id {} is not bound", id));
    }
    real[i] = context.shapes[id];
  }
  return real;
}

const TensorIr& GlobalTensor(TensorId relative, const Context& context) {
  if (relative >= context.tensors.size()) {
    throw Error(fmt::format("relative tensor {} is not bound", relative));
  }
  return context.tensors[relative];
}

}  // namespace

TraceOptimization::TraceOptimization(std::string name, FuseTrace trace, size_t len, uint64_t score)
    : name_(std::move(name)),
      trace_(std::move(trace)),
      serial_(NewTraceSerial()),
      max_shape_id_(MaxRelativeShapeId(trace_)),
      len_(len),
      score_(score) {}

std::optional<size_t> TraceOptimization::max_relative_shape_id() const { return max_shape_id_; }

OptimizationState TraceOptimization::ToState() const {
  // The trace is backend-neutral: every backend rebuilds the same kernel from it, so the state
  // holds no per-backend choice (OptimizationFromState, engine/fuse/optimization_factory.h).
  return OptimizationState{name_, TraceState{trace_, len_, score_}};
}

void TraceOptimization::Execute(Context& context, OrderedExecution& execution) {
  HandleContainer& handles = *context.handles;
  const FuseResources& r = trace_.resources;
  FusedLaunch launch;
  launch.trace = &trace_;
  launch.trace_serial = serial_;
  // Taken out of the container: last uses leave it (so the backend may reuse their buffers),
  // and on failure every taken handle goes back.
  std::vector<std::pair<TensorId, TensorHandle>> taken;
  // Sized once: growing each list by push_back allocated up to three times per list on every
  // launch of the steady state (issue 41).
  launch.inputs.reserve(r.inputs.size());
  launch.reusable.reserve(r.inputs.size());
  launch.outputs.reserve(r.outputs.size());
  launch.scalars.reserve(r.scalars.size());
  launch.block_shapes.reserve(trace_.blocks.size());
  launch.view_shapes.reserve(r.views.size());
  taken.reserve(r.inputs.size());
  auto give_back = [&] {
    for (auto& [id, handle] : taken) handles.Register(id, std::move(handle));
    taken.clear();
  };
  try {
    for (const TensorIr& input : r.inputs) {
      const TensorIr& global = GlobalTensor(input.id, context);
      const TensorHandle* handle = handles.Peek(global.id);
      if (handle == nullptr) throw Error(fmt::format("input t{} has no handle", global.id));
      launch.inputs.push_back(*handle);
      const bool last_use = input.status == TensorStatus::kReadWrite;
      launch.reusable.push_back(last_use);
      if (last_use) {
        taken.emplace_back(global.id, *handle);
        handles.Remove(global.id);
      }
    }
    // The launch holds the only copies of taken handles, so a buffer nobody else shares has a
    // use count of 1 there (the in-place test of backends).
    for (auto& [id, handle] : taken) handle = TensorHandle{};
    for (const TensorIr& output : r.outputs) {
      launch.outputs.push_back(GlobalTensor(output.id, context));
    }
    for (const FuseScalar& scalar : r.scalars) {
      if (scalar.placeholder >= context.scalars.size()) {
        throw Error(fmt::format("scalar placeholder {} is not bound", scalar.placeholder));
      }
      launch.scalars.push_back(context.scalars[scalar.placeholder]);
    }
    for (const FuseBlock& block : trace_.blocks) {
      launch.block_shapes.push_back(RealShape(block.shape_ref, context));
    }
    for (const FuseView& view : r.views)
      launch.view_shapes.push_back(RealShape(view.shape, context));

    std::vector<TensorHandle> results = execution.backend().ExecuteFused(launch);
    EMBER_CHECK(results.size() == r.outputs.size(), "{} returned {} outputs for {}", name_,
                results.size(), r.outputs.size());
    for (size_t j = 0; j < results.size(); ++j) {
      // A written output whose last use was inside the kernel (a buffer re-read by a later
      // block) is not needed afterwards.
      if (r.outputs[j].status == TensorStatus::kReadWrite) continue;
      handles.Register(launch.outputs[j].id, std::move(results[j]));
    }
    for (TensorId dropped : r.dropped) handles.Remove(GlobalTensor(dropped, context).id);
  } catch (const std::exception& e) {
    // Restore what was taken; the launch still holds the handles.
    for (size_t i = 0, k = 0; i < r.inputs.size() && i < launch.inputs.size(); ++i) {
      if (!launch.reusable[i]) continue;
      taken[k++].second = launch.inputs[i];
    }
    give_back();
    if (!failure_logged_.exchange(true)) {
      LogFusion(LogLevel::kBasic, [&] {
        return fmt::format("[fusion] fused {} failed ({}); running its {} ops one by one", name_,
                           e.what(), len_);
      });
    }
    RunOneByOne(context, execution);
  }
}

void TraceOptimization::RunOneByOne(Context& context, OrderedExecution& execution) {
  for (size_t i = 0; i < len_; ++i) execution.ExecuteWithinOptimization(i, *context.handles);
}

}  // namespace ember

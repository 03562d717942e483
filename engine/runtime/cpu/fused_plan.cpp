#include "engine/runtime/cpu/fused_plan.h"

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <ember/error.h>

#include "engine/trace/indexed_launch.h"

namespace ember::cpu {
namespace {

void CheckIndex(uint32_t pos, size_t size, std::string_view what) {
  if (pos >= size) throw Error(fmt::format("fused trace refers to {} {} of {}", what, pos, size));
}

void CheckView(const FuseView& view, const Shape& shape, const FusedLaunch& launch) {
  CheckIndex(view.input, launch.inputs.size(), "input");
  const Shape& original = launch.inputs[view.input].shape;
  if (view.kind == FuseView::Kind::kReshape) {
    if (NumElements(original) == NumElements(shape)) return;
    throw Error(fmt::format("fused reshape of {} to {}", original, shape));
  }
  const auto rank = static_cast<int64_t>(original.size());
  const int64_t a = view.dim1 < 0 ? view.dim1 + rank : view.dim1;
  const int64_t b = view.dim2 < 0 ? view.dim2 + rank : view.dim2;
  Shape swapped = original;
  if (a >= 0 && a < rank && b >= 0 && b < rank) std::swap(swapped[a], swapped[b]);
  if (a < 0 || a >= rank || b < 0 || b >= rank || swapped != shape) {
    throw Error(
        fmt::format("fused swap_dims({}, {}) of {} to {}", view.dim1, view.dim2, original, shape));
  }
}

void CheckLaunch(const FusedLaunch& launch) {
  const FuseTrace& trace = *launch.trace;
  const FuseResources& r = trace.resources;
  CheckFusedHandles(launch);
  if (launch.outputs.size() != r.outputs.size() ||
      launch.block_shapes.size() != trace.blocks.size() ||
      launch.view_shapes.size() != r.views.size()) {
    throw Error("fused launch does not match its trace");
  }
  for (size_t k = 0; k < r.views.size(); ++k) CheckView(r.views[k], launch.view_shapes[k], launch);
}

void CheckMatmul(const MatmulStage& matmul, const FusedLaunch& launch) {
  CheckIndex(matmul.lhs, launch.inputs.size(), "input");
  CheckIndex(matmul.rhs, launch.inputs.size(), "input");
  const Shape& a = launch.inputs[matmul.lhs].shape;
  const Shape& b = launch.inputs[matmul.rhs].shape;
  const Shape& out = launch.block_shapes[0];
  bool ok = matmul.output.kind == FuseArgKind::kLocal && a.size() >= 2 && b.size() >= 2 &&
            out.size() >= std::max(a.size(), b.size());
  if (ok) {
    const size_t r = out.size();
    const Shape batch(out.begin(), out.end() - 2);
    ok = a[a.size() - 1] == b[b.size() - 2] && out[r - 2] == a[a.size() - 2] &&
         out[r - 1] == b[b.size() - 1] && Broadcasts(Shape(a.begin(), a.end() - 2), batch) &&
         Broadcasts(Shape(b.begin(), b.end() - 2), batch);
  }
  if (!ok) throw Error(fmt::format("fused matmul {} x {} -> {}", a, b, out));
}

ReduceOp ReduceOpOf(ReduceStage::Kind kind) {
  switch (kind) {
    case ReduceStage::Kind::kSum: return ReduceOp::kSum;
    case ReduceStage::Kind::kMean: return ReduceOp::kMean;
    case ReduceStage::Kind::kProd: return ReduceOp::kProd;
    case ReduceStage::Kind::kMax: return ReduceOp::kMax;
    case ReduceStage::Kind::kMin: return ReduceOp::kMin;
    case ReduceStage::Kind::kArgMax: return ReduceOp::kArgMax;
    case ReduceStage::Kind::kArgMin: return ReduceOp::kArgMin;
  }
  return ReduceOp::kSum;
}

// An output of shape `out` written from positions of `ref` (dims equal, or 1 in the output).
bool MapsOnto(const Shape& out, const Shape& ref) {
  if (out.size() != ref.size()) return false;
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] != ref[d] && out[d] != 1) return false;
  }
  return true;
}

class Planner {
 public:
  explicit Planner(const FusedLaunch& launch) : launch_(launch), trace_(*launch.trace) {}

  FusedPlan Plan() {
    CheckLaunch(launch_);
    plan_.layout = MakeFusedLayout(launch_);
    if (trace_.matmul) CheckMatmul(*trace_.matmul, launch_);
    first_writer_.assign(launch_.outputs.size(), -1);
    FindHandedOver();
    plan_.reduce_before.resize(trace_.blocks.size());
    for (const ReduceStage& stage : trace_.reduces) AddReduce(stage);
    for (size_t b = 0; b < trace_.blocks.size(); ++b) {
      plan_.blocks.push_back(CompileBlock(trace_.blocks[b], Links(b)));
      plan_.max_slots = std::max(plan_.max_slots, plan_.blocks.back().num_slots);
    }
    for (const ReduceStage& stage : trace_.reduces) {
      const GroupBufferSpec& in = plan_.buffers[plan_.reduce_before[stage.from + 1]->input];
      if (!in.written || in.dtype != stage.input.dtype) {
        throw Error(
            fmt::format("block {} does not write the value its reduce stage reads", stage.from));
      }
    }
    for (size_t o = 0; o < first_writer_.size(); ++o) {
      if (first_writer_[o] < 0) throw Error(fmt::format("no fused block writes output {}", o));
    }
    return std::move(plan_);
  }

 private:
  // A group buffer for every MultiBlockLocal value a later block or a reduce stage reads.
  void FindHandedOver() {
    auto need = [&](uint32_t block, uint32_t pos) {
      CheckIndex(block, trace_.blocks.size(), "block");
      if (handed_over_.count({block, pos}) != 0) return;
      handed_over_[{block, pos}] = static_cast<int>(plan_.buffers.size());
      plan_.buffers.push_back({.block = static_cast<int>(block)});
    };
    for (const FuseBlock& block : trace_.blocks) {
      ForEachArg(block, [&](const FuseArg& arg, bool is_out) {
        if (!is_out && arg.kind == FuseArgKind::kMultiBlockLocal) need(arg.block, arg.pos);
      });
    }
    for (const ReduceStage& stage : trace_.reduces) {
      if (stage.input.kind != FuseArgKind::kMultiBlockLocal || stage.input.block != stage.from ||
          stage.output.kind != FuseArgKind::kLocal) {
        throw Error(fmt::format("reduce stage from block {} has unusable arguments", stage.from));
      }
      need(stage.from, stage.input.pos);
    }
  }

  void AddReduce(const ReduceStage& stage) {
    const int output = static_cast<int>(plan_.buffers.size());
    plan_.buffers.push_back(
        {.block = static_cast<int>(stage.from + 1), .dtype = stage.output.dtype, .written = true});
    plan_.reduce_before[stage.from + 1] = ReducePlan{
        .op = ReduceOpOf(stage.kind),
        .input = handed_over_.at({stage.from, stage.input.pos}),
        .output = output,
        .input_dtype = stage.input.dtype,
        .output_dtype = stage.output.dtype,
    };
  }

  BlockLinks Links(size_t b) {
    BlockLinks links;
    links.source = [this, b](const FuseArg& arg) { return Source(b, arg); };
    links.sink = [this, b](const FuseArg& arg) { return Sink(b, arg); };
    links.indexed = [this, b](const FuseOp& op) { return IndexedOf(b, op); };
    for (const ReduceStage& stage : trace_.reduces) {
      if (stage.from + 1 != b) continue;
      links.stage_local = stage.output;
      links.stage_source = {.kind = ArgSource::Kind::kBuffer,
                            .index = plan_.reduce_before[b]->output,
                            .dtype = stage.output.dtype};
    }
    if (trace_.matmul && b == 0) {
      links.stage_local = trace_.matmul->output;
      links.stage_source = {.kind = ArgSource::Kind::kTensor,
                            .index = static_cast<int>(OutputTensor(launch_.outputs.size())),
                            .dtype = trace_.matmul->output.dtype};
    }
    return links;
  }

  // Plan tensor indices: inputs, views, outputs, then the matmul result.
  size_t OutputTensor(size_t o) const {
    return launch_.inputs.size() + launch_.view_shapes.size() + o;
  }

  void CheckRead(const FuseArg& arg, DType dtype, const Shape& shape, size_t b) const {
    if (arg.dtype != dtype || !Broadcasts(shape, launch_.block_shapes[b])) {
      throw Error(fmt::format("block {} reads a {} tensor {} as {} over {}", b, DTypeName(dtype),
                              shape, DTypeName(arg.dtype), launch_.block_shapes[b]));
    }
  }

  ArgSource Source(size_t b, const FuseArg& arg) {
    const FuseResources& r = trace_.resources;
    switch (arg.kind) {
      case FuseArgKind::kInput: {
        CheckIndex(arg.pos, launch_.inputs.size(), "input");
        const TensorHandle& in = launch_.inputs[arg.pos];
        CheckRead(arg, in.dtype, in.shape, b);
        return {.kind = ArgSource::Kind::kTensor,
                .index = static_cast<int>(arg.pos),
                .dtype = arg.dtype};
      }
      case FuseArgKind::kInputView: {
        CheckIndex(arg.pos, r.views.size(), "view");
        CheckRead(arg, launch_.inputs[r.views[arg.pos].input].dtype, launch_.view_shapes[arg.pos],
                  b);
        return {.kind = ArgSource::Kind::kTensor,
                .index = static_cast<int>(launch_.inputs.size() + arg.pos),
                .dtype = arg.dtype};
      }
      case FuseArgKind::kOutput: return OutputRead(b, arg);
      case FuseArgKind::kMultiBlockLocal: return HandedOver(b, arg);
      case FuseArgKind::kScalar:
        CheckIndex(arg.pos, launch_.scalars.size(), "scalar");
        return {.kind = ArgSource::Kind::kScalar,
                .dtype = r.scalars[arg.pos].dtype,
                .scalar = launch_.scalars[arg.pos],
                .scalar_pos = static_cast<int>(arg.pos)};
      case FuseArgKind::kLiteral:
        return {
            .kind = ArgSource::Kind::kScalar, .dtype = arg.dtype, .scalar = ScalarIr::Int(arg.pos)};
      case FuseArgKind::kLocal: break;
    }
    throw Error("fused block reads a local as a source");
  }

  // An indexed op (Note [Indexed inputs]) checked against the launch by the rules both
  // backends share (engine/trace/indexed_launch.h). Its inputs are not read at the block's
  // positions, so they need not broadcast onto the reference: only those rules bind them.
  IndexedSource IndexedOf(size_t b, const FuseOp& op) const {
    const Shape& ref = launch_.block_shapes[b];
    auto input = [&](uint32_t pos) -> std::optional<IndexedOperand> {
      if (pos >= launch_.inputs.size()) return std::nullopt;
      return IndexedOperand{.dtype = launch_.inputs[pos].dtype,
                            .shape = &launch_.inputs[pos].shape};
    };
    if (auto problem = IndexedLaunchProblem(op, ref, input)) {
      throw Error(fmt::format("block {} over {}: fused {} along dim {}: {}", b, ref,
                              FuseOpKindName(op.kind), op.dim, *problem));
    }
    IndexedSource source{.kind = op.kind, .dim = op.dim};
    for (const FuseArg& arg : op.indexed) source.tensors.push_back(static_cast<int>(arg.pos));
    source.dtype = launch_.inputs[op.indexed[0].pos].dtype;
    return source;
  }

  // A buffer an earlier block wrote. Its elements must be written by the same unit that reads
  // them for units to run independently.
  ArgSource OutputRead(size_t b, const FuseArg& arg) {
    CheckIndex(arg.pos, launch_.outputs.size(), "output");
    const TensorIr& out = launch_.outputs[arg.pos];
    CheckRead(arg, out.dtype, out.shape, b);
    const int writer = first_writer_[arg.pos];
    if (writer < 0 || writer >= static_cast<int>(b)) {
      throw Error(fmt::format("block {} reads output {} before a block writes it", b, arg.pos));
    }
    const FusedLayout& layout = plan_.layout;
    if (layout.axis >= 0 && (out.shape.size() != layout.full_shape.size() ||
                             !std::equal(out.shape.begin(), out.shape.begin() + layout.axis,
                                         layout.full_shape.begin()))) {
      plan_.independent_units = false;
    }
    return {.kind = ArgSource::Kind::kTensor,
            .index = static_cast<int>(OutputTensor(arg.pos)),
            .dtype = arg.dtype};
  }

  ArgSource HandedOver(size_t b, const FuseArg& arg) {
    const int buffer = handed_over_.at({arg.block, arg.pos});
    const GroupBufferSpec& spec = plan_.buffers[buffer];
    if (arg.block >= b || !spec.written || spec.dtype != arg.dtype) {
      throw Error(
          fmt::format("block {} reads value {} of block {}, which that block does not "
                      "write as {}",
                      b, arg.pos, arg.block, DTypeName(arg.dtype)));
    }
    if (launch_.block_shapes[arg.block] == launch_.block_shapes[b]) {
      return {.kind = ArgSource::Kind::kBuffer, .index = buffer, .dtype = arg.dtype};
    }
    const FusedLayout& layout = plan_.layout;
    if (layout.axis >= 0 && !layout.full[arg.block] && layout.full[b]) {
      return {.kind = ArgSource::Kind::kBroadcastBuffer, .index = buffer, .dtype = arg.dtype};
    }
    throw Error(fmt::format("block {} over {} cannot read a value of block {} over {}", b,
                            launch_.block_shapes[b], arg.block, launch_.block_shapes[arg.block]));
  }

  ArgSink Sink(size_t b, const FuseArg& arg) {
    if (arg.kind == FuseArgKind::kOutput) {
      CheckIndex(arg.pos, launch_.outputs.size(), "output");
      const TensorIr& out = launch_.outputs[arg.pos];
      if (arg.dtype != out.dtype || !MapsOnto(out.shape, launch_.block_shapes[b])) {
        throw Error(fmt::format("block {} over {} cannot write output {} ({} {}) as {}", b,
                                launch_.block_shapes[b], arg.pos, DTypeName(out.dtype), out.shape,
                                DTypeName(arg.dtype)));
      }
      if (first_writer_[arg.pos] < 0) first_writer_[arg.pos] = static_cast<int>(b);
      return {.kind = ArgSink::Kind::kOutput, .index = static_cast<int>(arg.pos)};
    }
    if (arg.block != b) {
      throw Error(fmt::format("block {} writes a value of block {}", b, arg.block));
    }
    const auto it = handed_over_.find({arg.block, arg.pos});
    if (it == handed_over_.end()) return {.kind = ArgSink::Kind::kNone};
    GroupBufferSpec& spec = plan_.buffers[it->second];
    if (spec.written && spec.dtype != arg.dtype) {
      throw Error(fmt::format("block {} writes value {} as two dtypes", b, arg.pos));
    }
    spec.written = true;
    spec.dtype = arg.dtype;
    return {.kind = ArgSink::Kind::kBuffer, .index = it->second};
  }

  const FusedLaunch& launch_;
  const FuseTrace& trace_;
  FusedPlan plan_;
  std::map<std::pair<uint32_t, uint32_t>, int> handed_over_;  // (block, value) -> buffer
  std::vector<int> first_writer_;                             // per output, -1: none yet
};

}  // namespace

void CheckFusedHandles(const FusedLaunch& launch) {
  const FuseResources& r = launch.trace->resources;
  if (launch.inputs.size() != r.inputs.size() || launch.scalars.size() != r.scalars.size() ||
      (!launch.reusable.empty() && launch.reusable.size() != launch.inputs.size())) {
    throw Error("fused launch does not match its trace");
  }
  for (const TensorHandle& in : launch.inputs) {
    if (in.buffer == nullptr || in.buffer->backend() != "cpu" ||
        in.strides.size() != in.shape.size()) {
      throw Error("a fused input is not a CPU tensor");
    }
  }
}

FusedPlan PlanFused(const FusedLaunch& launch) { return Planner(launch).Plan(); }

}  // namespace ember::cpu

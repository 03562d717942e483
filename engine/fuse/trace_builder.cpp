#include "engine/fuse/trace_builder.h"

#include <algorithm>

#include "engine/core/check.h"

namespace ember {
namespace {

FuseOp Assign(const FuseArg& input, const FuseArg& out) {
  FuseOp op;
  op.kind = FuseOpKind::kAssign;
  op.args[0] = input;
  op.out = out;
  return op;
}

}  // namespace

TraceBuilder::TraceBuilder() = default;

std::optional<FuseArg> TraceBuilder::FindLocal(const Block& block, TensorId id) {
  for (const auto& [tensor, arg] : block.locals) {
    if (tensor == id) return arg;
  }
  return std::nullopt;
}

std::vector<FuseOp>& TraceBuilder::OpsFor(std::vector<TensorOps>& list, TensorId id) {
  for (TensorOps& entry : list) {
    if (entry.id == id) return entry.ops;
  }
  list.push_back({id, {}});
  return list.back().ops;
}

FuseArg TraceBuilder::NewLocal(Block& block, const TensorIr& tensor) {
  const FuseArg local{FuseArgKind::kLocal, tensor.dtype, block.num_locals++, 0};
  block.locals.emplace_back(tensor.id, local);
  return local;
}

std::optional<FuseArg> TraceBuilder::Input(const TensorIr& tensor) {
  if (IsIndexed(tensor.id)) return std::nullopt;  // burn's FuseBlockBuilder::input
  outputs_.Update(tensor);
  for (const auto& [id, arg] : current_.local_inputs) {
    if (id == tensor.id) return arg;
  }
  if (auto local = FindLocal(current_, tensor.id)) {
    inputs_.Update(tensor);
    return local;
  }
  FuseArg source;
  if (outputs_.Contains(tensor.id)) {
    // Written by an earlier block of this trace: re-read its global buffer.
    source = {FuseArgKind::kOutput, tensor.dtype, buffers_.Insert(tensor), 0};
  } else {
    source = {FuseArgKind::kInput, tensor.dtype, inputs_.Insert(tensor), 0};
  }
  const FuseArg local = NewLocal(current_, tensor);
  OpsFor(current_.reads, tensor.id).push_back(Assign(source, local));
  return local;
}

std::optional<FuseArg> TraceBuilder::Output(const TensorIr& tensor) {
  if (IsIndexed(tensor.id)) return std::nullopt;  // burn's FuseBlockBuilder::output
  if (auto local = FindLocal(current_, tensor.id)) return local;
  const FuseArg local = NewLocal(current_, tensor);
  current_.outputs.Insert(tensor);
  outputs_.Insert(tensor);
  return local;
}

std::optional<uint32_t> TraceBuilder::ViewableInput(const TensorIr& original) {
  outputs_.Update(original);
  if (!FindLocal(current_, original.id)) return std::nullopt;  // first appearance
  if (outputs_.Contains(original.id)) return std::nullopt;     // produced by the kernel
  auto index = inputs_.IndexOf(original.id);
  if (!index) return std::nullopt;
  inputs_.Update(original);
  return index;
}

std::optional<FuseArg> TraceBuilder::InputReshaped(const TensorIr& original, const TensorIr& view) {
  auto input = ViewableInput(original);
  if (!input) return std::nullopt;
  auto out = Output(view);
  if (!out) return std::nullopt;
  views_.push_back({FuseView::Kind::kReshape, *input, view.id, view.shape, 0, 0});
  const FuseArg read{FuseArgKind::kInputView, original.dtype,
                     static_cast<uint32_t>(views_.size() - 1), 0};
  OpsFor(current_.reads, original.id).push_back(Assign(read, *out));
  return out;
}

std::optional<FuseArg> TraceBuilder::InputSwapDims(const TensorIr& original, const TensorIr& view,
                                                   int64_t dim1, int64_t dim2) {
  auto input = ViewableInput(original);
  if (!input) return std::nullopt;
  auto out = Output(view);
  if (!out) return std::nullopt;
  views_.push_back({FuseView::Kind::kSwapDims, *input, view.id, view.shape, dim1, dim2});
  const FuseArg read{FuseArgKind::kInputView, original.dtype,
                     static_cast<uint32_t>(views_.size() - 1), 0};
  OpsFor(current_.reads, original.id).push_back(Assign(read, *out));
  return out;
}

FuseArg TraceBuilder::Scalar(const ScalarIr& placeholder, DType dtype) {
  EMBER_CHECK(placeholder.kind == ScalarIr::Kind::kUInt, "scalars must be relative");
  scalars_.push_back({dtype, static_cast<uint32_t>(placeholder.bits)});
  return {FuseArgKind::kScalar, dtype, static_cast<uint32_t>(scalars_.size() - 1), 0};
}

void TraceBuilder::Drop(const TensorIr& tensor) {
  outputs_.Update(tensor);
  inputs_.Update(tensor);
  if (std::find(dropped_.begin(), dropped_.end(), tensor.id) == dropped_.end()) {
    dropped_.push_back(tensor.id);
  }
}

bool TraceBuilder::IsIndexed(TensorId id) const {
  return std::any_of(indexed_.begin(), indexed_.end(),
                     [&](const auto& entry) { return entry.first == id; });
}

std::optional<FuseArg> TraceBuilder::InputIndexed(const TensorIr& tensor) {
  // burn's order: the same indexed tensor again is the same input; a tensor the trace already
  // reads normally, or produces, cannot be addressed by index.
  for (const auto& [id, arg] : indexed_) {
    if (id != tensor.id) continue;
    outputs_.Update(tensor);
    inputs_.Update(tensor);
    return arg;
  }
  if (inputs_.Contains(tensor.id) || outputs_.Contains(tensor.id)) return std::nullopt;
  const FuseArg arg = InputUnhandled(tensor);
  indexed_.emplace_back(tensor.id, arg);
  return arg;
}

FuseArg TraceBuilder::InputUnhandled(const TensorIr& tensor) {
  EMBER_DCHECK(!IsIndexed(tensor.id), "t{} is indexed", tensor.id);
  outputs_.Update(tensor);
  const uint32_t pos = inputs_.Insert(tensor);
  inputs_unhandled_.push_back(tensor.id);
  return {FuseArgKind::kInput, tensor.dtype, pos, 0};
}

void TraceBuilder::NextBlock(const Shape& shape_ref) {
  current_.shape_ref = shape_ref;
  previous_.push_back(std::move(current_));
  current_ = Block{};
}

FuseArg TraceBuilder::BlockLocalInput(const TensorIr& tensor, uint32_t block_pos,
                                      bool written_by_block) {
  EMBER_CHECK(block_pos < previous_.size());
  for (const auto& [id, arg] : current_.local_inputs) {
    if (id == tensor.id) {
      outputs_.Update(tensor);
      return arg;
    }
  }
  Block& block = previous_[block_pos];
  std::optional<FuseArg> local = FindLocal(block, tensor.id);
  std::optional<FuseArg> passed_on;
  for (const auto& [id, arg] : block.local_inputs) {
    if (id == tensor.id) passed_on = arg;
  }
  FuseArg source;
  if (passed_on && !written_by_block) {
    source = *passed_on;
  } else {
    if (!local && passed_on) {
      // Copy the received value into a local of `block`, which then writes it.
      local = NewLocal(block, tensor);
      FuseOp copy;
      copy.kind = FuseOpKind::kAssign;
      copy.args[0] = *passed_on;
      copy.out = *local;
      block.ops.push_back(copy);
    }
    if (!local) {
      // Not a value of that block yet: read it there (as burn's TraceFuser::block_local_input,
      // burn-cubecl-fusion's engine/trace/fuser.rs).
      std::swap(block, current_);
      local = Input(tensor);
      std::swap(block, current_);
    }
    EMBER_CHECK(local.has_value());
    source = {FuseArgKind::kMultiBlockLocal, tensor.dtype, block.num_handed_over++, block_pos};
    OpsFor(block.writes, tensor.id).push_back(Assign(*local, source));
  }
  outputs_.Update(tensor);
  current_.local_inputs.emplace_back(tensor.id, source);
  return source;
}

std::optional<uint32_t> TraceBuilder::BlockHolding(TensorId id) const {
  for (size_t b = previous_.size(); b-- > 0;) {
    if (FindLocal(previous_[b], id)) return static_cast<uint32_t>(b);
    for (const auto& [tensor, arg] : previous_[b].local_inputs) {
      if (tensor == id) return static_cast<uint32_t>(b);
    }
  }
  return std::nullopt;
}

uint32_t TraceBuilder::num_ops_fused() const {
  size_t n = current_.ops.size();
  for (const Block& b : previous_) n += b.ops.size();
  return static_cast<uint32_t>(n);
}

std::vector<TensorIr> TraceBuilder::TensorWrites(const Block& block,
                                                 std::vector<TensorId>& buffers) const {
  std::vector<TensorIr> result;
  for (const TensorIr& declared : block.outputs.tensors()) {
    const TensorIr* latest = outputs_.Get(declared.id);
    if (latest == nullptr) continue;
    if (latest->status != TensorStatus::kReadWrite) {
      // Still used after the kernel.
      result.push_back(*latest);
    } else if (buffers_.Contains(declared.id) &&
               std::find(buffers.begin(), buffers.end(), declared.id) == buffers.end()) {
      // Consumed inside the kernel, but by a later block that re-reads it from memory:
      // written once, by the earliest block.
      result.push_back(*latest);
      buffers.push_back(declared.id);
    }
  }
  return result;
}

uint32_t TraceBuilder::EstimateBindings() const {
  std::vector<TensorId> buffers;
  size_t n = 1;
  for (const Block& b : previous_) n += TensorWrites(b, buffers).size();
  n += TensorWrites(current_, buffers).size();
  n += inputs_.size();
  return static_cast<uint32_t>(n);
}

FuseBlock TraceBuilder::Build(const Block& block, RegisteredTensors& outputs,
                              std::vector<TensorId>& buffers) const {
  std::vector<TensorOps> reads = block.reads;
  std::vector<TensorOps> writes = block.writes;
  for (const TensorIr& tensor : TensorWrites(block, buffers)) {
    auto local = FindLocal(block, tensor.id);
    if (!local) continue;
    const FuseArg out{FuseArgKind::kOutput, tensor.dtype, outputs.Insert(tensor), 0};
    OpsFor(writes, tensor.id).push_back(Assign(*local, out));
  }
  // burn keeps reads and writes in maps ordered by tensor id; so does the trace.
  auto by_id = [](const TensorOps& a, const TensorOps& b) { return a.id < b.id; };
  std::stable_sort(reads.begin(), reads.end(), by_id);
  std::stable_sort(writes.begin(), writes.end(), by_id);

  FuseBlock built;
  built.shape_ref = block.shape_ref;
  built.ops = block.ops;
  for (const TensorOps& entry : reads) {
    built.reads.insert(built.reads.end(), entry.ops.begin(), entry.ops.end());
  }
  for (const TensorOps& entry : writes) {
    built.writes.insert(built.writes.end(), entry.ops.begin(), entry.ops.end());
  }
  built.num_locals = block.num_locals;
  return built;
}

FuseTrace TraceBuilder::Finish(const Shape& shape_ref) const {
  FuseTrace trace;
  RegisteredTensors outputs;
  // Re-read buffers come first, so a buffer's read position is its output position.
  // Each with its latest status, which says whether it is still needed after the kernel.
  for (const TensorIr& tensor : buffers_.tensors()) outputs.Insert(*outputs_.Get(tensor.id));
  std::vector<TensorId> buffers;
  for (const Block& block : previous_) trace.blocks.push_back(Build(block, outputs, buffers));
  Block last = current_;
  last.shape_ref = shape_ref;
  trace.blocks.push_back(Build(last, outputs, buffers));

  FuseResources& r = trace.resources;
  r.inputs = inputs_.tensors();
  r.outputs = outputs.tensors();
  r.scalars = scalars_;
  r.views = views_;
  r.dropped = dropped_;
  return trace;
}

}  // namespace ember

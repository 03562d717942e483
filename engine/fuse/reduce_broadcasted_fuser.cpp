#include "engine/fuse/reduce_broadcasted_fuser.h"

#include <span>

#include "engine/fuse/trace_optimization.h"

namespace ember {
namespace {

constexpr FuseSettings kFullReadSettings{.broadcast = true, .output_shape_updates = true};
constexpr FuseSettings kFullWriteSettings{.broadcast = false, .output_shape_updates = false};

// Hands over to the current block every value `ops` read that an earlier block holds.
void HandOver(TraceOpFuser& full, std::span<const OperationIr> ops) {
  for (const OperationIr& op : ops) {
    if (op.kind == OpKind::kDrop) continue;
    for (const TensorIr& input : op.inputs) {
      if (!full.builder().Produces(input.id)) continue;
      if (auto block = full.builder().BlockHolding(input.id)) full.BlockLocalInput(input, *block);
    }
  }
}

}  // namespace

ReduceBroadcastedFuser::ReduceBroadcastedFuser(uint32_t max_bindings)
    : max_bindings_(max_bindings), default_(max_bindings) {
  blocks_.push_back(Block{default_, {}, std::nullopt});
}

void ReduceBroadcastedFuser::Reset() { *this = ReduceBroadcastedFuser(max_bindings_); }

std::unique_ptr<OperationFuser> ReduceBroadcastedFuser::Clone() const {
  return std::make_unique<ReduceBroadcastedFuser>(*this);
}

FuserStatus ReduceBroadcastedFuser::status() const {
  if (state_ == State::kClosed || state_ == State::kAbort) return FuserStatus::kClosed;
  return blocks_.back().fuser.status();
}

bool ReduceBroadcastedFuser::Ready() const {
  bool ready = true;
  if (state_ == State::kStarting || state_ == State::kAbort) ready = false;
  if (state_ == State::kClosed && blocks_.size() == 1) ready = blocks_[0].reduce_index.has_value();
  for (const Block& block : blocks_) {
    // An elementwise block can always run; a reduce block once its fuser holds the reduce
    // (ReduceFuser::properties).
    ready = ready && (!block.reduce_index || block.fuser.reduce().has_value());
  }
  return ready;
}

FuserProperties ReduceBroadcastedFuser::properties() const {
  FuserProperties props{.score = 0, .ready = Ready()};
  for (const Block& block : blocks_) props.score += block.fuser.properties().score;
  return props;
}

ReduceBroadcastedFuser::Analysis ReduceBroadcastedFuser::Analyze(
    const Block& block, const OperationIr& op, std::optional<ReduceFuser>* taken) const {
  // ReduceFuser::CanFuse, on a copy that is kept: FuseNoCheck installs it rather than fusing
  // the op again (the fusers are deterministic, so it is the same state).
  taken->emplace(block.fuser);
  (*taken)->Fuse(op);
  if ((*taken)->len() > block.fuser.len()) return Analysis::kAccept;
  // Only a block holding a reduce can be followed by another.
  if (!block.fuser.reduce()) return Analysis::kRefuse;
  // burn refuses a new block after one that fused a view, as its reference layout could be a
  // view where the reduce needs a contiguous one (the reduce's input is always handed over).
  if (block.fuser.fuser().num_views() > 0) return Analysis::kRefuse;
  if (state_ != State::kInit) return Analysis::kRefuse;
  taken->emplace(default_);
  ReduceFuser& fresh = **taken;
  const size_t before = fresh.len();
  fresh.Fuse(op);
  if (fresh.len() <= before) return Analysis::kRefuse;
  if (fresh.reduce()) {
    const bool same =
        fresh.reduce_input_shape() == init_shape_ && fresh.reduce()->axis == init_axis_;
    return same ? Analysis::kNewBlock : Analysis::kRefuse;
  }
  return fresh.elementwise_shape() == init_shape_ ? Analysis::kNewBlock : Analysis::kRefuse;
}

void ReduceBroadcastedFuser::FuseNoCheck(const OperationIr& op) {
  Block& last = blocks_.back();
  const ReduceFuser* informing = nullptr;
  std::optional<ReduceFuser> taken;
  switch (Analyze(last, op, &taken)) {
    case Analysis::kAccept:
      last.fuser = std::move(*taken);
      last.ops.push_back(op);
      if (last.fuser.reduce() && !last.reduce_index) last.reduce_index = last.ops.size() - 1;
      ++num_ops_;
      informing = &blocks_.back().fuser;
      break;
    case Analysis::kRefuse: state_ = State::kClosed; return;
    case Analysis::kNewBlock: {
      // burn updates the state from the block that was just completed.
      blocks_.push_back(Block{std::move(*taken), {op}, std::nullopt});
      Block& added = blocks_.back();
      if (added.fuser.reduce()) added.reduce_index = 0;
      ++num_ops_;
      informing = &blocks_[blocks_.size() - 2].fuser;
      break;
    }
  }
  if (informing->reduce()) {
    const Shape& shape = informing->reduce_input_shape();
    const int64_t axis = informing->reduce()->axis;
    if (axis != static_cast<int64_t>(shape.size()) - 1) {
      state_ = State::kAbort;  // burn supports the last axis only
    } else {
      state_ = State::kInit;
      init_shape_ = shape;
      init_axis_ = axis;
    }
  }
}

void ReduceBroadcastedFuser::Fuse(const OperationIr& op) {
  if (state_ == State::kClosed || state_ == State::kAbort) return;
  ReduceBroadcastedFuser next = *this;
  next.FuseNoCheck(op);
  // Ready() rather than properties(): the scores, each a whole trace built, are not needed.
  if (next.Ready() && !next.IsConsistent()) {
    state_ = State::kClosed;
    return;
  }
  *this = std::move(next);
}

ReduceBroadcastedFuser::FullTrace ReduceBroadcastedFuser::BuildFullTrace(bool with_trace) const {
  FullTrace out;
  TraceOpFuser full(max_bindings_, kFullReadSettings);
  std::vector<ReduceStage> stages;
  for (size_t b = 0; b < blocks_.size(); ++b) {
    const Block& block = blocks_[b];
    const std::span<const OperationIr> ops(block.ops);
    const size_t split = block.reduce_index.value_or(ops.size());
    if (b > 0) {
      full.NextBlock(kFullReadSettings);
      HandOver(full, ops.subspan(0, split));
    }
    for (const OperationIr& op : ops.subspan(0, split)) full.Fuse(op);
    if (block.reduce_index) {
      const OperationIr& reduce = ops[split];
      // A reduce of a tensor an earlier block reads by index (Note [Indexed inputs]): the
      // single kernel cannot hold it, and IsConsistent says so.
      if (full.builder().IsIndexed(reduce.inputs[0].id)) {
        out.num_ops += block.fuser.len();
        break;
      }
      ReduceStage stage = *block.fuser.reduce();
      stage.from = static_cast<uint32_t>(full.num_previous_blocks());
      stage.input = full.NextBlock(reduce.inputs[0], kFullWriteSettings);
      stage.output = full.OutputUnhandled(reduce.outputs[0]);
      stages.push_back(stage);
      HandOver(full, ops.subspan(split + 1));
      for (const OperationIr& op : ops.subspan(split + 1)) full.Fuse(op);
      out.num_ops += block.fuser.len();
    } else {
      out.num_ops += block.fuser.len();
    }
  }
  out.num_ops_fused = full.len() + stages.size();
  if (!with_trace) return out;
  out.trace = full.Finish();
  out.trace.reduces = std::move(stages);
  return out;
}

bool ReduceBroadcastedFuser::IsConsistent() const {
  const FullTrace full = BuildFullTrace(/*with_trace=*/false);
  return full.num_ops_fused == full.num_ops;
}

std::shared_ptr<Optimization> ReduceBroadcastedFuser::Finish() {
  FullTrace full = BuildFullTrace(/*with_trace=*/true);
  return std::make_shared<TraceOptimization>(std::string(kName), std::move(full.trace),
                                             full.num_ops, properties().score);
}

}  // namespace ember

#include "engine/fuse/trace_op_fuser.h"

#include <numeric>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "engine/core/log.h"
#include "engine/ir/op_group.h"

namespace ember {
namespace {

FuseOp MakeOp(FuseOpKind kind, std::initializer_list<FuseArg> args, const FuseArg& out) {
  FuseOp op;
  op.kind = kind;
  int i = 0;
  for (const FuseArg& a : args) op.args[i++] = a;
  op.out = out;
  return op;
}

// An indexed op (Note [Indexed inputs], engine/trace/fuse_trace.h) along `dim` of `out`'s rank.
FuseOp IndexedOp(FuseOpKind kind, std::vector<FuseArg> indexed, int64_t dim, const FuseArg& out) {
  FuseOp op;
  op.kind = kind;
  op.indexed = std::move(indexed);
  op.dim = dim;
  op.out = out;
  return op;
}

int64_t SumIds(const Shape& shape) { return std::accumulate(shape.begin(), shape.end(), 0LL); }

}  // namespace

TraceOpFuser::TraceOpFuser(uint32_t max_bindings, FuseSettings settings)
    : settings_(settings), max_bindings_(max_bindings) {}

void TraceOpFuser::Reset() { *this = TraceOpFuser(max_bindings_, settings_); }

FuserProperties TraceOpFuser::properties() const {
  return FuserProperties{.score = Score(), .ready = num_ops_ > 0};
}

bool TraceOpFuser::CanFuse(const OperationIr& op) const {
  TraceOpFuser copy = *this;
  return copy.Fuse(op);
}

bool TraceOpFuser::Fuse(const OperationIr& op) {
  if (status_ == FuserStatus::kClosed) return false;
  const size_t before = num_ops_;
  // OutputIsCompatible may grow the reference before the builder refuses the op (the 64-op
  // limit, a view it cannot fuse). burn keeps the grown shape; ember restores it, so that the
  // trace is a function of the ops it fused alone: the plan database re-derives a plan from
  // those (Note [Optimization proof], store/codec/plan_proof.h). No decision depends on it: the
  // fuser is closed from here on, and scores count reads and writes, not positions.
  const Shape shape_before = current_output_shape_;
  const std::string_view reason = TryFuse(op);
  if (!reason.empty()) {
    current_output_shape_ = shape_before;
    status_ = FuserStatus::kClosed;
    LogFusion(LogLevel::kFull, [&] {
      return fmt::format("[fuser] closed on {} ({}); had {} ops, est_bindings={}/{}", OpName(op),
                         reason, before, builder_.EstimateBindings(), max_bindings_);
    });
    return false;
  }
  status_ = FuserStatus::kOpen;
  scoring_.Register(op);
  ++num_ops_;
  return true;
}

FuseArg TraceOpFuser::OutputUnhandled(const TensorIr& tensor) {
  if (current_output_shape_.empty() || SumIds(current_output_shape_) < SumIds(tensor.shape)) {
    current_output_shape_ = tensor.shape;
  }
  return *builder_.Output(tensor);
}

void TraceOpFuser::NextBlock(FuseSettings settings) {
  builder_.NextBlock(current_output_shape_);
  current_output_shape_.clear();
  indexed_block_ = false;
  settings_ = settings;
  status_ = FuserStatus::kOpen;
}

FuseArg TraceOpFuser::NextBlock(const TensorIr& tensor, FuseSettings settings) {
  const auto block = static_cast<uint32_t>(builder_.num_previous_blocks());
  NextBlock(settings);
  return builder_.BlockLocalInput(tensor, block, /*written_by_block=*/true);
}

bool TraceOpFuser::Transaction(const std::function<bool(TraceBuilder&)>& add) {
  if (builder_.num_ops_fused() > kMaxOps) return false;
  if (!added_ops_) {
    // The first op is always taken as is (burn: no binding check for it).
    added_ops_ = true;
    return add(builder_);
  }
  TraceBuilder copy = builder_;
  if (!add(copy)) return false;
  if (copy.EstimateBindings() > max_bindings_) return false;
  builder_ = std::move(copy);
  return true;
}

// burn's TraceOperationFuser::output_is_compatible (burn-cubecl-fusion's engine/fuser.rs): on
// relative ids, where 0 means size 1.
bool TraceOpFuser::OutputIsCompatible(const TensorIr& out) {
  if (current_output_shape_.empty()) {
    current_output_shape_ = out.shape;
    return true;
  }
  const size_t rank = current_output_shape_.size();
  if (rank != out.shape.size()) return false;
  Shape updated = current_output_shape_;
  bool should_update = false;
  for (size_t i = 0; i < rank; ++i) {
    const int64_t curr = current_output_shape_[i];
    const int64_t next = out.shape[i];
    if (curr == next) continue;
    if (!settings_.broadcast) return false;
    if (next == 0) continue;
    if (curr == 0 && settings_.output_shape_updates) {
      should_update = true;
      updated[i] = next;
      continue;
    }
    return false;
  }
  if (should_update) {
    if (updated != out.shape) return false;
    // An indexed op computes at its own output's positions only (Note [Indexed inputs]).
    if (indexed_block_) return false;
    current_output_shape_ = out.shape;
  }
  return true;
}

bool TraceOpFuser::FuseUnary(FuseOpKind kind, const TensorIr& input, const TensorIr& out) {
  if (!OutputIsCompatible(out)) return false;
  return Transaction([&](TraceBuilder& b) {
    auto in = b.Input(input);
    if (!in) return false;
    auto o = b.Output(out);
    if (!o) return false;
    b.AddOp(MakeOp(kind, {*in}, *o));
    return true;
  });
}

bool TraceOpFuser::FuseBinary(FuseOpKind kind, const OperationIr& op) {
  if (!OutputIsCompatible(op.outputs[0])) return false;
  return Transaction([&](TraceBuilder& b) {
    auto lhs = b.Input(op.inputs[0]);
    if (!lhs) return false;
    auto rhs = b.Input(op.inputs[1]);
    if (!rhs) return false;
    auto o = b.Output(op.outputs[0]);
    if (!o) return false;
    b.AddOp(MakeOp(kind, {*lhs, *rhs}, *o));
    return true;
  });
}

bool TraceOpFuser::FuseScalar(FuseOpKind kind, const OperationIr& op) {
  if (!OutputIsCompatible(op.outputs[0])) return false;
  return Transaction([&](TraceBuilder& b) {
    auto lhs = b.Input(op.inputs[0]);
    if (!lhs) return false;
    const FuseArg rhs = b.Scalar(op.scalars[0], op.inputs[0].dtype);
    auto o = b.Output(op.outputs[0]);
    if (!o) return false;
    b.AddOp(MakeOp(kind, {*lhs, rhs}, *o));
    return true;
  });
}

bool CastIsFusable(DType from, DType to) {
  if (from == DType::kBool || to == DType::kBool) return from == to;  // BaseBool::Cast only
  if (IsFloat(from)) return IsFloat(to);                              // not Float::IntoInt
  return true;  // BaseInt::Cast and Int::IntoFloat
}

std::string_view TraceOpFuser::TryFuse(const OperationIr& op) {
  constexpr std::string_view kRejected = "rejected";
  constexpr std::string_view kUnsupported = "unsupported op";
  auto ok = [&](bool fused) { return fused ? std::string_view() : kRejected; };
  auto IndexedFused = [&](bool fused) {
    indexed_block_ = indexed_block_ || fused;
    return ok(fused);
  };
  const auto& in = op.inputs;
  const auto& out = op.outputs;
  // The generic groups are their fused op over their operands (op_list.def, Group column).
  switch (GroupOf(op.kind)) {
    case OpGroup::kUnary: return ok(FuseUnary(FusedKindOf(op.kind), in[0], out[0]));
    case OpGroup::kBinary: return ok(FuseBinary(FusedKindOf(op.kind), op));
    case OpGroup::kScalar: return ok(FuseScalar(FusedKindOf(op.kind), op));
    case OpGroup::kSpecial: break;
  }
  switch (*SpecialOf(op.kind)) {
    case SpecialOp::kDrop:
      if (num_ops_ == 0) return "drop on empty fuser";
      builder_.Drop(in[0]);
      return {};
    case SpecialOp::kCast:
      if (!CastIsFusable(in[0].dtype, out[0].dtype)) return "conversion not fused (burn's rule)";
      return ok(FuseUnary(FusedKindOf(op.kind), in[0], out[0]));
    case SpecialOp::kFull:
    case SpecialOp::kZeros:
    case SpecialOp::kOnes: {
      if (!OutputIsCompatible(out[0])) return kRejected;
      return ok(Transaction([&](TraceBuilder& b) {
        FuseArg value{FuseArgKind::kLiteral, out[0].dtype, op.kind == OpKind::kOnes ? 1u : 0u, 0};
        if (op.kind == OpKind::kFull) value = b.Scalar(op.scalars[0], out[0].dtype);
        auto o = b.Output(out[0]);
        if (!o) return false;
        b.AddOp(MakeOp(FuseOpKind::kAssign, {value}, *o));
        return true;
      }));
    }
    case SpecialOp::kClamp: {
      if (!OutputIsCompatible(out[0])) return kRejected;
      return ok(Transaction([&](TraceBuilder& b) {
        auto x = b.Input(in[0]);
        if (!x) return false;
        const FuseArg lo = b.Scalar(op.scalars[0], out[0].dtype);
        const FuseArg hi = b.Scalar(op.scalars[1], out[0].dtype);
        auto o = b.Output(out[0]);
        if (!o) return false;
        b.AddOp(MakeOp(FuseOpKind::kClamp, {*x, lo, hi}, *o));
        return true;
      }));
    }
    case SpecialOp::kMaskWhere: {
      // inputs {tensor, mask, value}; burn reads mask, tensor, value in that order.
      if (!OutputIsCompatible(out[0])) return kRejected;
      return ok(Transaction([&](TraceBuilder& b) {
        auto cond = b.Input(in[1]);
        if (!cond) return false;
        auto rhs = b.Input(in[0]);
        if (!rhs) return false;
        auto lhs = b.Input(in[2]);
        if (!lhs) return false;
        auto o = b.Output(out[0]);
        if (!o) return false;
        b.AddOp(MakeOp(FuseOpKind::kConditionalAssign, {*cond, *lhs, *rhs}, *o));
        return true;
      }));
    }
    case SpecialOp::kMaskFill: {
      if (!OutputIsCompatible(out[0])) return kRejected;
      return ok(Transaction([&](TraceBuilder& b) {
        auto cond = b.Input(in[1]);
        if (!cond) return false;
        const FuseArg lhs = b.Scalar(op.scalars[0], out[0].dtype);
        auto rhs = b.Input(in[0]);
        if (!rhs) return false;
        auto o = b.Output(out[0]);
        if (!o) return false;
        b.AddOp(MakeOp(FuseOpKind::kConditionalAssign, {*cond, lhs, *rhs}, *o));
        return true;
      }));
    }
    case SpecialOp::kReshape: {
      if (in[0].shape == out[0].shape) return ok(FuseUnary(FuseOpKind::kAssign, in[0], out[0]));
      if (in[0].shape.size() > out[0].shape.size()) return "rank-reducing reshape";
      if (!OutputIsCompatible(out[0])) return kRejected;
      if (!Transaction(
              [&](TraceBuilder& b) { return b.InputReshaped(in[0], out[0]).has_value(); })) {
        return "view of a tensor not read in this block";
      }
      ++num_views_;
      return {};
    }
    case SpecialOp::kSwapDims: {
      if (!OutputIsCompatible(out[0])) return kRejected;
      if (!Transaction([&](TraceBuilder& b) {
            return b.InputSwapDims(in[0], out[0], op.dims[0], op.dims[1]).has_value();
          })) {
        return "view of a tensor not read in this block";
      }
      ++num_views_;
      return {};
    }
    case SpecialOp::kGather:
    case SpecialOp::kSelect: {
      // burn's fuse_base: the output's shape first, then both tensors as indexed inputs. The
      // output must be the block's reference (Note [Indexed inputs]).
      if (!OutputIsCompatible(out[0]) || out[0].shape != current_output_shape_) return kRejected;
      return IndexedFused(Transaction([&](TraceBuilder& b) {
        auto tensor = b.InputIndexed(in[0]);
        if (!tensor) return false;
        auto indices = b.InputIndexed(in[1]);
        if (!indices) return false;
        auto o = b.Output(out[0]);
        if (!o) return false;
        b.AddOp(IndexedOp(FusedKindOf(op.kind), {*tensor, *indices}, op.dims[0], *o));
        return true;
      }));
    }
    case SpecialOp::kCat: {
      if (!OutputIsCompatible(out[0]) || out[0].shape != current_output_shape_) return kRejected;
      return IndexedFused(Transaction([&](TraceBuilder& b) {
        std::vector<FuseArg> inputs;
        for (const TensorIr& t : in) {
          auto arg = b.InputIndexed(t);
          if (!arg) return false;
          inputs.push_back(*arg);
        }
        auto o = b.Output(out[0]);
        if (!o) return false;
        b.AddOp(IndexedOp(FuseOpKind::kCat, std::move(inputs), op.dims[0], *o));
        return true;
      }));
    }
    case SpecialOp::kInit:
    case SpecialOp::kRandom:
    case SpecialOp::kPermute:
    case SpecialOp::kSlice:
    case SpecialOp::kExpand:
    case SpecialOp::kSumDim:
    case SpecialOp::kMeanDim:
    case SpecialOp::kProdDim:
    case SpecialOp::kMaxDim:
    case SpecialOp::kMinDim:
    case SpecialOp::kArgMax:
    case SpecialOp::kArgMin:
    case SpecialOp::kSum:
    case SpecialOp::kMean:
    case SpecialOp::kMatmul: return kUnsupported;
  }
  return kUnsupported;
}

}  // namespace ember

#include "engine/fuse/reduce_fuser.h"

#include <utility>

#include "engine/fuse/trace_optimization.h"

namespace ember {
namespace {

// burn's read settings: no broadcasting inside the reduce input's block.
constexpr FuseSettings kReadSettings{.broadcast = false, .output_shape_updates = true};
constexpr FuseSettings kWriteSettings{.broadcast = false, .output_shape_updates = false};
constexpr FuseSettings kFallbackSettings{};

}  // namespace

std::optional<ReduceStage::Kind> FusedReduceKind(OpKind kind) {
  switch (kind) {
    case OpKind::kSumDim: return ReduceStage::Kind::kSum;
    case OpKind::kMeanDim: return ReduceStage::Kind::kMean;
    case OpKind::kProdDim: return ReduceStage::Kind::kProd;
    case OpKind::kMaxDim: return ReduceStage::Kind::kMax;
    case OpKind::kMinDim: return ReduceStage::Kind::kMin;
    case OpKind::kArgMax: return ReduceStage::Kind::kArgMax;
    case OpKind::kArgMin: return ReduceStage::Kind::kArgMin;
    default: return std::nullopt;
  }
}

ReduceFuser::ReduceFuser(uint32_t max_bindings)
    : max_bindings_(max_bindings),
      fuser_(max_bindings, kReadSettings),
      read_fallback_(max_bindings, kFallbackSettings),
      write_fallback_(max_bindings, kFallbackSettings) {}

void ReduceFuser::Reset() { *this = ReduceFuser(max_bindings_); }

std::unique_ptr<OperationFuser> ReduceFuser::Clone() const {
  return std::make_unique<ReduceFuser>(*this);
}

FuserProperties ReduceFuser::properties() const {
  FuserProperties p = fuser_.properties();
  p.ready = reduce_.has_value();
  return p;
}

bool ReduceFuser::CanFuse(const OperationIr& op) const {
  ReduceFuser copy = *this;
  const size_t before = copy.len();
  copy.Fuse(op);
  return copy.len() > before;
}

void ReduceFuser::Fuse(const OperationIr& op) {
  if (fuser_.status() == FuserStatus::kClosed) return;
  if (!reduce_) {
    if (FusedReduceKind(op.kind)) {
      OnReduce(op);
    } else {
      OnElementwise(op, read_fallback_);
    }
  } else {
    OnElementwise(op, write_fallback_);
  }
}

void ReduceFuser::OnReduce(const OperationIr& op) {
  const TensorIr& input = op.inputs[0];
  // A tensor read by index in this trace is never read at positions (Note [Indexed inputs],
  // engine/trace/fuse_trace.h): not as a reduce's input either.
  if (fuser_.current_output_shape() != input.shape || fuser_.builder().IsIndexed(input.id)) {
    fuser_.Close();
    read_fallback_.Close();
    return;
  }
  const FuseArg from = fuser_.NextBlock(input, kWriteSettings);
  const FuseArg to = fuser_.OutputUnhandled(op.outputs[0]);
  const ReduceStage::Kind kind = *FusedReduceKind(op.kind);
  DType acc = input.dtype;
  const bool widens = kind == ReduceStage::Kind::kSum || kind == ReduceStage::Kind::kMean ||
                      kind == ReduceStage::Kind::kProd;
  if (widens && (acc == DType::kF16 || acc == DType::kBF16)) acc = DType::kF32;
  reduce_ = ReduceStage{
      .kind = kind, .from = 0, .axis = op.dims[0], .input = from, .output = to, .acc = acc};
  reduce_input_shape_ = input.shape;
  read_fallback_.Close();
}

void ReduceFuser::OnElementwise(const OperationIr& op, TraceOpFuser& fallback) {
  // CanFuse on copies that are kept when both take the op (fusing it again would give the
  // same state).
  TraceOpFuser fused = fuser_;
  TraceOpFuser fused_fallback = fallback;
  if (fused.Fuse(op) && fused_fallback.Fuse(op)) {
    fuser_ = std::move(fused);
    fallback = std::move(fused_fallback);
  } else {
    fuser_.Close();
    fallback.Close();
  }
}

std::shared_ptr<Optimization> ReduceFuser::Finish() {
  FuseTrace trace = fuser_.Finish();
  trace.reduces.push_back(*reduce_);
  return std::make_shared<TraceOptimization>(std::string(kName), std::move(trace), len(),
                                             fuser_.Score());
}

}  // namespace ember

#include "engine/fuse/matmul_fuser.h"

#include <utility>

#include "engine/fuse/trace_optimization.h"

namespace ember {
namespace {

constexpr FuseSettings kEpilogueSettings{.broadcast = true, .output_shape_updates = false};
constexpr FuseSettings kFallbackSettings{};

}  // namespace

MatmulFuser::MatmulFuser(uint32_t max_bindings)
    : max_bindings_(max_bindings),
      fuser_(max_bindings, kEpilogueSettings),
      fallback_(max_bindings, kFallbackSettings) {}

void MatmulFuser::Reset() { *this = MatmulFuser(max_bindings_); }

std::unique_ptr<OperationFuser> MatmulFuser::Clone() const {
  return std::make_unique<MatmulFuser>(*this);
}

void MatmulFuser::Fuse(const OperationIr& op) {
  if (fuser_.status() == FuserStatus::kClosed) return;
  if (!matmul_) {
    if (op.kind != OpKind::kMatmul || !IsFloat(op.dtype)) {
      fuser_.Close();
      fallback_.Close();
      return;
    }
    const FuseArg lhs = fuser_.InputUnhandled(op.inputs[0]);
    const FuseArg rhs = fuser_.InputUnhandled(op.inputs[1]);
    const FuseArg out = fuser_.OutputUnhandled(op.outputs[0]);
    matmul_ = MatmulStage{.lhs = lhs.pos, .rhs = rhs.pos, .output = out};
    return;
  }
  // CanFuse on copies that are kept when both take the op (as ReduceFuser::OnElementwise).
  TraceOpFuser fused = fuser_;
  TraceOpFuser fused_fallback = fallback_;
  if (fused.Fuse(op) && fused_fallback.Fuse(op)) {
    fuser_ = std::move(fused);
    fallback_ = std::move(fused_fallback);
  } else {
    fuser_.Close();
    fallback_.Close();
  }
}

std::shared_ptr<Optimization> MatmulFuser::Finish() {
  FuseTrace trace = fuser_.Finish();
  trace.matmul = *matmul_;
  return std::make_shared<TraceOptimization>(std::string(kName), std::move(trace), len(),
                                             fuser_.Score());
}

}  // namespace ember

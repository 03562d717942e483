#include "store/codec/stored_numbers.h"

namespace ember {

bool Known(TensorStatus status) {
  switch (status) {
    case TensorStatus::kNotInit:
    case TensorStatus::kReadOnly:
    case TensorStatus::kReadWrite: return true;
  }
  return false;
}

bool Known(ScalarIr::Kind kind) {
  switch (kind) {
    case ScalarIr::Kind::kFloat:
    case ScalarIr::Kind::kInt:
    case ScalarIr::Kind::kUInt:
    case ScalarIr::Kind::kBool: return true;
  }
  return false;
}

bool Known(Distribution::Kind kind) {
  switch (kind) {
    case Distribution::Kind::kUniform:
    case Distribution::Kind::kNormal: return true;
  }
  return false;
}

bool Known(ExecutionTrigger::Kind kind) {
  switch (kind) {
    case ExecutionTrigger::Kind::kOnOperations:
    case ExecutionTrigger::Kind::kOnSync:
    case ExecutionTrigger::Kind::kAlways: return true;
  }
  return false;
}

bool Known(FuseOpKind kind) {
  // The fused ops are numbered 0, 1, 2, ... in engine/ir/op_list.def (checked at compile time
  // in engine/trace/fuse_trace.cpp), so a number is known exactly when it is below their count.
  return static_cast<int>(kind) < kNumFuseOpKinds;
}

bool Known(FuseArgKind kind) {
  switch (kind) {
    case FuseArgKind::kInput:
    case FuseArgKind::kOutput:
    case FuseArgKind::kLocal:
    case FuseArgKind::kMultiBlockLocal:
    case FuseArgKind::kScalar:
    case FuseArgKind::kLiteral:
    case FuseArgKind::kInputView: return true;
  }
  return false;
}

bool Known(FuseView::Kind kind) {
  switch (kind) {
    case FuseView::Kind::kReshape:
    case FuseView::Kind::kSwapDims: return true;
  }
  return false;
}

bool Known(ReduceStage::Kind kind) {
  switch (kind) {
    case ReduceStage::Kind::kSum:
    case ReduceStage::Kind::kMean:
    case ReduceStage::Kind::kProd:
    case ReduceStage::Kind::kMax:
    case ReduceStage::Kind::kMin:
    case ReduceStage::Kind::kArgMax:
    case ReduceStage::Kind::kArgMin: return true;
  }
  return false;
}

}  // namespace ember

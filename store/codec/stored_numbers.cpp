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
  switch (kind) {
    case FuseOpKind::kAssign:
    case FuseOpKind::kAdd:
    case FuseOpKind::kSub:
    case FuseOpKind::kMul:
    case FuseOpKind::kDiv:
    case FuseOpKind::kRem:
    case FuseOpKind::kPowf:
    case FuseOpKind::kAbs:
    case FuseOpKind::kNeg:
    case FuseOpKind::kExp:
    case FuseOpKind::kLog:
    case FuseOpKind::kLog1p:
    case FuseOpKind::kSqrt:
    case FuseOpKind::kRecip:
    case FuseOpKind::kSin:
    case FuseOpKind::kCos:
    case FuseOpKind::kTanh:
    case FuseOpKind::kErf:
    case FuseOpKind::kEqual:
    case FuseOpKind::kLower:
    case FuseOpKind::kGreater:
    case FuseOpKind::kLowerEqual:
    case FuseOpKind::kGreaterEqual:
    case FuseOpKind::kClamp:
    case FuseOpKind::kConditionalAssign: return true;
  }
  return false;
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

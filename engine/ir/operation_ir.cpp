#include "engine/ir/operation_ir.h"

#include "engine/core/check.h"

namespace ember {

int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t NumElements(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::vector<TensorIr> OperationIr::Nodes() const {
  std::vector<TensorIr> nodes = inputs;
  nodes.insert(nodes.end(), outputs.begin(), outputs.end());
  return nodes;
}

bool OperationIr::References(TensorId id) const {
  for (const TensorIr& t : inputs) {
    if (t.id == id) return true;
  }
  for (const TensorIr& t : outputs) {
    if (t.id == id) return true;
  }
  return false;
}

std::string OpName(const OperationIr& op) { return QualifiedOpName(op.kind, op.dtype); }

namespace {

struct Layout {
  int min_inputs;
  int max_inputs;  // -1: unbounded (Cat)
  int outputs;
  int scalars;
  int dims;  // -1: any count (Permute axes)
  bool ranges;
};

Layout LayoutOf(OpKind kind) {
  switch (kind) {
    case OpKind::kInit: return {0, 0, 1, 0, 0, false};
    case OpKind::kDrop: return {1, 1, 0, 0, 0, false};
    case OpKind::kRandom:
    case OpKind::kZeros:
    case OpKind::kOnes: return {0, 0, 1, 0, 0, false};
    case OpKind::kFull: return {0, 0, 1, 1, 0, false};
    case OpKind::kAdd:
    case OpKind::kSub:
    case OpKind::kMul:
    case OpKind::kDiv:
    case OpKind::kRem:
    case OpKind::kPowf:
    case OpKind::kEqual:
    case OpKind::kLower:
    case OpKind::kGreater:
    case OpKind::kLowerEqual:
    case OpKind::kGreaterEqual:
    case OpKind::kMatmul: return {2, 2, 1, 0, 0, false};
    case OpKind::kAddScalar:
    case OpKind::kSubScalar:
    case OpKind::kMulScalar:
    case OpKind::kDivScalar:
    case OpKind::kRemScalar:
    case OpKind::kPowfScalar:
    case OpKind::kEqualElem:
    case OpKind::kLowerElem:
    case OpKind::kGreaterElem:
    case OpKind::kLowerEqualElem:
    case OpKind::kGreaterEqualElem: return {1, 1, 1, 1, 0, false};
    case OpKind::kAbs:
    case OpKind::kNeg:
    case OpKind::kExp:
    case OpKind::kLog:
    case OpKind::kLog1p:
    case OpKind::kSqrt:
    case OpKind::kRecip:
    case OpKind::kSin:
    case OpKind::kCos:
    case OpKind::kTanh:
    case OpKind::kErf:
    case OpKind::kCast:
    case OpKind::kReshape:
    case OpKind::kExpand:
    case OpKind::kSum:
    case OpKind::kMean: return {1, 1, 1, 0, 0, false};
    case OpKind::kClamp: return {1, 1, 1, 2, 0, false};
    case OpKind::kMaskWhere: return {3, 3, 1, 0, 0, false};
    case OpKind::kMaskFill: return {2, 2, 1, 1, 0, false};
    case OpKind::kSwapDims: return {1, 1, 1, 0, 2, false};
    case OpKind::kPermute: return {1, 1, 1, 0, -1, false};
    case OpKind::kSlice: return {1, 1, 1, 0, 0, true};
    case OpKind::kCat: return {1, -1, 1, 0, 1, false};
    case OpKind::kGather:
    case OpKind::kSelect: return {2, 2, 1, 0, 1, false};
    case OpKind::kSumDim:
    case OpKind::kMeanDim:
    case OpKind::kProdDim:
    case OpKind::kMaxDim:
    case OpKind::kMinDim:
    case OpKind::kArgMax:
    case OpKind::kArgMin: return {1, 1, 1, 0, 1, false};
  }
  return {0, 0, 0, 0, 0, false};
}

}  // namespace

void ValidateOperation(const OperationIr& op) {
  const Status status = CheckOperationLayout(op);
  EMBER_CHECK(status.ok(), "{}", status.message());
}

Status CheckOperationLayout(const OperationIr& op) {
  // Range checks first: OpName indexes tables by kind and dtype.
  if (static_cast<int>(op.kind) >= kNumOpKinds) {
    return Status::Corruption(fmt::format("op kind {} out of range", static_cast<int>(op.kind)));
  }
  if (static_cast<int>(op.dtype) >= kNumDTypes) {
    return Status::Corruption(fmt::format("dtype {} out of range", static_cast<int>(op.dtype)));
  }
  const Layout l = LayoutOf(op.kind);
  const int n_in = static_cast<int>(op.inputs.size());
  if (n_in < l.min_inputs || (l.max_inputs >= 0 && n_in > l.max_inputs)) {
    return Status::Corruption(fmt::format("{}: {} inputs", OpName(op), n_in));
  }
  if (static_cast<int>(op.outputs.size()) != l.outputs) {
    return Status::Corruption(fmt::format("{}: {} outputs", OpName(op), op.outputs.size()));
  }
  if (static_cast<int>(op.scalars.size()) != l.scalars) {
    return Status::Corruption(fmt::format("{}: {} scalars", OpName(op), op.scalars.size()));
  }
  if (l.dims >= 0 && static_cast<int>(op.dims.size()) != l.dims) {
    return Status::Corruption(fmt::format("{}: {} dims", OpName(op), op.dims.size()));
  }
  if (!l.ranges && !op.ranges.empty()) {
    return Status::Corruption(fmt::format("{}: unexpected ranges", OpName(op)));
  }
  return Status::Ok();
}

}  // namespace ember

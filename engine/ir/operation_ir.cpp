#include "engine/ir/operation_ir.h"

#include "engine/core/check.h"
#include "engine/ir/op_group.h"

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

// A Special op's operands, one case each (op_group.h): a new one fails to build here.
Layout SpecialLayout(SpecialOp op) {
  switch (op) {
    case SpecialOp::kInit: return {0, 0, 1, 0, 0, false};
    case SpecialOp::kDrop: return {1, 1, 0, 0, 0, false};
    case SpecialOp::kRandom:
    case SpecialOp::kZeros:
    case SpecialOp::kOnes: return {0, 0, 1, 0, 0, false};
    case SpecialOp::kFull: return {0, 0, 1, 1, 0, false};
    case SpecialOp::kClamp: return {1, 1, 1, 2, 0, false};
    case SpecialOp::kMaskWhere: return {3, 3, 1, 0, 0, false};
    case SpecialOp::kMaskFill: return {2, 2, 1, 1, 0, false};
    case SpecialOp::kCast:
    case SpecialOp::kReshape:
    case SpecialOp::kExpand:
    case SpecialOp::kSum:
    case SpecialOp::kMean: return {1, 1, 1, 0, 0, false};
    case SpecialOp::kSwapDims: return {1, 1, 1, 0, 2, false};
    case SpecialOp::kPermute: return {1, 1, 1, 0, -1, false};
    case SpecialOp::kSlice: return {1, 1, 1, 0, 0, true};
    case SpecialOp::kCat: return {1, -1, 1, 0, 1, false};
    case SpecialOp::kGather:
    case SpecialOp::kSelect: return {2, 2, 1, 0, 1, false};
    case SpecialOp::kSumDim:
    case SpecialOp::kMeanDim:
    case SpecialOp::kProdDim:
    case SpecialOp::kMaxDim:
    case SpecialOp::kMinDim:
    case SpecialOp::kArgMax:
    case SpecialOp::kArgMin: return {1, 1, 1, 0, 1, false};
    case SpecialOp::kMatmul: return {2, 2, 1, 0, 0, false};
  }
  return {0, 0, 0, 0, 0, false};
}

Layout LayoutOf(OpKind kind) {
  switch (GroupOf(kind)) {
    case OpGroup::kUnary: return {1, 1, 1, 0, 0, false};
    case OpGroup::kBinary: return {2, 2, 1, 0, 0, false};
    case OpGroup::kScalar: return {1, 1, 1, 1, 0, false};
    case OpGroup::kSpecial: return SpecialLayout(*SpecialOf(kind));
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

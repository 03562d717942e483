#include "engine/trace/fuse_trace.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ember {

std::string_view FuseOpKindName(FuseOpKind kind) {
  switch (kind) {
    case FuseOpKind::kAssign: return "Assign";
    case FuseOpKind::kAdd: return "Add";
    case FuseOpKind::kSub: return "Sub";
    case FuseOpKind::kMul: return "Mul";
    case FuseOpKind::kDiv: return "Div";
    case FuseOpKind::kRem: return "Rem";
    case FuseOpKind::kPowf: return "Powf";
    case FuseOpKind::kAbs: return "Abs";
    case FuseOpKind::kNeg: return "Neg";
    case FuseOpKind::kExp: return "Exp";
    case FuseOpKind::kLog: return "Log";
    case FuseOpKind::kLog1p: return "Log1p";
    case FuseOpKind::kSqrt: return "Sqrt";
    case FuseOpKind::kRecip: return "Recip";
    case FuseOpKind::kSin: return "Sin";
    case FuseOpKind::kCos: return "Cos";
    case FuseOpKind::kTanh: return "Tanh";
    case FuseOpKind::kErf: return "Erf";
    case FuseOpKind::kEqual: return "Equal";
    case FuseOpKind::kLower: return "Lower";
    case FuseOpKind::kGreater: return "Greater";
    case FuseOpKind::kLowerEqual: return "LowerEqual";
    case FuseOpKind::kGreaterEqual: return "GreaterEqual";
    case FuseOpKind::kClamp: return "Clamp";
    case FuseOpKind::kConditionalAssign: return "ConditionalAssign";
  }
  return "?";
}

int FuseOpArity(FuseOpKind kind) {
  switch (kind) {
    case FuseOpKind::kAdd:
    case FuseOpKind::kSub:
    case FuseOpKind::kMul:
    case FuseOpKind::kDiv:
    case FuseOpKind::kRem:
    case FuseOpKind::kPowf:
    case FuseOpKind::kEqual:
    case FuseOpKind::kLower:
    case FuseOpKind::kGreater:
    case FuseOpKind::kLowerEqual:
    case FuseOpKind::kGreaterEqual: return 2;
    case FuseOpKind::kClamp:
    case FuseOpKind::kConditionalAssign: return 3;
    case FuseOpKind::kAssign:
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
    case FuseOpKind::kErf: return 1;
  }
  return 1;
}

// Unused operand slots do not take part in equality (builders may leave anything there).
bool FuseOp::operator==(const FuseOp& o) const {
  if (kind != o.kind || !(out == o.out)) return false;
  const int n = FuseOpArity(kind);
  for (int i = 0; i < n; ++i) {
    if (!(args[i] == o.args[i])) return false;
  }
  return true;
}

std::optional<size_t> MaxRelativeShapeId(const FuseTrace& trace) {
  std::optional<size_t> best;
  auto see = [&](const Shape& shape) {
    for (int64_t id : shape) {
      const auto v = static_cast<size_t>(id);
      if (!best || v > *best) best = v;
    }
  };
  for (const FuseBlock& b : trace.blocks) see(b.shape_ref);
  for (const TensorIr& t : trace.resources.inputs) see(t.shape);
  for (const TensorIr& t : trace.resources.outputs) see(t.shape);
  for (const FuseView& v : trace.resources.views) see(v.shape);
  return best;
}

namespace {

std::string FormatArg(const FuseArg& a) {
  const std::string_view ty = DTypeName(a.dtype);
  switch (a.kind) {
    case FuseArgKind::kInput: return fmt::format("in{}:{}", a.pos, ty);
    case FuseArgKind::kOutput: return fmt::format("out{}:{}", a.pos, ty);
    case FuseArgKind::kLocal: return fmt::format("l{}:{}", a.pos, ty);
    case FuseArgKind::kMultiBlockLocal: return fmt::format("b{}.v{}:{}", a.block, a.pos, ty);
    case FuseArgKind::kScalar: return fmt::format("s{}:{}", a.pos, ty);
    case FuseArgKind::kLiteral: return fmt::format("{}:{}", a.pos, ty);
    case FuseArgKind::kInputView: return fmt::format("view{}:{}", a.pos, ty);
  }
  return "?";
}

std::string FormatOp(const FuseOp& op) {
  std::string s = fmt::format("{} = {}(", FormatArg(op.out), FuseOpKindName(op.kind));
  for (int i = 0; i < FuseOpArity(op.kind); ++i) {
    if (i > 0) s += ", ";
    s += FormatArg(op.args[i]);
  }
  return s + ")";
}

std::string FormatShape(const Shape& shape) {
  return fmt::format("[{}]", fmt::join(shape, ","));
}

std::string_view ReduceName(ReduceStage::Kind kind) {
  switch (kind) {
    case ReduceStage::Kind::kSum: return "Sum";
    case ReduceStage::Kind::kMean: return "Mean";
    case ReduceStage::Kind::kProd: return "Prod";
    case ReduceStage::Kind::kMax: return "Max";
    case ReduceStage::Kind::kMin: return "Min";
    case ReduceStage::Kind::kArgMax: return "ArgMax";
    case ReduceStage::Kind::kArgMin: return "ArgMin";
  }
  return "?";
}

}  // namespace

std::string FormatFuseTrace(const FuseTrace& trace) {
  const FuseResources& r = trace.resources;
  std::string s;
  for (size_t i = 0; i < r.inputs.size(); ++i) {
    s += fmt::format("input {}: t{} {}{}\n", i, r.inputs[i].id, FormatShape(r.inputs[i].shape),
                     r.inputs[i].status == TensorStatus::kReadWrite ? " (last use)" : "");
  }
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    s += fmt::format("output {}: t{} {}\n", i, r.outputs[i].id, FormatShape(r.outputs[i].shape));
  }
  for (size_t i = 0; i < r.scalars.size(); ++i) {
    s += fmt::format("scalar {}: placeholder {} as {}\n", i, r.scalars[i].placeholder,
                     DTypeName(r.scalars[i].dtype));
  }
  for (size_t i = 0; i < r.views.size(); ++i) {
    const FuseView& v = r.views[i];
    s += v.kind == FuseView::Kind::kReshape
             ? fmt::format("view {}: reshape of input {} to {}\n", i, v.input, FormatShape(v.shape))
             : fmt::format("view {}: swap_dims({}, {}) of input {}\n", i, v.dim1, v.dim2, v.input);
  }
  if (trace.matmul) {
    s += fmt::format("matmul: in{} x in{} -> {}\n", trace.matmul->lhs, trace.matmul->rhs,
                     FormatArg(trace.matmul->output));
  }
  for (size_t b = 0; b < trace.blocks.size(); ++b) {
    const FuseBlock& block = trace.blocks[b];
    s += fmt::format("block {} over {}:\n", b, FormatShape(block.shape_ref));
    for (const FuseOp& op : block.reads) s += "  read  " + FormatOp(op) + "\n";
    for (const FuseOp& op : block.ops) s += "  op    " + FormatOp(op) + "\n";
    for (const FuseOp& op : block.writes) s += "  write " + FormatOp(op) + "\n";
    for (const ReduceStage& red : trace.reduces) {
      if (red.from != b) continue;
      s += fmt::format("reduce {} axis {} of {} -> {} (acc {})\n", ReduceName(red.kind), red.axis,
                       FormatArg(red.input), FormatArg(red.output), DTypeName(red.acc));
    }
  }
  return s;
}

}  // namespace ember

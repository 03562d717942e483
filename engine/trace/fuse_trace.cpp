#include "engine/trace/fuse_trace.h"

#include <algorithm>
#include <array>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/core/check.h"
#include "engine/ir/op_group.h"

namespace ember {
namespace {

// The tables below are indexed by a fused op's number, so each number must be its position in
// op_list.def.
constexpr bool NumbersArePositions() {
  int position = 0;
#define EMBER_FUSE_OP(name, number, form) \
  if ((number) != position++) return false;
#include "engine/ir/op_list.def"
  return true;
}
static_assert(NumbersArePositions(),
              "op_list.def: a fused op's number must be its position in the list (append only)");

constexpr std::array<std::string_view, kNumFuseOpKinds> kNames = {
#define EMBER_FUSE_OP(name, number, form) #name,
#include "engine/ir/op_list.def"
};

constexpr std::array<FuseOpForm, kNumFuseOpKinds> kForms = {
#define EMBER_FUSE_OP(name, number, form) FuseOpForm::k##form,
#include "engine/ir/op_list.def"
};

// op_list.def's Fused column by op number: a FuseOpKind's name, or None.
constexpr std::array<std::optional<FuseOpKind>, kNumOpKinds> FusedColumn() {
  using enum FuseOpKind;
  constexpr std::nullopt_t kNone = std::nullopt;
  return {
#define EMBER_OP(name, number, cls, fused, group) k##fused,
#include "engine/ir/op_list.def"
  };
}
constexpr std::array<std::optional<FuseOpKind>, kNumOpKinds> kFused = FusedColumn();

// A fused op no op becomes would be one that nothing produces: a forgotten Fused column.
constexpr bool EveryFusedOpIsSomeOpsFused() {
  for (int f = 0; f < kNumFuseOpKinds; ++f) {
    bool found = false;
    for (const std::optional<FuseOpKind>& fused : kFused) {
      found = found || fused == static_cast<FuseOpKind>(f);
    }
    if (!found) return false;
  }
  return true;
}
static_assert(EveryFusedOpIsSomeOpsFused(),
              "op_list.def: every EMBER_FUSE_OP must be the Fused column of some EMBER_OP");

// An op of the Unary, Binary or Scalar group is its Fused op over its operands (op_group.h):
// the fusers and the backends' unfused paths take it by that alone.
constexpr bool GenericGroupsHaveFusedOps() {
  for (size_t k = 0; k < kOpGroups.size(); ++k) {
    if (kOpGroups[k] != OpGroup::kSpecial && !kFused[k].has_value()) return false;
  }
  return true;
}
static_assert(GenericGroupsHaveFusedOps(),
              "op_list.def: an op of the Unary, Binary or Scalar group needs a Fused op");

bool InRange(FuseOpKind kind) { return static_cast<int>(kind) < kNumFuseOpKinds; }

}  // namespace

FuseOpForm FormOf(FuseOpKind kind) {
  EMBER_CHECK(InRange(kind), "fused op kind {} out of range", static_cast<int>(kind));
  return kForms[static_cast<size_t>(kind)];
}

std::string_view FuseOpKindName(FuseOpKind kind) {
  return InRange(kind) ? kNames[static_cast<size_t>(kind)] : "?";
}

int FuseOpArity(FuseOpKind kind) {
  if (!InRange(kind)) return 1;
  switch (FormOf(kind)) {
    case FuseOpForm::kUnary: return 1;
    case FuseOpForm::kBinary:
    case FuseOpForm::kComparison: return 2;
    case FuseOpForm::kTernary: return 3;
    case FuseOpForm::kIndexed: return 0;
  }
  return 1;
}

bool HasFusedKind(OpKind kind) {
  return static_cast<int>(kind) < kNumOpKinds && kFused[static_cast<size_t>(kind)].has_value();
}

FuseOpKind FusedKindOf(OpKind kind) {
  EMBER_CHECK(HasFusedKind(kind), "op kind {} has no fused op (op_list.def, Fused column)",
              static_cast<int>(kind));
  return *kFused[static_cast<size_t>(kind)];
}

// Unused operand slots do not take part in equality (builders may leave anything there).
bool FuseOp::operator==(const FuseOp& o) const {
  if (kind != o.kind || !(out == o.out)) return false;
  const int n = FuseOpArity(kind);
  for (int i = 0; i < n; ++i) {
    if (!(args[i] == o.args[i])) return false;
  }
  // Empty and 0 on every op but the indexed ones.
  return dim == o.dim && indexed == o.indexed;
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
  for (size_t i = 0; i < op.indexed.size(); ++i) {
    if (i > 0) s += ", ";
    s += FormatArg(op.indexed[i]);
  }
  if (!op.indexed.empty()) s += fmt::format("; dim {}", op.dim);
  return s + ")";
}

std::string FormatShape(const Shape& shape) { return fmt::format("[{}]", fmt::join(shape, ",")); }

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

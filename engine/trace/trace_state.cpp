#include "engine/trace/trace_state.h"

#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace ember {
namespace {

Status Bad(std::string message) { return Status::Corruption("fused trace: " + std::move(message)); }

// Whether `arg`'s position names something that exists, for an argument of block `b`.
Status CheckArg(const FuseTrace& trace, size_t b, const FuseArg& arg) {
  const FuseResources& r = trace.resources;
  auto in_range = [&](size_t size, std::string_view what) {
    if (arg.pos < size) return Status::Ok();
    return Bad(fmt::format("block {} names {} {} of {}", b, what, arg.pos, size));
  };
  switch (arg.kind) {
    case FuseArgKind::kInput: return in_range(r.inputs.size(), "input");
    case FuseArgKind::kOutput: return in_range(r.outputs.size(), "output");
    case FuseArgKind::kLocal: return in_range(trace.blocks[b].num_locals, "local");
    case FuseArgKind::kMultiBlockLocal:
      if (arg.block < trace.blocks.size()) return Status::Ok();
      return Bad(fmt::format("block {} names a value of block {} of {}", b, arg.block,
                             trace.blocks.size()));
    case FuseArgKind::kScalar: return in_range(r.scalars.size(), "scalar");
    case FuseArgKind::kLiteral: return in_range(2, "literal");
    case FuseArgKind::kInputView: return in_range(r.views.size(), "view");
  }
  return Bad("unknown argument kind");
}

bool Writable(FuseArgKind kind) {
  return kind == FuseArgKind::kLocal || kind == FuseArgKind::kOutput ||
         kind == FuseArgKind::kMultiBlockLocal;
}

// Note [Indexed inputs] (fuse_trace.h): an indexed op sits among a block's ops, reads only
// global inputs (two for Gather and Select, one or more for Cat) that nothing reads otherwise,
// along a dim of the block, and writes a local.
Status CheckIndexed(const FuseTrace& trace, size_t b, const FuseOp& op, bool among_ops) {
  const bool indexed_form = FormOf(op.kind) == FuseOpForm::kIndexed;
  if (!indexed_form) {
    if (op.indexed.empty() && op.dim == 0) return Status::Ok();
    return Bad(fmt::format("block {}: {} has indexed operands", b, FuseOpKindName(op.kind)));
  }
  if (!among_ops)
    return Bad(fmt::format("block {}: {} outside the ops", b, FuseOpKindName(op.kind)));
  const size_t want = op.kind == FuseOpKind::kCat ? op.indexed.size() : 2;
  if (op.indexed.empty() || op.indexed.size() != want) {
    return Bad(fmt::format("block {}: {} with {} operands", b, FuseOpKindName(op.kind),
                           op.indexed.size()));
  }
  const size_t rank = trace.blocks[b].shape_ref.size();
  if (op.dim < 0 || static_cast<size_t>(op.dim) >= rank) {
    return Bad(fmt::format("block {}: {} along dim {} of rank {}", b, FuseOpKindName(op.kind),
                           op.dim, rank));
  }
  for (const FuseArg& arg : op.indexed) {
    if (arg.kind != FuseArgKind::kInput) {
      return Bad(fmt::format("block {}: {} indexes a non-input", b, FuseOpKindName(op.kind)));
    }
    if (Status s = CheckArg(trace, b, arg); !s.ok()) return s;
  }
  if (op.out.kind != FuseArgKind::kLocal) {
    return Bad(fmt::format("block {}: {} writes a non-local", b, FuseOpKindName(op.kind)));
  }
  return Status::Ok();
}

// No indexed input is read at positions, written in place or viewed anywhere in the trace.
Status CheckIndexedInputsAreOnlyIndexed(const FuseTrace& trace) {
  std::vector<bool> indexed(trace.resources.inputs.size(), false);
  for (const FuseBlock& block : trace.blocks) {
    ForEachIndexed(block, [&](const FuseOp&, const FuseArg& arg) { indexed[arg.pos] = true; });
  }
  for (size_t b = 0; b < trace.blocks.size(); ++b) {
    bool normal = false;
    ForEachArg(trace.blocks[b], [&](const FuseArg& arg, bool) {
      normal = normal ||
               (arg.kind == FuseArgKind::kInput && arg.pos < indexed.size() && indexed[arg.pos]);
    });
    if (normal) return Bad(fmt::format("block {} reads an indexed input normally", b));
  }
  for (const FuseView& view : trace.resources.views) {
    if (view.input < indexed.size() && indexed[view.input])
      return Bad("a view of an indexed input");
  }
  if (trace.matmul && ((trace.matmul->lhs < indexed.size() && indexed[trace.matmul->lhs]) ||
                       (trace.matmul->rhs < indexed.size() && indexed[trace.matmul->rhs]))) {
    return Bad("a matmul of an indexed input");
  }
  return Status::Ok();
}

}  // namespace

Status CheckFuseTrace(const FuseTrace& trace) {
  const FuseResources& r = trace.resources;
  for (size_t b = 0; b < trace.blocks.size(); ++b) {
    const FuseBlock& block = trace.blocks[b];
    for (const auto* ops : {&block.reads, &block.ops, &block.writes}) {
      for (const FuseOp& op : *ops) {
        for (int k = 0; k < FuseOpArity(op.kind); ++k) {
          if (Status s = CheckArg(trace, b, op.args[k]); !s.ok()) return s;
        }
        if (Status s = CheckIndexed(trace, b, op, ops == &block.ops); !s.ok()) return s;
        if (Status s = CheckArg(trace, b, op.out); !s.ok()) return s;
        if (!Writable(op.out.kind)) {
          return Bad(
              fmt::format("block {} writes to argument kind {}", b, static_cast<int>(op.out.kind)));
        }
      }
    }
  }
  for (size_t v = 0; v < r.views.size(); ++v) {
    if (r.views[v].input >= r.inputs.size()) {
      return Bad(fmt::format("view {} of input {} of {}", v, r.views[v].input, r.inputs.size()));
    }
  }
  if (Status s = CheckIndexedInputsAreOnlyIndexed(trace); !s.ok()) return s;
  for (size_t i = 0; i < trace.reduces.size(); ++i) {
    const ReduceStage& stage = trace.reduces[i];
    if (static_cast<size_t>(stage.from) + 1 >= trace.blocks.size()) {
      return Bad(fmt::format("reduce from block {} of {}", stage.from, trace.blocks.size()));
    }
    if (i > 0 && stage.from <= trace.reduces[i - 1].from) {
      return Bad("reduce stages not ordered by block");
    }
    const size_t rank = trace.blocks[stage.from].shape_ref.size();
    if (stage.axis < 0 || static_cast<size_t>(stage.axis) >= rank) {
      return Bad(fmt::format("reduce axis {} of rank {}", stage.axis, rank));
    }
    if (stage.input.kind != FuseArgKind::kMultiBlockLocal || stage.input.block != stage.from ||
        stage.output.kind != FuseArgKind::kLocal ||
        stage.output.pos >= trace.blocks[stage.from + 1].num_locals) {
      return Bad(fmt::format("reduce from block {} has unusable arguments", stage.from));
    }
  }
  if (trace.matmul) {
    const MatmulStage& m = *trace.matmul;
    if (trace.blocks.empty() || m.lhs >= r.inputs.size() || m.rhs >= r.inputs.size() ||
        m.output.kind != FuseArgKind::kLocal || m.output.pos >= trace.blocks[0].num_locals) {
      return Bad("matmul stage has unusable arguments");
    }
  }
  return Status::Ok();
}

Status CheckTraceState(const TraceState& state) {
  if (state.len < 1) return Status::Corruption("trace state: an optimization covering no op");
  return CheckFuseTrace(state.trace);
}

}  // namespace ember

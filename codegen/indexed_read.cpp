#include "codegen/indexed_read.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <ember/error.h>

#include "codegen/cuda_expr.h"
#include "engine/trace/indexed_launch.h"

namespace ember::codegen {
namespace {

bool IsIndexed(const FuseOp& op) { return FormOf(op.kind) == FuseOpForm::kIndexed; }

}  // namespace

void CheckIndexedOps(const TraceLaunch& launch) {
  const FuseTrace& trace = *launch.trace;
  for (uint32_t b = 0; b < trace.blocks.size(); ++b) {
    const FuseBlock& block = trace.blocks[b];
    for (const FuseOp& op : block.ops) {
      if (!IsIndexed(op)) continue;
      auto input = [&](uint32_t pos) -> std::optional<IndexedOperand> {
        if (pos >= launch.inputs.size()) return std::nullopt;
        return IndexedOperand{.dtype = launch.inputs[pos].dtype,
                              .shape = &launch.inputs[pos].shape};
      };
      if (auto problem = IndexedLaunchProblem(op, launch.block_shapes[b], input)) {
        throw Error(fmt::format("fused {} of block {} over {}: {}", FuseOpKindName(op.kind), b,
                                launch.block_shapes[b], *problem));
      }
    }
    for (const std::vector<FuseOp>* ops : {&block.reads, &block.writes}) {
      for (const FuseOp& op : *ops) {
        if (IsIndexed(op)) throw Error(fmt::format("block {} reads or writes by index", b));
      }
    }
    // Note [Indexed inputs]: never also read at the block's positions (nor written).
    const std::vector<int> indexed = IndexedTensors(block);
    ForEachArg(block, [&](const FuseArg& arg, bool) {
      if (arg.kind == FuseArgKind::kInput &&
          std::find(indexed.begin(), indexed.end(), static_cast<int>(arg.pos)) != indexed.end()) {
        throw Error(
            fmt::format("block {} reads input {} both by index and by position", b, arg.pos));
      }
    });
  }
}

std::vector<int> IndexedTensors(const FuseBlock& block) {
  std::vector<int> tensors;
  ForEachIndexed(block, [&](const FuseOp&, const FuseArg& arg) {
    const auto t = static_cast<int>(arg.pos);  // an input: kernel tensors start with them
    if (std::find(tensors.begin(), tensors.end(), t) == tensors.end()) tensors.push_back(t);
  });
  return tensors;
}

std::string IndexedLane(const FuseOp& op, int rank, const std::vector<DType>& dtypes,
                        const std::string& target,
                        const std::function<std::string(const Slot&)>& slot) {
  const auto dim = static_cast<int>(op.dim);
  // Lane l sits l positions along the last dim from lane 0 (the same row: indexed_read.h).
  auto coord = [&](int d) {
    return d == rank - 1 ? fmt::format("(c{} + (idx)l)", d) : fmt::format("c{}", d);
  };
  auto own = [&](Slot::Kind kind, int t, int d) {
    return "(idx)" + slot({.kind = kind, .tensor = t, .dim = d});
  };
  auto stride = [&](int t, int d) { return own(Slot::Kind::kOwnStride, t, d); };
  auto size = [&](int t, int d) { return own(Slot::Kind::kOwnDim, t, d); };
  const int data = static_cast<int>(op.indexed[0].pos);
  const DType dtype = dtypes.at(data);
  const std::string zero = FloatDomain(dtype) ? "0.0f" : "(i64)0";
  // Element `at` along dim of input t at this lane's other coordinates.
  auto load = [&](int t, const std::string& at) {
    std::string offset = fmt::format("(idx){} * {}", at, stride(t, dim));
    for (int d = 0; d < rank; ++d) {
      if (d != dim) offset += fmt::format(" + {} * {}", coord(d), stride(t, d));
    }
    return LoadExpr(dtypes.at(t), fmt::format("t{}[{}]", t, offset));
  };
  if (op.kind == FuseOpKind::kCat) {
    // Walks the inputs along dim: `a` becomes the position inside the input it falls in.
    std::string s = fmt::format("{{ idx a = {}; ", coord(dim));
    for (size_t k = 0; k < op.indexed.size(); ++k) {
      const int t = static_cast<int>(op.indexed[k].pos);
      const std::string test =
          k == 0 ? fmt::format("a < {}", size(t, dim))
                 : fmt::format("(a -= {}) < {}", size(static_cast<int>(op.indexed[k - 1].pos), dim),
                               size(t, dim));
      s += fmt::format("{}if ({}) {} = {}; ", k == 0 ? "" : "else ", test, target, load(t, "a"));
    }
    return s + fmt::format("else {} = {}; }}", target, zero);
  }
  const int indices = static_cast<int>(op.indexed[1].pos);
  std::string at;
  if (op.kind == FuseOpKind::kSelect) {
    at = fmt::format("{} * {}", coord(dim), stride(indices, 0));
  } else {
    for (int d = 0; d < rank; ++d) {
      at += fmt::format("{}{} * {}", d == 0 ? "" : " + ", coord(d), stride(indices, d));
    }
  }
  // In range along dim, and along the other dims as the CPU's IndexAlong checks them (Gather's
  // indices may be smaller than the tensor there, never larger).
  std::string in_range = fmt::format("k >= 0 && k < (i64){}", size(data, dim));
  for (int d = 0; d < rank; ++d) {
    if (d != dim) in_range += fmt::format(" && {} < {}", coord(d), size(data, d));
  }
  return fmt::format("{{ const i64 k = (i64){}; {} = {} ? {} : {}; }}",
                     LoadExpr(dtypes.at(indices), fmt::format("t{}[{}]", indices, at)), target,
                     in_range, load(data, "k"), zero);
}

}  // namespace ember::codegen

// KernelContext's reduce accumulators: their declarations, starts and finishes in the
// generated source (block_emitter.h).
#include <fmt/format.h>

#include "codegen/block_emitter.h"
#include "codegen/cuda_expr.h"
#include "codegen/reduce_accumulator.h"

namespace ember::codegen {

std::optional<size_t> KernelContext::StageFrom(uint32_t b) const {
  for (size_t k = 0; k < trace_.reduces.size(); ++k) {
    if (trace_.reduces[k].from == b) return k;
  }
  return std::nullopt;
}

std::string KernelContext::AccumulatorType(size_t stage) const {
  const ReduceStage& s = trace_.reduces.at(stage);
  const bool f = FloatDomain(s.input.dtype);
  if (IsExtreme(s.kind)) return f ? "ember_ext<float, idx>" : "ember_ext<i64, idx>";
  return f ? "double" : "i64";
}

std::string KernelContext::StartAccumulator(size_t stage, int indent) {
  const ReduceStage& s = trace_.reduces.at(stage);
  return fmt::format("{:{}}{} acc{};\n{:{}}ember_start<{}>(acc{});\n", "", indent,
                     AccumulatorType(stage), stage, "", indent, ReduceOpNumber(s.kind), stage);
}

std::string KernelContext::FinishAccumulator(size_t stage, bool row, int indent) {
  const ReduceStage& s = trace_.reduces.at(stage);
  const bool f = FloatDomain(s.input.dtype);
  const int op = ReduceOpNumber(s.kind);
  const std::string pad(indent, ' ');
  std::string out;
  if (row) {
    out += fmt::format("{}acc{} = ember_group_reduce<{}, {}>(acc{}, ({}*)ember_red);\n", pad, stage,
                       op, spec_.group, stage, AccumulatorType(stage));
  }
  // The finished value in its domain, then stored as the stage's output dtype and reloaded.
  std::string value;
  DType held;
  if (IsArg(s.kind)) {
    value = fmt::format("ember_finish_index(acc{})", stage);
    held = DType::kI64;
  } else if (f) {
    value = fmt::format("ember_finish_f<{}>(acc{}, (i64)L)", op, stage);
    held = DType::kF32;
  } else {
    value = fmt::format("ember_finish_i<{}>(acc{}, (i64)L)", op, stage);
    held = DType::kI64;
  }
  const DType to = s.output.dtype;
  const bool exact =
      to == held || (FloatDomain(to) == FloatDomain(held) && to == DomainDType(FloatDomain(held)));
  const std::string converted = exact ? value : LoadExpr(to, StoreExpr(to, value));
  out += fmt::format("{}const {} rs{} = {};\n", pad, DomainType(FloatDomain(to)), stage, converted);
  return out;
}

}  // namespace ember::codegen

#include "store/admin/bundle_kernel_check.h"

#include <fmt/format.h>

#include <exception>

#include "codegen/kernel_signature.h"
#include "codegen/kernel_source.h"
#include "engine/fuse/trace_optimization.h"
#include "engine/runtime/kernel_key.h"
#include "store/repository/column_encoding.h"

namespace ember {
namespace {

// Where GenerateKernel writes the signature (codegen/kernel_source.cpp): on its own comment line.
constexpr std::string_view kSignatureLine = "\n// mode=";

void FusedTraces(const ExecutionStrategy& strategy, std::vector<const FuseTrace*>* out) {
  switch (strategy.kind) {
    case ExecutionStrategy::Kind::kOptimization:
      if (const auto* traced =
              dynamic_cast<const TraceOptimization*>(strategy.optimization.get())) {
        out->push_back(&traced->trace());
      }
      return;
    case ExecutionStrategy::Kind::kOperations: return;
    case ExecutionStrategy::Kind::kComposed:
      for (const ExecutionStrategy& child : strategy.children) FusedTraces(child, out);
      return;
  }
}

}  // namespace

std::optional<std::string> KernelKeyProblem(const KernelRecord& kernel) {
  const KernelBinaryKey key =
      MakeKernelKey({.name = kernel.text.name, .source = kernel.text.source}, kernel.text.options,
                    kernel.key.arch, kernel.key.compiler_version);
  // The row key of Note [Stored kernels] (store/persistent_kernels.h): the hash's 8 bytes.
  if (Hash64Bytes(key.hash) == kernel.key.source_hash) return std::nullopt;
  return fmt::format(
      "its key is not the hash of its name, source, options, arch and compiler (0x{:016x})",
      key.hash);
}

bool PlanGeneratesKernel(const ExecutionPlan& plan, const KernelText& kernel) {
  const size_t at = kernel.source.find(kSignatureLine);
  if (at == std::string::npos) return false;
  const size_t begin = at + 4;  // past "\n// "
  const size_t end = kernel.source.find('\n', begin);
  if (end == std::string::npos) return false;
  const std::string line = kernel.source.substr(begin, end - begin);
  std::vector<const FuseTrace*> traces;
  FusedTraces(plan.optimization.strategy, &traces);
  for (const FuseTrace* trace : traces) {
    // Checked against the trace's shape, so GenerateKernel only ever sees a spec of its shape.
    const std::optional<codegen::KernelSpec> spec =
        codegen::ParseKernelSignature(line, trace->blocks.size());
    if (!spec.has_value()) continue;
    try {
      const codegen::GeneratedKernel generated = codegen::GenerateKernel(*trace, *spec);
      if (generated.name == kernel.name && generated.source == kernel.source) return true;
    } catch (const std::exception&) {
      // A signature this trace cannot have: not its kernel.
    }
  }
  return false;
}

std::vector<size_t> PlansOfKernel(const KernelRecord& kernel,
                                  std::span<const ExecutionPlan* const> plans, std::string* why) {
  if (kernel.text.source.empty()) {
    *why = "it carries no source (the engine compiles its plans' kernels again)";
    return {};
  }
  if (std::optional<std::string> problem = KernelKeyProblem(kernel)) {
    *why = *problem;
    return {};
  }
  std::vector<size_t> generating;
  for (size_t i = 0; i < plans.size(); ++i) {
    if (PlanGeneratesKernel(*plans[i], kernel.text)) generating.push_back(i);
  }
  if (generating.empty()) {
    *why =
        "its source is not what a fused trace of the plans it is linked to generates (the engine "
        "compiles their kernels again)";
  }
  return generating;
}

}  // namespace ember

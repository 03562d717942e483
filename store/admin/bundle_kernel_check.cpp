#include "store/admin/bundle_kernel_check.h"

#include <fmt/format.h>

#include <exception>
#include <sstream>

#include "codegen/kernel_source.h"
#include "engine/fuse/trace_optimization.h"
#include "engine/runtime/kernel_key.h"
#include "store/sqlite/column_encoding.h"

namespace ember {
namespace {

// Where GenerateKernel writes the signature (codegen/kernel_source.cpp): on its own comment line.
constexpr std::string_view kSignatureLine = "\n// mode=";

// "key=value" as an int within [low, high]; false otherwise.
bool IntField(const std::string& token, std::string_view key, int low, int high, int* out) {
  if (!token.starts_with(key) || token.size() <= key.size() || token[key.size()] != '=') {
    return false;
  }
  try {
    size_t used = 0;
    const std::string value = token.substr(key.size() + 1);
    const int v = std::stoi(value, &used);
    if (used != value.size() || v < low || v > high) return false;
    *out = v;
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

bool BoolField(const std::string& token, std::string_view key, bool* out) {
  const bool yes = token == fmt::format("{}=true", key);
  if (!yes && token != fmt::format("{}=false", key)) return false;
  *out = yes;
  return true;
}

// "key:" then one character per entry, each in [first, first + count).
template <typename T>
bool ListField(const std::string& token, std::string_view key, char first, int count,
               std::vector<T>* out) {
  if (!token.starts_with(key) || token.size() <= key.size() || token[key.size()] != ':') {
    return false;
  }
  out->clear();
  for (char c : std::string_view(token).substr(key.size() + 1)) {
    if (c < first || c >= first + count) return false;
    out->push_back(static_cast<T>(c - first));
  }
  return true;
}

// The KernelSpec whose signature `line` is (the text KernelSpec::signature holds), checked
// against `trace` so that GenerateKernel only ever sees a spec of its shape; nullopt otherwise.
std::optional<codegen::KernelSpec> SpecOf(const std::string& line, const FuseTrace& trace) {
  std::istringstream in(line);
  std::vector<std::string> tokens;
  for (std::string token; in >> token;) tokens.push_back(token);
  const size_t blocks = trace.blocks.size();
  if (tokens.size() != 7 + blocks + 3 || blocks == 0) return std::nullopt;
  codegen::KernelSpec spec;
  int mode = 0;
  if (!IntField(tokens[0], "mode", 0, 4, &mode) ||
      !IntField(tokens[1], "block", 0, static_cast<int>(blocks) - 1, &spec.block) ||
      !IntField(tokens[2], "width", 1, 64, &spec.width) ||
      !BoolField(tokens[3], "index64", &spec.index64) ||
      !IntField(tokens[4], "threads", 1, 1024, &spec.threads) ||
      !IntField(tokens[5], "group", 1, spec.threads, &spec.group) ||
      !BoolField(tokens[6], "shared", &spec.shared_handover)) {
    return std::nullopt;
  }
  spec.mode = static_cast<codegen::KernelMode>(mode);
  spec.access.resize(blocks);
  for (size_t b = 0; b < blocks; ++b) {
    if (!ListField(tokens[7 + b], fmt::format("b{}", b), '0', 7, &spec.access[b])) {
      return std::nullopt;
    }
  }
  std::vector<uint8_t> unaliased;
  std::vector<uint8_t> full;
  if (!ListField(tokens[7 + blocks], "dt", 'a', kNumDTypes, &spec.dtypes) ||
      !ListField(tokens[8 + blocks], "ua", '0', 2, &unaliased) ||
      !ListField(tokens[9 + blocks], "full", '0', 2, &full)) {
    return std::nullopt;
  }
  const size_t tensors = spec.dtypes.size();
  for (const std::vector<codegen::Access>& access : spec.access) {
    if (access.size() != tensors) return std::nullopt;
  }
  if (unaliased.size() != tensors || full.size() != blocks) return std::nullopt;
  spec.unaliased.assign(unaliased.begin(), unaliased.end());
  spec.full.assign(full.begin(), full.end());
  spec.signature = line;
  return spec;
}

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
    const std::optional<codegen::KernelSpec> spec = SpecOf(line, *trace);
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

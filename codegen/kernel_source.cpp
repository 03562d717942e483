#include "codegen/kernel_source.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include <ember/error.h>

#include "codegen/block_emitter.h"
#include "codegen/kernel_variants.h"
#include "codegen/plan_trace.h"
#include "codegen/prelude.h"
#include "codegen/scalar_slots.h"
#include "engine/trace/trace_chains.h"

namespace ember::codegen {
namespace {

constexpr std::string_view kEntry = "ember_fused";
// A row loop runs about kRowVectorsPerThread times (Note [Row geometry], launch_geometry.h):
// unrolled, a thread's loads of several vectors are in flight together before the first fold
// needs one (the fold order, and so the result, stays the loop's).
constexpr std::string_view kRowUnroll = "#pragma unroll 4\n";

// The trace a kernel runs: the whole trace, or one of its chains (Note [Trace chains]).
FuseTrace KernelTrace(const FuseTrace& trace, const KernelSpec& spec) {
  if (spec.chain < 0) return trace;
  if (spec.mode != KernelMode::kRow && spec.mode != KernelMode::kColumn) {
    throw Error("only row and column kernels run one chain of a trace");
  }
  std::vector<FuseTrace> chains = SplitTraceChains(trace);
  if (static_cast<size_t>(spec.chain) >= chains.size()) {
    throw Error(fmt::format("chain {} of a trace of {} chains", spec.chain,
                            std::max<size_t>(1, chains.size())));
  }
  return std::move(chains[spec.chain]);
}

class KernelWriter {
 public:
  KernelWriter(const FuseTrace& trace, const KernelSpec& spec)
      : trace_(KernelTrace(trace, spec)), spec_(spec), ctx_(trace_, spec) {}

  GeneratedKernel Write(int register_cap_blocks) {
    std::string body;
    switch (spec_.mode) {
      case KernelMode::kBlock: body = BlockKernel(); break;
      case KernelMode::kRow: body = RowKernel(); break;
      case KernelMode::kColumn: body = ColumnKernel(); break;
      case KernelMode::kRowPartial: body = RowPartialKernel(); break;
      case KernelMode::kRowCombine: body = RowCombineKernel(); break;
    }
    // The pointers' address slots are added here: take the slot list only after them.
    const std::string pointers = ctx_.Pointers();
    GeneratedKernel kernel;
    kernel.name = std::string(kEntry);
    kernel.slots = ctx_.slots();
    const size_t n = std::max<size_t>(1, kernel.slots.size());
    std::string& s = kernel.source;
    s = std::string(CudaPrelude());
    s += fmt::format("\n// {}\nstruct Params {{ unsigned long long s[{}]; }};\n", spec_.signature,
                     n);
    s += fmt::format("typedef {} idx;\n\n", spec_.index64 ? "long long" : "int");
    // Note [Kernel variants] (kernel_variants.h): a variant in use is written into the source.
    const KernelVariants& variants = ActiveKernelVariants();
    if (const std::string words = variants.Text(); !words.empty()) {
      s += fmt::format("// variants: {}\n", words);
    }
    const bool row = spec_.mode == KernelMode::kRow;
    const int blocks = !row                          ? 0
                       : variants.row_min_blocks > 0 ? variants.row_min_blocks
                                                     : register_cap_blocks;
    const std::string min_blocks = blocks > 0 ? fmt::format(", {}", blocks) : "";
    s += fmt::format("extern \"C\" __global__ void __launch_bounds__({}{}) {}(const Params p) {{\n",
                     spec_.threads, min_blocks, kEntry);
    s += pointers;
    s += body;
    s += "}\n";
    return kernel;
  }

 private:
  std::string BlockKernel() {
    const auto b = static_cast<uint32_t>(spec_.block);
    const int w = spec_.width;
    std::string s;
    s += fmt::format("  const idx count = (idx){};\n",
                     ctx_.S({.kind = Slot::Kind::kCount, .block = static_cast<int>(b)}));
    s += fmt::format("  const idx nvec = count / {};\n", w);
    s += "  const idx stride = (idx)gridDim.x * blockDim.x;\n";
    if (ActiveKernelVariants().elementwise_unroll) s += "#pragma unroll 4\n";
    s += "  for (idx v = (idx)blockIdx.x * blockDim.x + threadIdx.x; v < nvec; v += stride) {\n";
    s += fmt::format("    const idx pos = v * {};\n", w);
    s += ctx_.Block(b, {.lanes = w, .pos = "pos", .indent = 4});
    s += "  }\n";
    if (w > 1) {
      s += "  for (idx pos = nvec * " + std::to_string(w) +
           " + (idx)blockIdx.x * blockDim.x + threadIdx.x; pos < count; pos += stride) {\n";
      s += ctx_.Block(b, {.lanes = 1, .pos = "pos", .indent = 4});
      s += "  }\n";
    }
    return s;
  }

  std::string ReduceSizes() {
    std::string s;
    s += fmt::format("  const idx units = (idx){};\n", ctx_.S({.kind = Slot::Kind::kUnits}));
    s += fmt::format("  const idx L = (idx){};\n", ctx_.S({.kind = Slot::Kind::kLength}));
    return s;
  }

  bool RereadsOutputs() const {
    for (const FuseBlock& block : trace_.blocks) {
      for (const auto* ops : {&block.reads, &block.ops, &block.writes}) {
        for (const FuseOp& op : *ops) {
          for (int k = 0; k < FuseOpArity(op.kind); ++k) {
            if (op.args[k].kind == FuseArgKind::kOutput) return true;
          }
        }
      }
    }
    return false;
  }

  // Note [Row geometry] (launch_geometry.h): groups of G threads per row, R rows per block.
  std::string RowKernel() {
    const int w = spec_.width;
    const int g = spec_.group;
    const int rows = spec_.threads / g;
    if (g < 1 || rows < 1 || rows * g != spec_.threads)
      throw Error("a row group that splits warps");
    std::string s;
    s += "  extern __shared__ __align__(16) unsigned char ember_smem[];\n";
    s += ReduceShared();
    s += ReduceSizes();
    if (rows > 1) s += fmt::format("  const int ember_sub = (int)threadIdx.x / {};\n", g);
    s += fmt::format("  const int ember_t = (int)threadIdx.x % {};\n", g);
    s += ctx_.SharedArrays(rows);
    const bool sync = RereadsOutputs();
    std::string live;
    if (rows > 1) {
      // Surplus groups of the last iteration redo the last row and store nothing.
      s += fmt::format(
          "  for (idx ember_first = (idx)blockIdx.x * {0}; ember_first < units;\n"
          "       ember_first += (idx)gridDim.x * {0}) {{\n",
          rows);
      s += "    const bool ember_live = ember_first + ember_sub < units;\n";
      s += "    const idx u = ember_live ? ember_first + ember_sub : units - 1;\n";
      live = "ember_live";
    } else {
      s += "  for (idx u = blockIdx.x; u < units; u += gridDim.x) {\n";
    }
    s += ctx_.RegisterHandovers(4);
    for (uint32_t b = 0; b < trace_.blocks.size(); ++b) {
      if (IsIdleBlock(trace_, b)) continue;  // another chain's
      const std::optional<size_t> stage = ctx_.StageFrom(b);
      if (spec_.full[b]) {
        if (stage) s += ctx_.StartAccumulator(*stage, 4);
        s += kRowUnroll;
        s += fmt::format("    for (idx i = (idx)ember_t * {}; i < L; i += (idx){}) {{\n", w, g * w);
        s += "      const idx pos = u * L + i;\n";
        s += ctx_.Block(b, {.lanes = w, .pos = "pos", .row = "i", .guard = live, .indent = 6});
        s += "    }\n";
        if (stage) s += ctx_.FinishAccumulator(*stage, true, 4);
      } else {
        s += "    {\n      const idx pos = u;\n      (void)pos;\n";
        const std::string guard = live.empty() ? "ember_t == 0" : "ember_t == 0 && " + live;
        s += ctx_.Block(b, {.lanes = 1, .pos = "pos", .row = "0", .guard = guard, .indent = 6});
        s += "    }\n";
        if (stage) throw Error("a reduce stage from a reduced block");
      }
      if (sync) s += "    __syncthreads();\n";
    }
    s += "  }\n";
    return s;
  }

  // The block-wide reductions' meeting place (ember_group_reduce): one entry per warp, of the
  // widest accumulator (ember_ext<i64, long long>).
  static std::string ReduceShared() {
    return "  __shared__ __align__(16) unsigned char ember_red[32 * 16];\n"
           "  (void)ember_smem;\n  (void)ember_red;\n";
  }

  // Note [Split rows] (plan_trace.cpp): the partials' scratch words, values then positions.
  std::string PartialPointers(bool written) {
    const FuseResources& r = trace_.resources;
    const int first = static_cast<int>(r.inputs.size() + r.views.size() + r.outputs.size());
    const size_t stage = SplitStage();
    const bool positions = ctx_.AccumulatorType(stage).starts_with("ember_ext");
    const char* c = written ? "" : "const ";
    std::string s;
    s += fmt::format("  {}i64* ember_pv = ({}i64*){};\n", c, c,
                     ctx_.S({.kind = Slot::Kind::kAddress, .tensor = first}));
    if (positions) {
      s += fmt::format("  {}i64* ember_pi = ({}i64*){};\n", c, c,
                       ctx_.S({.kind = Slot::Kind::kAddress, .tensor = first + 1}));
    } else {
      s += fmt::format("  {}i64* ember_pi = ember_pv;\n", c);
    }
    s += fmt::format("  const idx P = (idx){};\n", ctx_.S({.kind = Slot::Kind::kParts}));
    return s;
  }

  size_t SplitStage() const {
    if (trace_.reduces.size() != 1) throw Error("split rows need exactly one reduce stage");
    return 0;
  }

  std::string RowPartialKernel() {
    const int w = spec_.width;
    const size_t stage = SplitStage();
    const uint32_t from = trace_.reduces[stage].from;
    std::string s;
    s += "  extern __shared__ __align__(16) unsigned char ember_smem[];\n";
    s += ReduceShared();
    s += ReduceSizes();
    s += PartialPointers(true);
    s += fmt::format("  const idx nvec = L / {};\n", w);
    s += "  const idx chunk = (nvec + P - 1) / P;\n";
    s += "  for (idx ember_part = blockIdx.x; ember_part < units * P; ember_part += gridDim.x) {\n";
    s += "    const idx u = ember_part / P;\n";
    s += "    const idx lo = (ember_part % P) * chunk;\n";
    s += "    const idx hi = lo + chunk < nvec ? lo + chunk : nvec;\n";
    const bool sync = RereadsOutputs();
    for (uint32_t b = 0; b <= from; ++b) {
      if (!spec_.full.at(b)) throw Error("split rows with a reduced block before the stage");
      if (b == from) s += ctx_.StartAccumulator(stage, 4);
      s += kRowUnroll;
      s += fmt::format(
          "    for (idx ember_v = lo + (idx)threadIdx.x; ember_v < hi; ember_v += (idx){}) {{\n",
          spec_.threads);
      s += fmt::format("      const idx i = ember_v * {};\n", w);
      s += "      const idx pos = u * L + i;\n";
      s += ctx_.Block(b, {.lanes = w, .pos = "pos", .row = "i", .indent = 6});
      s += "    }\n";
      if (sync) s += "    __syncthreads();\n";
    }
    s += fmt::format("    acc{0} = ember_group_reduce<{1}, {2}>(acc{0}, ({3}*)ember_red);\n", stage,
                     static_cast<int>(trace_.reduces[stage].kind), spec_.group,
                     ctx_.AccumulatorType(stage));
    s += fmt::format(
        "    if (threadIdx.x == 0) ember_put(ember_pv, ember_pi, (i64)ember_part, acc{});\n",
        stage);
    s += "  }\n";
    return s;
  }

  std::string RowCombineKernel() {
    const size_t stage = SplitStage();
    const uint32_t from = trace_.reduces[stage].from;
    const int op = static_cast<int>(trace_.reduces[stage].kind);
    std::string s;
    s += "  extern __shared__ __align__(16) unsigned char ember_smem[];\n";
    s += ReduceShared();
    s += ReduceSizes();
    s += PartialPointers(false);
    const bool sync = RereadsOutputs();
    s += "  for (idx u = blockIdx.x; u < units; u += gridDim.x) {\n";
    s += ctx_.RegisterHandovers(4);
    s += ctx_.StartAccumulator(stage, 4);
    s += fmt::format("    for (idx q = threadIdx.x; q < P; q += (idx){}) {{\n", spec_.threads);
    s += fmt::format("      {} x;\n", ctx_.AccumulatorType(stage));
    s += "      ember_get(x, ember_pv, ember_pi, (i64)(u * P + q));\n";
    s += fmt::format("      acc{0} = ember_combine<{1}>(acc{0}, x);\n", stage, op);
    s += "    }\n";
    s += ctx_.FinishAccumulator(stage, true, 4);
    for (uint32_t b = from + 1; b < trace_.blocks.size(); ++b) {
      if (spec_.full.at(b)) throw Error("split rows with a full block after the stage");
      s += "    {\n      const idx pos = u;\n      (void)pos;\n";
      s += ctx_.Block(
          b, {.lanes = 1, .pos = "pos", .row = "0", .guard = "threadIdx.x == 0", .indent = 6});
      s += "    }\n";
      if (sync) s += "    __syncthreads();\n";
    }
    s += "  }\n";
    return s;
  }

  std::string ColumnKernel() {
    std::string s;
    s += ReduceSizes();
    s += fmt::format("  const idx inner = (idx){};\n", ctx_.S({.kind = Slot::Kind::kInner}));
    s += "  const idx columns = units * inner;\n";
    s += "  for (idx col = (idx)blockIdx.x * blockDim.x + threadIdx.x; col < columns;\n";
    s += "       col += (idx)gridDim.x * blockDim.x) {\n";
    s += "    const idx u = col / inner, j = col % inner;\n";
    s += ctx_.RegisterHandovers(4);
    for (uint32_t b = 0; b < trace_.blocks.size(); ++b) {
      if (IsIdleBlock(trace_, b)) continue;  // another chain's
      const std::optional<size_t> stage = ctx_.StageFrom(b);
      if (spec_.full[b]) {
        if (stage) s += ctx_.StartAccumulator(*stage, 4);
        s += "    for (idx a = 0; a < L; ++a) {\n";
        s += "      const idx pos = (u * L + a) * inner + j;\n";
        s += ctx_.Block(b, {.lanes = 1, .pos = "pos", .row = "a", .indent = 6});
        s += "    }\n";
        if (stage) s += ctx_.FinishAccumulator(*stage, false, 4);
      } else {
        s += "    {\n      const idx pos = u * inner + j;\n      (void)pos;\n";
        s += ctx_.Block(b, {.lanes = 1, .pos = "pos", .row = "0", .indent = 6});
        s += "    }\n";
        if (stage) throw Error("a reduce stage from a reduced block");
      }
    }
    s += "  }\n";
    return s;
  }

  const FuseTrace trace_;  // what this kernel runs: KernelTrace
  const KernelSpec& spec_;
  KernelContext ctx_;
};

}  // namespace

GeneratedKernel GenerateKernel(const FuseTrace& trace, const KernelSpec& spec, int min_blocks) {
  return KernelWriter(trace, spec).Write(min_blocks);
}

std::vector<uint64_t> KernelArguments(const TraceLaunch& launch, const TracePlan& plan,
                                      const std::vector<Slot>& slots) {
  std::vector<const BoundTensor*> tensors;
  for (const auto* list : {&launch.inputs, &launch.views, &launch.outputs}) {
    for (const BoundTensor& t : *list) tensors.push_back(&t);
  }
  if (launch.matmul_result) tensors.push_back(&*launch.matmul_result);
  for (const BoundTensor& t : launch.scratch) tensors.push_back(&t);
  if (launch.scratch.size() != plan.scratch.size()) {
    throw Error("fused launch without its scratch buffers");
  }
  std::optional<ReduceLayout> layout;
  std::map<std::pair<int, int>, std::vector<int64_t>> strides;  // (tensor, block)
  std::vector<uint64_t> values;
  values.reserve(slots.size() + 1);
  for (const Slot& slot : slots) {
    switch (slot.kind) {
      case Slot::Kind::kAddress: values.push_back(tensors.at(slot.tensor)->address); break;
      case Slot::Kind::kStride: {
        auto [it, fresh] = strides.try_emplace({slot.tensor, slot.block});
        if (fresh) {
          it->second = StridesOver(*tensors.at(slot.tensor), launch.block_shapes.at(slot.block));
        }
        values.push_back(static_cast<uint64_t>(it->second.at(slot.dim)));
        break;
      }
      case Slot::Kind::kRefDim:
        values.push_back(static_cast<uint64_t>(launch.block_shapes.at(slot.block).at(slot.dim)));
        break;
      case Slot::Kind::kCount:
        values.push_back(static_cast<uint64_t>(Positions(launch.block_shapes.at(slot.block))));
        break;
      case Slot::Kind::kUnits:
      case Slot::Kind::kLength:
      case Slot::Kind::kInner: {
        if (!layout) layout = MakeReduceLayout(launch);
        const int64_t v = slot.kind == Slot::Kind::kUnits    ? layout->units
                          : slot.kind == Slot::Kind::kLength ? layout->length
                                                             : layout->inner;
        values.push_back(static_cast<uint64_t>(v));
        break;
      }
      case Slot::Kind::kParts: values.push_back(static_cast<uint64_t>(plan.parts)); break;
      case Slot::Kind::kOwnStride:
        values.push_back(static_cast<uint64_t>(tensors.at(slot.tensor)->strides.at(slot.dim)));
        break;
      case Slot::Kind::kOwnDim:
        values.push_back(static_cast<uint64_t>(tensors.at(slot.tensor)->shape.at(slot.dim)));
        break;
      case Slot::Kind::kScalar:
        values.push_back(ScalarSlotValue(launch.scalars.at(slot.index), slot.dtype, false));
        break;
      case Slot::Kind::kFill:
        values.push_back(ScalarSlotValue(launch.scalars.at(slot.index), slot.dtype, true));
        break;
    }
  }
  if (values.empty()) values.push_back(0);
  return values;
}

}  // namespace ember::codegen

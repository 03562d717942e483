#include "codegen/plan_trace.h"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <ember/error.h>

#include "codegen/chain_memory.h"
#include "codegen/indexed_read.h"
#include "codegen/kernel_signature.h"
#include "codegen/kernel_variants.h"
#include "codegen/launch_tensors.h"
#include "engine/trace/trace_chains.h"

namespace ember::codegen {
namespace {

constexpr int kBlockThreads = 256;
// Grid-stride kernels launch at most this many blocks per multiprocessor: enough resident
// warps to keep 16-byte loads in flight, few enough that each thread loops a while.
constexpr int64_t kBlocksPerMultiprocessor = 16;
// Shared memory kept back from handover arrays for the reduction's partials.
constexpr int kReduceSharedBytes = 1024;
// Split rows: blocks per multiprocessor the partial pass aims to fill.
constexpr int64_t kSplitBlocksPerMultiprocessor = 8;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

class Planner {
 public:
  explicit Planner(const TraceLaunch& launch)
      : launch_(launch), trace_(launch.trace), table_(MakeTable(launch)) {}

  TracePlan Plan() {
    CheckLaunch(launch_);
    plan_.first_scratch_tensor = table_.first_scratch;
    if (trace_->reduces.empty()) {
      PlanBlocks();
    } else {
      PlanReduce();
    }
    return std::move(plan_);
  }

 private:
  // The kernel tensor an argument names, or -1 (locals, scalars, handovers in registers).
  int TensorOf(const FuseArg& arg, uint32_t block) const {
    switch (arg.kind) {
      case FuseArgKind::kInput: return Checked(arg.pos, table_.views);
      case FuseArgKind::kInputView:
        return table_.views + Checked(arg.pos, table_.outputs - table_.views);
      case FuseArgKind::kOutput:
        return table_.outputs + Checked(arg.pos, static_cast<int>(launch_.outputs.size()));
      case FuseArgKind::kMultiBlockLocal: {
        for (const Handover& h : handovers_) {
          if (h.block == arg.block && h.pos == arg.pos &&
              h.storage == Handover::Storage::kScratch) {
            return table_.first_scratch + h.scratch;
          }
        }
        return -1;
      }
      case FuseArgKind::kLocal:
        if (trace_->matmul && block == 0 && arg == trace_->matmul->output) return table_.matmul;
        return -1;
      case FuseArgKind::kScalar:
        if (arg.pos >= launch_.scalars.size())
          throw Error("fused trace refers to a missing scalar");
        return -1;
      case FuseArgKind::kLiteral: return -1;
    }
    return -1;
  }

  static int Checked(uint32_t pos, int size) {
    if (pos >= static_cast<uint32_t>(size)) {
      throw Error(fmt::format("fused trace refers to tensor {} of {}", pos, size));
    }
    return static_cast<int>(pos);
  }

  const BoundTensor& Tensor(int t) const {
    if (t >= table_.first_scratch) return scratch_tensors_[t - table_.first_scratch];
    return *table_.tensors[t];
  }

  int NumTensors() const { return table_.first_scratch + static_cast<int>(plan_.scratch.size()); }

  // Scratch buffers as tensors over `shape`, so the access rules treat them like any other.
  // `shapes` are those of the buffers added since the last call.
  void AddScratchTensors(const std::vector<Shape>& shapes) {
    const size_t first = scratch_tensors_.size();
    for (size_t s = first; s < plan_.scratch.size(); ++s) {
      BoundTensor t{.dtype = plan_.scratch[s].dtype, .shape = shapes.at(s - first)};
      t.strides.resize(t.shape.size());
      int64_t stride = 1;
      for (size_t d = t.shape.size(); d-- > 0;) {
        t.strides[d] = stride;
        stride *= t.shape[d];
      }
      t.address = 256;  // the backend's allocations are 256-byte aligned
      scratch_tensors_.push_back(std::move(t));
    }
  }

  // Tensors block b touches.
  std::vector<int> Touched(uint32_t b) const {
    std::vector<int> touched;
    ForEachArg(trace_->blocks[b], [&](const FuseArg& arg, bool) {
      const int t = TensorOf(arg, b);
      if (t >= 0 && std::find(touched.begin(), touched.end(), t) == touched.end()) {
        touched.push_back(t);
      }
    });
    if (trace_->matmul && b == 0 &&
        std::find(touched.begin(), touched.end(), table_.matmul) == touched.end()) {
      touched.push_back(table_.matmul);
    }
    for (int t : IndexedTensors(trace_->blocks[b])) touched.push_back(t);  // never read otherwise
    return touched;
  }

  // True when `t` seen from `ref` is the reference itself (linear) or one element (uniform).
  bool IsPlain(const BoundTensor& t, const Shape& ref) const {
    const std::vector<int64_t> strides = StridesOver(t, ref);
    if (std::all_of(strides.begin(), strides.end(), [](int64_t s) { return s == 0; })) return true;
    return t.shape == ref && IsContiguous(t);
  }

  // The widest vector every tensor of the block allows: 16 bytes of its smallest element,
  // narrowed until it divides `row` when some tensor needs coordinates. Indexed inputs do not
  // vote (one element per lane, as burn's Vect::Aligned(1)) but need coordinates, lanes within
  // a row (codegen/indexed_read.h).
  int ChooseWidth(const std::vector<int>& touched, const Shape& ref, int64_t row, bool need_row,
                  const std::vector<int>& indexed) const {
    int smallest = 8;
    bool coordinates = !indexed.empty();
    for (int t : touched) {
      if (std::find(indexed.begin(), indexed.end(), t) != indexed.end()) continue;
      smallest = std::min(smallest, DTypeSize(Tensor(t).dtype));
      if (!IsPlain(Tensor(t), ref)) coordinates = true;
    }
    int width = std::min(16, 16 / smallest);
    if (Positions(ref) <= 1) return 1;
    if (coordinates || need_row) {
      while (width > 1 && row % width != 0) width /= 2;
    }
    return width;
  }

  Access AccessOf(const BoundTensor& t, const Shape& ref, int width, bool write) const {
    if (write && t.shape.size() != ref.size()) {
      throw Error(
          fmt::format("a fused block over {} cannot write a tensor of shape {}", ref, t.shape));
    }
    const std::vector<int64_t> strides = StridesOver(t, ref);
    const bool all_zero =
        std::all_of(strides.begin(), strides.end(), [](int64_t s) { return s == 0; });
    const uint64_t vector_bytes = static_cast<uint64_t>(width) * DTypeSize(t.dtype);
    const bool aligned = width > 1 && t.address % vector_bytes == 0;
    if (all_zero && !write) return Access::kUniform;
    if (t.shape == ref && IsContiguous(t)) return aligned ? Access::kVector : Access::kLinear;
    if (width == 1 || strides.empty()) return Access::kStrided;
    if (strides.back() == 0 && !write) return Access::kSplat;
    const bool rows_aligned =
        std::all_of(strides.begin(), strides.end() - 1, [&](int64_t s) { return s % width == 0; });
    if (strides.back() == 1 && aligned && rows_aligned) return Access::kRowVector;
    return Access::kStrided;
  }

  void SetAccess(KernelSpec& spec, uint32_t b, const Shape& ref, int width) const {
    spec.access[b].assign(NumTensors(), Access::kNone);
    std::vector<bool> written(NumTensors(), false);
    ForEachArg(trace_->blocks[b], [&](const FuseArg& arg, bool is_out) {
      const int t = TensorOf(arg, b);
      if (t >= 0 && is_out) written[t] = true;
    });
    const std::vector<int> indexed = IndexedTensors(trace_->blocks[b]);
    for (int t : Touched(b)) {
      const bool by_index = std::find(indexed.begin(), indexed.end(), t) != indexed.end();
      spec.access[b][t] = by_index ? Access::kIndexed : AccessOf(Tensor(t), ref, width, written[t]);
    }
  }

  void FinishSpec(KernelSpec& spec, const std::vector<int64_t>& counts) const {
    spec.dtypes.clear();
    spec.unaliased.clear();
    for (int t = 0; t < NumTensors(); ++t) {
      spec.dtypes.push_back(Tensor(t).dtype);
      bool alone = t < table_.first_scratch;  // scratch addresses are not known yet: alone
      for (int o = 0; o < table_.first_scratch && alone; ++o) {
        alone = o == t || Tensor(o).address != Tensor(t).address;
      }
      spec.unaliased.push_back(alone || t >= table_.first_scratch);
    }
    int64_t largest = 0;
    for (int64_t c : counts) largest = std::max(largest, c);
    for (int t = 0; t < NumTensors(); ++t) largest = std::max(largest, Span(Tensor(t)));
    // Headroom for the position of the last thread's vector past the end.
    spec.index64 = largest + 64 * 1024 > std::numeric_limits<int32_t>::max();
    spec.signature = KernelSignature(spec);
  }

  // Traces without reduce stages: one kernel per block, in order (a later block may re-read
  // what an earlier one wrote; the launches are ordered on one stream).
  void PlanBlocks() {
    const std::vector<bool> full(trace_->blocks.size(), true);
    handovers_ = FindHandovers(*trace_, KernelMode::kBlock, false, full);
    std::vector<Shape> shapes;
    for (Handover& h : handovers_) {
      const Shape& shape = launch_.block_shapes[h.block];
      plan_.scratch.push_back({.dtype = h.dtype, .positions = Positions(shape)});
      shapes.push_back(shape);
    }
    AddScratchTensors(shapes);
    for (const FuseBlock& block : trace_->blocks) {
      ForEachArg(block, [&](const FuseArg& arg, bool) {
        if (arg.kind != FuseArgKind::kMultiBlockLocal) return;
        const Shape& writer = launch_.block_shapes.at(arg.block);
        const auto b = static_cast<size_t>(&block - trace_->blocks.data());
        if (writer != launch_.block_shapes[b]) {
          throw Error(fmt::format("block {} over {} reads a value of block {} over {}", b,
                                  launch_.block_shapes[b], arg.block, writer));
        }
      });
    }
    for (uint32_t b = 0; b < trace_->blocks.size(); ++b) {
      const Shape& ref = launch_.block_shapes[b];
      const int64_t count = Positions(ref);
      bool writes = false;
      ForEachArg(trace_->blocks[b], [&](const FuseArg& arg, bool is_out) {
        if (is_out &&
            (arg.kind == FuseArgKind::kOutput || arg.kind == FuseArgKind::kMultiBlockLocal)) {
          writes = true;
        }
      });
      // burn skips a launch that writes nothing (engine/launch/executor.rs); so does ember.
      if (!writes || count == 0) continue;
      KernelSpec spec{.mode = KernelMode::kBlock, .block = static_cast<int>(b)};
      spec.full = full;
      const std::vector<int> touched = Touched(b);
      spec.width = ChooseWidth(touched, ref, ref.empty() ? 1 : ref.back(), false,
                               IndexedTensors(trace_->blocks[b]));
      spec.access.resize(trace_->blocks.size());
      SetAccess(spec, b, ref, spec.width);
      spec.threads = kBlockThreads;
      const int64_t vectors = CeilDiv(count, spec.width);
      spec.grid =
          std::clamp<int64_t>(CeilDiv(vectors, spec.threads), 1,
                              ActiveKernelVariants().elementwise_no_cap
                                  ? int64_t{1} << 30
                                  : launch_.limits.multiprocessors * kBlocksPerMultiprocessor);
      FinishSpec(spec, {count});
      plan_.kernels.push_back(std::move(spec));
    }
  }

  // Row groups: Note [Row geometry] (launch_geometry.h).
  //
  // Note [Split rows]
  // When the rows are too few to fill the device (fewer than its multiprocessors) and long,
  // and the trace is one reduce stage over full blocks that hand nothing to each other (a
  // one-op reduce, or a fused prologue: CudaOps::ReduceAll reduces [1, n] so), the plan cuts
  // each row into `parts` and runs two kernels: kRowPartial folds one part per thread block
  // and writes its partial accumulator (8-byte words in scratch), kRowCombine combines a row's
  // partials in a block and runs the reduced blocks. This lives in the plan rather than a
  // special kernel so that a fused prologue, every dtype and every reduce op get it from the
  // same lowering as kRow (the partials fold exactly as kRow's threads do; Sum and Mean add
  // them in double, within Note [GPU tolerances]).
  void PlanReduce() {
    const ReduceLayout layout = MakeReduceLayout(launch_);
    // Note [Trace chains] (engine/trace/trace_chains.h): a kernel per independent chain, unless
    // one chain writes memory another touches (an output in an input's buffer): one kernel then
    // keeps the trace's order of reads and writes within each row.
    const std::vector<FuseTrace> chains = SplitTraceChains(*trace_);
    if (chains.size() > 1 && ChainsApart(launch_, chains)) {
      for (size_t k = 0; k < chains.size(); ++k) {
        trace_ = &chains[k];
        PlanReduceKernels(layout, static_cast<int>(k));
      }
      trace_ = launch_.trace;
      // Every kernel numbers every scratch buffer of the plan: widen the earlier ones' tables.
      for (KernelSpec& spec : plan_.kernels) {
        for (std::vector<Access>& access : spec.access) access.resize(NumTensors(), Access::kNone);
        FinishSpec(spec, {Positions(layout.full_shape)});
      }
      return;
    }
    PlanReduceKernels(layout, -1);
  }

  // The kernels of *trace_ (the launch's trace, or chain `chain` of it).
  void PlanReduceKernels(const ReduceLayout& layout, int chain) {
    const Shape& full_shape = layout.full_shape;
    const bool row = layout.inner == 1;
    KernelSpec spec{.mode = row ? KernelMode::kRow : KernelMode::kColumn, .chain = chain};
    spec.scratch_base = static_cast<int>(plan_.scratch.size());
    // Shared memory for the full blocks' handovers, when a row of them fits.
    // Slots by liveness (Note [Shared handover slots], handover.h).
    const std::vector<Handover> in_shared =
        FindHandovers(*trace_, KernelMode::kRow, true, layout.full);
    const bool full_handovers = std::any_of(in_shared.begin(), in_shared.end(), [](const auto& h) {
      return h.storage == Handover::Storage::kShared;
    });
    const int64_t shared = layout.length * SharedSlotBytes(in_shared);
    spec.shared_handover = row && shared + kReduceSharedBytes <= launch_.limits.max_shared_memory;
    handovers_ = FindHandovers(*trace_, spec.mode, spec.shared_handover, layout.full);
    std::vector<Shape> shapes;
    for (Handover& h : handovers_) {
      if (h.storage != Handover::Storage::kScratch) continue;
      h.scratch += spec.scratch_base;
      plan_.scratch.push_back({.dtype = h.dtype, .positions = Positions(full_shape)});
      shapes.push_back(full_shape);
    }
    AddScratchTensors(shapes);
    // The tensors of the full blocks (scratch included) decide the vector width along a row.
    std::vector<int> full_touched, full_indexed;
    for (uint32_t b = 0; b < trace_->blocks.size(); ++b) {
      if (!layout.full[b]) continue;
      for (int t : Touched(b)) full_touched.push_back(t);
      for (int t : IndexedTensors(trace_->blocks[b])) full_indexed.push_back(t);
    }
    spec.width = row ? ChooseWidth(full_touched, full_shape, layout.length, true, full_indexed) : 1;
    spec.full = layout.full;
    CheckOutputReads(layout);
    const int64_t sms = launch_.limits.multiprocessors;
    const int64_t vectors = CeilDiv(layout.length, spec.width);
    if (chain < 0 && row && !full_handovers && SplitsRows(layout, vectors)) {
      PlanSplit(std::move(spec), layout, vectors, full_shape);
      return;
    }
    spec.access.resize(trace_->blocks.size());
    for (uint32_t b = 0; b < trace_->blocks.size(); ++b) {
      SetAccess(spec, b, launch_.block_shapes[b], layout.full[b] ? spec.width : 1);
    }
    if (row) {
      const int64_t budget = std::min<int64_t>(
          kRowSharedPerBlock, launch_.limits.max_shared_memory - kReduceSharedBytes);
      const RowGeometry g =
          ChooseRowGeometry({.vectors = vectors,
                             .units = layout.units,
                             .row_shared_bytes = spec.shared_handover ? shared : 0,
                             .shared_budget = budget,
                             .multiprocessors = sms,
                             .multi_row = !full_handovers || spec.shared_handover});
      spec.group = g.group;
      spec.threads = g.threads;
      const int64_t rows_per_block = g.threads / g.group;
      spec.grid = std::clamp<int64_t>(CeilDiv(layout.units, rows_per_block), 1, sms * 64);
      spec.shared_bytes = spec.shared_handover ? static_cast<int>(rows_per_block * shared) : 0;
    } else {
      spec.threads = kBlockThreads;
      spec.grid = std::clamp<int64_t>(CeilDiv(layout.units * layout.inner, spec.threads), 1,
                                      sms * kBlocksPerMultiprocessor);
      spec.shared_bytes = 0;
    }
    FinishSpec(spec, {Positions(full_shape)});
    plan_.kernels.push_back(std::move(spec));
  }

  // Note [Split rows]: few rows, long ones, one stage after the full blocks and only reduced
  // blocks after it.
  bool SplitsRows(const ReduceLayout& layout, int64_t vectors) const {
    if (trace_->reduces.size() != 1) return false;
    if (layout.units >= launch_.limits.multiprocessors) return false;
    if (vectors < 2 * kRowBlockThreads * kRowVectorsPerThread) return false;
    const uint32_t from = trace_->reduces.front().from;
    for (uint32_t b = 0; b < trace_->blocks.size(); ++b) {
      if (layout.full[b] != (b <= from)) return false;
    }
    return true;
  }

  void PlanSplit(KernelSpec spec, const ReduceLayout& layout, int64_t vectors,
                 const Shape& full_shape) {
    const int64_t sms = launch_.limits.multiprocessors;
    const int64_t by_work = CeilDiv(vectors, kRowBlockThreads * kRowVectorsPerThread);
    const int64_t by_device = CeilDiv(sms * kSplitBlocksPerMultiprocessor, layout.units);
    plan_.parts = std::max<int64_t>(2, std::min(by_work, by_device));
    const int64_t partials = layout.units * plan_.parts;
    // Values, then positions for the ops that keep one (8-byte words, ember_put).
    const ReduceStage::Kind kind = trace_->reduces.front().kind;
    const bool positions = kind != ReduceStage::Kind::kSum && kind != ReduceStage::Kind::kMean &&
                           kind != ReduceStage::Kind::kProd;
    std::vector<Shape> shapes;
    for (int k = 0; k < (positions ? 2 : 1); ++k) {
      plan_.scratch.push_back({.dtype = DType::kI64, .positions = partials});
      shapes.push_back({partials});
    }
    AddScratchTensors(shapes);
    spec.access.resize(trace_->blocks.size());
    for (uint32_t b = 0; b < trace_->blocks.size(); ++b) {
      SetAccess(spec, b, launch_.block_shapes[b], layout.full[b] ? spec.width : 1);
    }
    KernelSpec partial = spec;
    partial.mode = KernelMode::kRowPartial;
    partial.threads = partial.group = kRowBlockThreads;
    partial.grid = std::clamp<int64_t>(partials, 1, sms * 64);
    FinishSpec(partial, {Positions(full_shape)});
    KernelSpec combine = std::move(spec);
    combine.mode = KernelMode::kRowCombine;
    int threads = 32;
    while (threads < kRowBlockThreads && threads < plan_.parts) threads *= 2;
    combine.threads = combine.group = threads;
    combine.grid = std::clamp<int64_t>(layout.units, 1, sms * 64);
    FinishSpec(combine, {Positions(full_shape)});
    plan_.kernels.push_back(std::move(partial));
    plan_.kernels.push_back(std::move(combine));
  }

  // A block may re-read an output an earlier block wrote only where the same row (kRow) or
  // the same thread (kColumn) wrote it: the output has the full or the reduced shape.
  void CheckOutputReads(const ReduceLayout& layout) const {
    const Shape& full_shape = layout.full_shape;
    Shape reduced = full_shape;
    reduced[layout.axis] = 1;
    for (uint32_t b = 0; b < trace_->blocks.size(); ++b) {
      ForEachArg(trace_->blocks[b], [&](const FuseArg& arg, bool is_out) {
        if (is_out || arg.kind != FuseArgKind::kOutput) return;
        const Shape& shape = launch_.outputs.at(arg.pos).shape;
        if (shape != full_shape && shape != reduced) {
          throw Error(fmt::format("block {} re-reads output {} of shape {} across rows", b, arg.pos,
                                  shape));
        }
      });
    }
  }

  const TraceLaunch& launch_;
  // The trace being planned: the launch's, or one of its chains (Note [Trace chains]).
  const FuseTrace* trace_;
  TensorTable table_;
  TracePlan plan_;
  std::vector<Handover> handovers_;
  std::vector<BoundTensor> scratch_tensors_;
};

}  // namespace

ReduceLayout MakeReduceLayout(const TraceLaunch& launch) {
  return ember::MakeReduceLayout(*launch.trace, launch.block_shapes,
                                 ReduceStageArgs::kLocalOfItsBlock);
}

TracePlan PlanTrace(const TraceLaunch& launch) {
  if (launch.trace == nullptr) throw Error("fused launch without a trace");
  return Planner(launch).Plan();
}

}  // namespace ember::codegen

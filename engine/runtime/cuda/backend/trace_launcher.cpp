#include "engine/runtime/cuda/backend/trace_launcher.h"

#include <algorithm>

#include <fmt/format.h>
#include <boost/container/small_vector.hpp>

#include <ember/error.h>

#include "codegen/kernel_source.h"
#include "codegen/kernel_variants.h"
#include "codegen/plan_trace.h"
#include "codegen/register_cap.h"
#include "codegen/scalar_slots.h"
#include "engine/core/check.h"
#include "engine/core/elapsed.h"
#include "engine/core/log.h"
#include "engine/runtime/cuda/driver_api.h"

namespace ember::cuda {
namespace {

constexpr uint64_t kMix = 0x9e3779b97f4a7c15ull;

void Mix(uint64_t& h, uint64_t v) {
  h = (h ^ (v + kMix + (h << 6) + (h >> 2))) * 0xff51afd7ed558ccdull;
}

void MixArg(uint64_t& h, const FuseArg& a) {
  Mix(h, static_cast<uint64_t>(a.kind) | static_cast<uint64_t>(a.dtype) << 8 |
             static_cast<uint64_t>(a.pos) << 16 | static_cast<uint64_t>(a.block) << 40);
}

std::span<const int64_t> Span(const Shape& s) { return {s.data(), s.size()}; }

void RequireCudaTensor(const TensorHandle& h) {
  if (h.buffer == nullptr || h.buffer->backend() != "cuda" || h.strides.size() != h.shape.size()) {
    throw Error("a fused tensor is not a CUDA tensor");
  }
}

}  // namespace

codegen::BoundTensor Bind(const TensorHandle& h) {
  RequireCudaTensor(h);
  return {.dtype = h.dtype, .shape = h.shape, .strides = h.strides, .address = AddressOf(h)};
}

uint64_t TraceHash(const FuseTrace& trace) {
  uint64_t h = 0;
  for (const FuseBlock& block : trace.blocks) {
    Mix(h, block.shape_ref.size());
    for (const auto* ops : {&block.reads, &block.ops, &block.writes}) {
      Mix(h, ops->size());
      for (const FuseOp& op : *ops) {
        Mix(h, static_cast<uint64_t>(op.kind));
        for (int k = 0; k < FuseOpArity(op.kind); ++k) MixArg(h, op.args[k]);
        MixArg(h, op.out);
        // Indexed ops (Note [Indexed inputs]); other ops hash as they always did.
        if (!op.indexed.empty()) Mix(h, static_cast<uint64_t>(op.dim) ^ op.indexed.size() << 32);
        for (const FuseArg& a : op.indexed) MixArg(h, a);
      }
    }
  }
  for (const ReduceStage& r : trace.reduces) {
    Mix(h, static_cast<uint64_t>(r.kind) | static_cast<uint64_t>(r.from) << 8);
    MixArg(h, r.input);
    MixArg(h, r.output);
  }
  if (trace.matmul) MixArg(h, trace.matmul->output);
  for (const FuseScalar& s : trace.resources.scalars) Mix(h, static_cast<uint64_t>(s.dtype));
  return h;
}

const TraceLauncher::Compiled& TraceLauncher::Find(const FuseTrace& trace,
                                                   const codegen::KernelSpec& spec) {
  uint64_t key = TraceHash(trace);
  for (char c : spec.signature) Mix(key, static_cast<unsigned char>(c));
  auto [begin, end] = compiled_.equal_range(key);
  for (auto it = begin; it != end; ++it) {
    if (it->second.signature == spec.signature && it->second.trace == trace) return it->second;
  }
  auto [rbegin, rend] = refused_.equal_range(key);
  for (auto it = rbegin; it != rend; ++it) {
    const Compiled& c = it->second.first;
    if (c.signature == spec.signature && c.trace == trace) throw Error(it->second.second);
  }
  Compiled compiled{.trace = trace, .signature = spec.signature};
  try {
    const auto generating = std::chrono::steady_clock::now();
    const codegen::GeneratedKernel kernel = codegen::GenerateKernel(trace, spec);
    source_ms_ += MsSince(generating);
    compiled.slots = kernel.slots;
    const KernelSource source{.name = kernel.name, .source = kernel.source};
    compiled.function = ctx_.kernels->Get(source);
    compiled.kernel = ctx_.kernels->KeyOf(source).hash;
    if (spec.mode == codegen::KernelMode::kRow) CapRegisters(trace, spec, compiled);
  } catch (const Error& e) {
    refused_.emplace(key, std::make_pair(std::move(compiled), std::string(e.what())));
    throw;
  }
  if (spec.mode == codegen::KernelMode::kRow && spec.shared_handover) {
    // The dynamic size follows the row length, which changes between launches of one compiled
    // kernel: allow all the device has beside the kernel's static arrays, once.
    int static_bytes = 0;
    EMBER_CU(cuFuncGetAttribute, &static_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
             compiled.function);
    const int most = static_cast<int>(ctx_.device->max_shared_memory_per_block_optin());
    EMBER_CU(cuFuncSetAttribute, compiled.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
             most - static_bytes);
  }
  return compiled_.emplace(key, std::move(compiled))->second;
}

// Note [Register cap] (codegen/register_cap.h): a row kernel a few registers above an
// allocation step is compiled again under the cap of the step below, and used unless it spills.
void TraceLauncher::CapRegisters(const FuseTrace& trace, const codegen::KernelSpec& spec,
                                 Compiled& compiled) {
  const codegen::KernelVariants& variants = codegen::ActiveKernelVariants();
  if (variants.row_no_register_cap || variants.row_min_blocks > 0) return;
  int registers = 0;
  EMBER_CU(cuFuncGetAttribute, &registers, CU_FUNC_ATTRIBUTE_NUM_REGS, compiled.function);
  const int blocks =
      codegen::RegisterCapBlocks(spec.threads, registers,
                                 {.registers = ctx_.device->registers_per_multiprocessor(),
                                  .threads = ctx_.device->threads_per_multiprocessor(),
                                  .blocks = ctx_.device->blocks_per_multiprocessor()});
  if (blocks == 0) return;
  // The uncapped kernel works: a capped build that fails to compile or load is logged and
  // left out, never the reason the launch runs unfused.
  KernelSource source;
  CUfunction capped = nullptr;
  int spilled = 0;
  int resident_before = 0, resident_after = 0;
  try {
    const auto generating = std::chrono::steady_clock::now();
    const codegen::GeneratedKernel kernel = codegen::GenerateKernel(trace, spec, blocks);
    source_ms_ += MsSince(generating);  // a warm start generates it too, for its key
    source = {.name = kernel.name, .source = kernel.source};
    capped = ctx_.kernels->Get(source);
    EMBER_CU(cuFuncGetAttribute, &spilled, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, capped);
    const auto shared = static_cast<size_t>(spec.shared_bytes);
    EMBER_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor, &resident_before, compiled.function,
             spec.threads, shared);
    EMBER_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor, &resident_after, capped, spec.threads,
             shared);
  } catch (const Error& e) {
    LogFusion(LogLevel::kBasic, [&] {
      return fmt::format(
          "[cuda] row kernel of {} registers: the build capped for {} blocks "
          "failed, kept uncapped: {}",
          registers, blocks, e.what());
    });
    return;
  }
  const bool better = spilled == 0 && resident_after > resident_before;
  LogFusion(LogLevel::kMedium, [&] {
    return fmt::format(
        "[cuda] row kernel of {} registers, {} blocks a multiprocessor: capped for {}, {} fit "
        "({} bytes spilled){}",
        registers, resident_before, blocks, resident_after, spilled,
        better ? "" : ", kept uncapped");
  });
  if (!better) return;
  compiled.function = capped;
  compiled.kernel = ctx_.kernels->KeyOf(source).hash;
  ++register_capped_;
}

int64_t TraceLauncher::WaveGrid(const Compiled& compiled, const codegen::KernelSpec& spec) {
  if (compiled.resident_shared != spec.shared_bytes) {
    int blocks = 0;
    EMBER_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor, &blocks, compiled.function, spec.threads,
             static_cast<size_t>(spec.shared_bytes));
    compiled.resident = blocks;
    compiled.resident_shared = spec.shared_bytes;
  }
  // Note [Kernel variants] (codegen/kernel_variants.h): grids past one wave, to measure them.
  const codegen::KernelVariants& variants = codegen::ActiveKernelVariants();
  if ((spec.mode == codegen::KernelMode::kRow && variants.row_no_wave_cap) ||
      (spec.mode == codegen::KernelMode::kBlock && variants.elementwise_no_cap)) {
    return spec.grid;
  }
  return codegen::WholeWaveGrid(spec.grid, ctx_.device->multiprocessors(), compiled.resident);
}

void TraceLauncher::BindAll(const TraceTensors& t) {
  binding_.Clear();
  auto add = [&](const TensorHandle& h) {
    RequireCudaTensor(h);
    binding_.AddTensor(h.dtype, Span(h.shape), Span(h.strides), AddressOf(h));
  };
  for (const TensorHandle& h : t.inputs) add(h);
  for (const TensorHandle& h : t.views) add(h);
  for (const TensorHandle& h : t.outputs) add(h);
  if (t.matmul != nullptr) add(*t.matmul);
  for (const Shape& shape : t.block_shapes) binding_.AddBlockShape(Span(shape));
  binding_.SetScalars(t.scalars.size());
}

void TraceLauncher::Run(const FuseTrace& trace, const TraceTensors& t) {
  BindAll(t);  // every tensor checked, and its address taken, once
  if (t.serial == 0 || !records_.enabled()) {
    // Planned for this launch alone. Record compiles every kernel before Replay launches any,
    // so a refusal leaves every tensor untouched.
    Replay(Record(trace, t), t);
    return;
  }
  if (const LaunchRecord* record = records_.Find(t.serial, binding_)) {
    Replay(*record, t);
    return;
  }
  LaunchRecord fresh = Record(trace, t);
  Replay(records_.Add(t.serial, binding_, std::move(fresh)), t);
}

LaunchRecord TraceLauncher::Record(const FuseTrace& trace, const TraceTensors& t) {
  codegen::TraceLaunch launch{.trace = &trace};
  for (const TensorHandle& h : t.inputs) launch.inputs.push_back(Bind(h));
  for (const TensorHandle& h : t.views) launch.views.push_back(Bind(h));
  for (const TensorHandle& h : t.outputs) launch.outputs.push_back(Bind(h));
  if (t.matmul != nullptr) launch.matmul_result = Bind(*t.matmul);
  launch.scalars.assign(t.scalars.begin(), t.scalars.end());
  launch.block_shapes.assign(t.block_shapes.begin(), t.block_shapes.end());
  launch.limits = {
      .multiprocessors = ctx_.device->multiprocessors(),
      .max_shared_memory = static_cast<int>(ctx_.device->max_shared_memory_per_block_optin())};
  const codegen::TracePlan plan = codegen::PlanTrace(launch);
  LaunchRecord record{.scratch = plan.scratch, .first_scratch_tensor = plan.first_scratch_tensor};
  // Scratch as the replay allocates it (contiguous, one dim); its addresses are patched.
  for (const codegen::ScratchSpec& s : plan.scratch) {
    launch.scratch.push_back({.dtype = s.dtype, .shape = {s.positions}, .strides = {1}});
  }
  for (const codegen::KernelSpec& spec : plan.kernels) {
    const Compiled& compiled = Find(trace, spec);
    RecordedKernel kernel{.function = compiled.function,
                          .kernel = compiled.kernel,
                          .grid = WaveGrid(compiled, spec),
                          .threads = spec.threads,
                          .shared_bytes = spec.shared_bytes,
                          .args = codegen::KernelArguments(launch, plan, compiled.slots)};
    for (size_t i = 0; i < compiled.slots.size(); ++i) {
      const codegen::Slot& slot = compiled.slots[i];
      RecordedPatch patch{.dtype = slot.dtype, .slot = static_cast<uint32_t>(i)};
      switch (slot.kind) {
        case codegen::Slot::Kind::kAddress:
          patch.kind = RecordedPatch::Kind::kAddress;
          patch.index = static_cast<uint32_t>(slot.tensor);
          break;
        case codegen::Slot::Kind::kScalar:
          patch.kind = RecordedPatch::Kind::kScalar;
          patch.index = static_cast<uint32_t>(slot.index);
          break;
        case codegen::Slot::Kind::kFill:
          patch.kind = RecordedPatch::Kind::kFill;
          patch.index = static_cast<uint32_t>(slot.index);
          break;
        default: continue;  // a function of the binding: already right
      }
      kernel.patches.push_back(patch);
    }
    record.kernels.push_back(std::move(kernel));
  }
  return record;
}

void TraceLauncher::Replay(const LaunchRecord& record, const TraceTensors& t) {
  // Kernel tensor addresses in codegen::TraceLaunch's numbering (BindAll took them), scratch
  // last.
  const std::span<const uint64_t> bound = binding_.addresses();
  boost::container::small_vector<uint64_t, 16> addresses(bound.begin(), bound.end());
  EMBER_CHECK(static_cast<int>(addresses.size()) == record.first_scratch_tensor,
              "a launch record for {} tensors replayed with {}", record.first_scratch_tensor,
              addresses.size());
  // Freed when the handles go at the end of the call: stream order keeps that safe.
  boost::container::small_vector<TensorHandle, 2> scratch;
  for (const codegen::ScratchSpec& s : record.scratch) {
    scratch.push_back(ctx_.NewHandle({s.positions}, s.dtype));
    addresses.push_back(AddressOf(scratch.back()));
  }
  for (const RecordedKernel& kernel : record.kernels) {
    args_.assign(kernel.args.begin(), kernel.args.end());
    for (const RecordedPatch& patch : kernel.patches) {
      switch (patch.kind) {
        case RecordedPatch::Kind::kAddress: args_[patch.slot] = addresses[patch.index]; break;
        case RecordedPatch::Kind::kScalar:
          args_[patch.slot] = codegen::ScalarSlotValue(t.scalars[patch.index], patch.dtype, false);
          break;
        case RecordedPatch::Kind::kFill:
          args_[patch.slot] = codegen::ScalarSlotValue(t.scalars[patch.index], patch.dtype, true);
          break;
      }
    }
    graphs_.Launch({.function = kernel.function,
                    .kernel = kernel.kernel,
                    .grid = kernel.grid,
                    .threads = kernel.threads,
                    .shared_bytes = kernel.shared_bytes,
                    .args = args_});
    ++launches_;
  }
}

void TraceLauncher::RunSpecial(const codegen::GeneratedKernel& kernel, std::vector<uint64_t> args,
                               int64_t work) {
  if (work <= 0) return;
  auto it = special_.find(kernel.source);
  if (it == special_.end()) {
    const KernelSource source{.name = kernel.name, .source = kernel.source};
    it = special_
             .emplace(kernel.source,
                      std::make_pair(ctx_.kernels->Get(source), ctx_.kernels->KeyOf(source).hash))
             .first;
  }
  constexpr int kThreads = 256;
  const int64_t blocks = std::min<int64_t>((work + kThreads - 1) / kThreads,
                                           int64_t{ctx_.device->multiprocessors()} * 16);
  graphs_.Launch({.function = it->second.first,
                  .kernel = it->second.second,
                  .grid = blocks,
                  .threads = kThreads,
                  .args = args});
  ++launches_;
}

}  // namespace ember::cuda

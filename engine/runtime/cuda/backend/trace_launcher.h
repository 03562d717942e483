// TraceLauncher: runs a fused trace over bound device tensors through the code generator
// (codegen/): plan, find or compile each kernel, fill its arguments, launch. Also launches the
// special kernels (Random, Gather, Select, integer matmul) the same way.
//
// Every launch goes through a launch record (launch_records.h). A launch whose trace has a
// serial (TraceTensors::serial) keeps it: the first launch of a (trace, binding) plans it, the
// next ones patch addresses and scalars into the kept argument blocks and launch. A launch
// without a serial, or with records off (`[runtime] launch_records = 0`), records for itself
// alone and plans every time.
//
// Every launch goes to the driver through LaunchGraphs (launch_graphs.h, Note [Launch windows]):
// now, or held as part of a window that replays a CUDA graph; the tensors of a held launch are
// kept alive until it is submitted.
//
// Compiled kernels are kept in memory by (trace, KernelSpec::signature): a structural hash of
// the trace narrows the lookup, and the trace itself is compared on a hit (a hash only narrows,
// as everywhere in ember). The source is generated only on a miss, then compiled through the
// KernelCache (engine/runtime/cuda/kernel_cache.h), which the plan database backs later.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "codegen/kernel_source.h"
#include "codegen/launch_binding.h"
#include "engine/runtime/cuda/backend/device_context.h"
#include "engine/runtime/cuda/backend/launch_graphs.h"
#include "engine/runtime/cuda/backend/launch_records.h"

namespace ember::cuda {

// A CUDA tensor as the code generator sees it (codegen::BoundTensor). Throws ember::Error for
// a handle that is not a CUDA tensor.
codegen::BoundTensor Bind(const TensorHandle& h);

// The tensors of one trace launch, every one already allocated (TraceLaunch's numbering).
struct TraceTensors {
  std::span<const TensorHandle> inputs;
  std::span<const TensorHandle> views;
  std::span<const TensorHandle> outputs;
  const TensorHandle* matmul = nullptr;
  std::span<const ScalarIr> scalars;
  std::span<const Shape> block_shapes;
  // The trace's serial (engine/trace/trace_serial.h); 0: not recorded.
  uint64_t serial = 0;
};

class TraceLauncher {
 public:
  // `records`: launch records kept (0: none); `graphs`: how windows become graphs.
  TraceLauncher(DeviceContext& ctx, size_t records, LaunchGraphs::Settings graphs)
      : ctx_(ctx), records_(records), graphs_(ctx, graphs) {}

  // Throws ember::Error (nothing launched, nothing written) when the generator refuses the
  // launch or a kernel fails to compile; a launch failure afterwards throws CudaError.
  void Run(const FuseTrace& trace, const TraceTensors& tensors);

  // Launches `kernel` with `args` over `work` items (a grid-stride loop of 256 threads).
  void RunSpecial(const codegen::GeneratedKernel& kernel, std::vector<uint64_t> args, int64_t work);

  uint64_t launches() const { return launches_; }
  // Row kernels compiled again under a register cap and used (Note [Register cap]).
  uint64_t register_capped() const { return register_capped_; }
  // Wall time generating fused kernels' source (once per trace and kernel signature: what a
  // kernel's key is computed from, so a warm start pays it too).
  double source_ms() const { return source_ms_; }
  LaunchRecords::Counters record_counters() const { return records_.counters(); }
  LaunchGraphs& graphs() { return graphs_; }
  const LaunchGraphs& graphs() const { return graphs_; }

 private:
  struct Compiled {
    FuseTrace trace;
    std::string signature;
    CUfunction function = nullptr;
    uint64_t kernel = 0;  // KernelBinaryKey hash
    std::vector<codegen::Slot> slots;
    // The blocks of it one multiprocessor holds with `resident_shared` bytes of dynamic shared
    // memory (the last launch's; asked again when it changes).
    mutable int resident_shared = -1;
    mutable int resident = 0;
  };
  // The grid of `spec` in whole waves (codegen::WholeWaveGrid) for `compiled`.
  int64_t WaveGrid(const Compiled& compiled, const codegen::KernelSpec& spec);
  const Compiled& Find(const FuseTrace& trace, const codegen::KernelSpec& spec);
  // Note [Register cap] (codegen/register_cap.h): `compiled`, a row kernel just compiled,
  // replaced by its capped build where the rule says so and the build does not spill.
  void CapRegisters(const FuseTrace& trace, const codegen::KernelSpec& spec, Compiled& compiled);
  // Plans and compiles (trace, tensors) without launching (throws as Run does) and returns the
  // record of it.
  LaunchRecord Record(const FuseTrace& trace, const TraceTensors& tensors);
  // Launches `record` over `tensors` (which match the binding it was recorded for).
  // REQUIRES: BindAll(tensors) was the last BindAll (Replay reads the addresses it took).
  void Replay(const LaunchRecord& record, const TraceTensors& tensors);
  // binding_ for `tensors`; throws ember::Error for a tensor that is not a CUDA tensor.
  void BindAll(const TraceTensors& tensors);

  DeviceContext& ctx_;
  std::unordered_multimap<uint64_t, Compiled> compiled_;
  // Kernels that failed to generate or compile, with the reason: a plan whose kernel cannot be
  // built runs unfused from then on without paying NVRTC again on every launch.
  std::unordered_multimap<uint64_t, std::pair<Compiled, std::string>> refused_;
  // By kernel source: the function and its KernelBinaryKey hash.
  std::unordered_map<std::string, std::pair<CUfunction, uint64_t>> special_;
  LaunchRecords records_;
  LaunchGraphs graphs_;
  codegen::LaunchBinding binding_;  // the current launch's; kept to reuse its storage
  std::vector<uint64_t> args_;      // the argument block being patched, likewise
  uint64_t launches_ = 0;
  uint64_t register_capped_ = 0;
  double source_ms_ = 0;
};

// A structural hash of everything a trace's kernels depend on.
uint64_t TraceHash(const FuseTrace& trace);

}  // namespace ember::cuda

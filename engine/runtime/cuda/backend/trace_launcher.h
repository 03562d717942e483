// TraceLauncher: runs a fused trace over bound device tensors through the code generator
// (codegen/): plan, find or compile each kernel, fill its arguments, launch. Also launches the
// special kernels (Random, Gather, Select, integer matmul) the same way.
//
// Compiled kernels are kept in memory by (trace, KernelSpec::signature): a structural hash of
// the trace narrows the lookup, and the trace itself is compared on a hit (a hash only narrows,
// as everywhere in ember). The source is generated only on a miss, then compiled through the
// KernelCache (engine/runtime/cuda/kernel_cache.h), which the plan database backs later.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "codegen/kernel_source.h"
#include "engine/runtime/cuda/backend/device_context.h"

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
};

class TraceLauncher {
 public:
  explicit TraceLauncher(DeviceContext& ctx) : ctx_(ctx) {}

  // Throws ember::Error (nothing launched, nothing written) when the generator refuses the
  // launch or a kernel fails to compile; a launch failure afterwards throws CudaError.
  void Run(const FuseTrace& trace, const TraceTensors& tensors);

  // Launches `kernel` with `args` over `work` items (a grid-stride loop of 256 threads).
  void RunSpecial(const codegen::GeneratedKernel& kernel, std::vector<uint64_t> args, int64_t work);

  uint64_t launches() const { return launches_; }

 private:
  struct Compiled {
    FuseTrace trace;
    std::string signature;
    CUfunction function = nullptr;
    std::vector<codegen::Slot> slots;
    // The blocks of it one multiprocessor holds with `resident_shared` bytes of dynamic shared
    // memory (the last launch's; asked again when it changes).
    mutable int resident_shared = -1;
    mutable int resident = 0;
  };
  // The grid of `spec` in whole waves (codegen::WholeWaveGrid) for `compiled`.
  int64_t WaveGrid(const Compiled& compiled, const codegen::KernelSpec& spec);
  const Compiled& Find(const FuseTrace& trace, const codegen::KernelSpec& spec);
  void Launch(CUfunction function, std::vector<uint64_t>& args, int64_t grid, int threads,
              int shared_bytes);

  DeviceContext& ctx_;
  std::unordered_multimap<uint64_t, Compiled> compiled_;
  // Kernels that failed to generate or compile, with the reason: a plan whose kernel cannot be
  // built runs unfused from then on without paying NVRTC again on every launch.
  std::unordered_multimap<uint64_t, std::pair<Compiled, std::string>> refused_;
  std::unordered_map<std::string, CUfunction> special_;  // by kernel source
  uint64_t launches_ = 0;
};

// A structural hash of everything a trace's kernels depend on.
uint64_t TraceHash(const FuseTrace& trace);

}  // namespace ember::cuda

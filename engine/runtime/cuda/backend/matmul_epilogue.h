// MatmulEpilogues: runs a Matmul trace (the Matmul fuser's product + elementwise block,
// engine/trace/fuse_trace.h) on the GPU by one of two variants:
//   cublaslt  one cuBLASLt call with its own epilogue (bias, relu, alpha), when the block is
//             exactly one (Note [cuBLASLt epilogue match], codegen/blas_epilogue.h);
//   kernel    cuBLASLt for the product, then the generated epilogue kernel (every trace).
// Which one is faster depends on the shape and the GPU, so it is measured: Note [Epilogue
// choice]. Called by the backend under its lock, one call at a time.
//
// Note [Epilogue choice]
// Shape class: the device (name, arch, cuBLASLt version: another GPU model or library never
// reuses a choice), the dtype, the epilogue kind, whether alpha is used, and M, N, K and the
// batch each rounded up to a power of two (what decides cuBLASLt's kernel and the epilogue's
// cost at the same order of magnitude). The first launch of a class in auto mode runs each
// variant once untimed (compiles, heuristics, plan creation happen there, so no host work falls
// between the timing events), then each once between CUDA events on the stream; the faster is
// remembered in the EpilogueChoiceStore and every later launch of the class runs it alone. The
// warm-up and the timed cublaslt run write scratch outputs; the timed kernel run, last, writes
// the real outputs, so the first call's result is one complete variant's and no output aliasing
// an input (in-place) is written before every run has read it. A cublaslt failure (no algorithm
// for the epilogue) remembers the kernel variant and logs why.
//
// EMBER_CUDA_MATMUL_EPILOGUE=auto (default) | cublaslt | kernel forces a variant where the
// trace matches (kernel always works); forced launches neither measure nor remember.
// SetMatmulEpilogueModeForTesting overrides it within a process (the GPU tests run both).
// EMBER_LOG=medium writes one line per decision ("[cuda] matmul epilogue ... -> cublaslt").
#pragma once

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "codegen/blas_epilogue.h"
#include "engine/runtime/cuda/backend/cuda_ops.h"
#include "engine/runtime/cuda/backend/device_context.h"
#include "engine/runtime/cuda/backend/epilogue_choice_facts.h"
#include "engine/runtime/cuda/backend/trace_launcher.h"
#include "engine/runtime/fused_launch.h"

namespace ember::cuda {

enum class EpilogueMode : uint8_t { kAuto, kCublasLt, kKernel };

// nullopt: back to EMBER_CUDA_MATMUL_EPILOGUE (read once per process).
void SetMatmulEpilogueModeForTesting(std::optional<EpilogueMode> mode);
EpilogueMode CurrentMatmulEpilogueMode();

// Process-wide counts (every CUDA backend; they survive ReleaseDevice, which ember::Stats does
// not reach into): what the benchmark and the tests read to say which variant ran.
struct EpilogueCounters {
  uint64_t matched = 0;         // Matmul launches whose block is a cuBLASLt epilogue
  uint64_t refused = 0;         // Matmul launches whose block is not (the reason is logged)
  uint64_t measured = 0;        // shape classes measured (one decision each)
  uint64_t chose_cublaslt = 0;  // of those, decided for cublaslt
  uint64_t runs_cublaslt = 0;   // launches that ran the cublaslt variant
  uint64_t runs_kernel = 0;     // launches that ran the kernel variant (refused ones included)
};
EpilogueCounters MatmulEpilogueCounters();

class MatmulEpilogues {
 public:
  // `store`: null keeps choices in an in-memory store of this object's own; else it must
  // outlive this object.
  MatmulEpilogues(DeviceContext& ctx, CudaOps& ops, TraceLauncher& launcher,
                  EpilogueChoiceStore* store = nullptr);

  // Runs `launch` (a Matmul trace) into `outputs` (allocated by the caller; `in_place[o]` is
  // the input whose buffer output o took, or -1; `matmul_output` is the output that may hold
  // the product for the kernel variant, or -1), queued on the current stream (each piece of
  // work asks DeviceContext::stream for it as it queues, so that launches held back for a graph
  // stay in order: cuda_stream.h). Throws ember::Error without
  // having written any input, like Backend::ExecuteFused; may replace an in-place output by a
  // new handle (when cuBLASLt would write over an operand).
  // Keeps choices as device facts too from now on (null: memory only), when this object keeps
  // its own (no `store` was given).
  void UseFacts(DeviceFactStore* facts) { own_store_.UseFacts(facts); }

  void Run(const FusedLaunch& launch, std::span<const TensorHandle> views,
           std::vector<TensorHandle>& outputs, std::span<const int> in_place, int matmul_output);

 private:
  void RunKernel(const FusedLaunch& launch, std::span<const TensorHandle> views,
                 std::span<const TensorHandle> outputs, int matmul_output);
  void RunCublasLt(const FusedLaunch& launch, const codegen::BlasEpilogueMatch& match,
                   std::span<const TensorHandle> outputs);
  // Both variants timed, the kernel one last into `outputs`.
  EpilogueChoice Measure(const FusedLaunch& launch, std::span<const TensorHandle> views,
                         const codegen::BlasEpilogueMatch& match,
                         std::span<const TensorHandle> outputs, int matmul_output,
                         std::string* cublaslt_failure);
  // What cuBLASLt's relu does with NaN and -0 on this device: the warm-up's probe
  // (blas_warm_up.h), waited for while it runs; probed here, synchronously, when it could not
  // run.
  codegen::ReluRule BlasReluRule();
  EpilogueShapeClass ClassOf(const FusedLaunch& launch, const codegen::BlasEpilogueMatch& match);

  DeviceContext& ctx_;
  CudaOps& ops_;
  TraceLauncher& launcher_;
  FactEpilogueChoiceStore own_store_;
  EpilogueChoiceStore* store_;
  std::optional<codegen::ReluRule> blas_relu_;  // set by the probe
  bool relu_usable_ = true;                     // false: the probe saw no relu at all
  std::string device_key_;
};

}  // namespace ember::cuda

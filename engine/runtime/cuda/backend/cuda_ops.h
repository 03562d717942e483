// CudaOps: the CUDA kernels of every op, each with the CPU kernel's semantics
// (engine/runtime/cpu/kernels.h): elementwise ops, copies and reductions as one-op traces
// (op_traces.h), views as strides, matmul through cuBLASLt (floats) or a generated kernel
// (ints), Gather / Select / Random through the special kernels (codegen/special_kernels.h).
// Every result is a new contiguous handle unless the op is a view. The one-op traces are kept
// by structure (op_trace_cache.h), so an unfused op replays a launch record like a fused one.
#pragma once

#include <span>
#include <vector>

#include "engine/ir/operation_ir.h"
#include "engine/runtime/cpu/random.h"
#include "engine/runtime/cuda/backend/device_context.h"
#include "engine/runtime/cuda/backend/op_trace_cache.h"
#include "engine/runtime/cuda/backend/trace_launcher.h"

namespace ember::cuda {

// cuBLASLt's own epilogue on a float product (MatmulArgs' epilogue, bias and alpha).
struct BlasEpilogue {
  MatmulEpilogue kind = MatmulEpilogue::kNone;
  CUdeviceptr bias = 0;
  float alpha = 1.0f;
};

class CudaOps {
 public:
  CudaOps(DeviceContext& ctx, TraceLauncher& launcher) : ctx_(ctx), launcher_(launcher) {}

  // Ops with a fused op (HasFusedKind), Cast, Full, Zeros, Ones.
  TensorHandle Elementwise(const OperationIr& op, std::span<const TensorHandle> inputs);
  // A contiguous copy of `x` (x itself when it already is contiguous from its offset).
  TensorHandle Contiguous(const TensorHandle& x);
  // Copies x's elements into `dst` (same shape, any strides).
  void CopyInto(const TensorHandle& x, const TensorHandle& dst);
  TensorHandle Reshape(const TensorHandle& x, const Shape& shape);
  TensorHandle ReduceDim(ReduceStage::Kind kind, const TensorHandle& x, int64_t axis,
                         const TensorIr& out);
  TensorHandle ReduceAll(ReduceStage::Kind kind, const TensorHandle& x, const TensorIr& out);
  // [..., m, k] x [..., k, n], batch dims broadcast. `into`: write there (contiguous, the
  // output's shape and dtype) instead of a new handle.
  // REQUIRES: `epilogue` is the default unless out.dtype is a float and k >= 1.
  TensorHandle Matmul(const TensorHandle& lhs, const TensorHandle& rhs, const TensorIr& out,
                      const TensorHandle* into = nullptr, const BlasEpilogue& epilogue = {});
  TensorHandle Index(bool select, const TensorHandle& x, int64_t dim, const TensorHandle& indices,
                     const TensorIr& out);
  TensorHandle Cat(std::span<const TensorHandle> inputs, int64_t dim, const TensorIr& out);
  TensorHandle Random(const Distribution& distribution, const TensorIr& out);
  void Seed(uint64_t seed) { generator_.Seed(seed); }

 private:
  // x broadcast to `shape` as a contiguous [batch, rows, cols] operand when its strides do
  // not already describe one; returns the batch stride (0: broadcast) and the row stride.
  struct MatrixOperand {
    TensorHandle handle;
    int64_t batch_stride = 0;
    int64_t row_stride = 0;
  };
  MatrixOperand Operand(const TensorHandle& x, const Shape& shape);

  DeviceContext& ctx_;
  TraceLauncher& launcher_;
  OpTraceCache traces_;
  cpu::RandomGenerator generator_;
};

}  // namespace ember::cuda

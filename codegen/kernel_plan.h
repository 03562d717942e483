// The code generator's data: what a backend tells it about one launch of a fused trace
// (TraceLaunch), what it decides (TracePlan: one KernelSpec per kernel, with its geometry),
// and what a generated kernel reads from its arguments (Slot). Plain data, no CUDA: codegen/
// is a pure library, tested everywhere (codegen/README.md).
//
// Note [Kernel arguments]
// Every generated kernel takes one by-value struct of 8-byte slots, `struct Params { unsigned
// long long s[N]; }`. Slot i holds what slots[i] names: a tensor's data address, a stride, a
// reference dim, a count, a scalar. Shapes, strides and scalar values are therefore arguments,
// never constants of the source: a new scalar value or another shape of the same structure
// (burn's relative shapes) runs the same compiled kernel. What the source does depend on is in
// KernelSpec::signature, the key a kernel cache uses together with the trace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ember/dtype.h>

#include "engine/ir/scalar_ir.h"
#include "engine/ir/tensor_ir.h"
#include "engine/trace/fuse_trace.h"

namespace ember::codegen {

// A tensor as one launch binds it. `address` is the device address of element 0 (the handle's
// offset already applied); strides count elements (0 broadcasts).
struct BoundTensor {
  DType dtype = DType::kF32;
  Shape shape;
  Shape strides;
  uint64_t address = 0;
};

// The device facts the plan depends on.
struct DeviceLimits {
  int multiprocessors = 132;
  int max_shared_memory = 48 * 1024;  // per block, after opting in
};

// One launch of a fused trace, bound to real tensors. Kernel tensor numbering: the inputs, the
// views, the outputs, then the matmul result (Matmul traces), then the scratch buffers the plan
// asks for (TracePlan::scratch), in that order.
struct TraceLaunch {
  const FuseTrace* trace = nullptr;
  std::vector<BoundTensor> inputs;           // per trace->resources.inputs
  std::vector<BoundTensor> views;            // per trace->resources.views: the view as strides
  std::vector<BoundTensor> outputs;          // per trace->resources.outputs (already allocated)
  std::optional<BoundTensor> matmul_result;  // Matmul traces: the product block 0 reads
  std::vector<BoundTensor> scratch;          // per TracePlan::scratch, once allocated
  std::vector<ScalarIr> scalars;             // per trace->resources.scalars (real values)
  std::vector<Shape> block_shapes;           // per trace->blocks (real reference shapes)
  DeviceLimits limits;
};

// How a kernel reaches a tensor's element from a position of a block's reference.
enum class Access : uint8_t {
  kNone = 0,   // the block does not touch the tensor
  kLinear,     // the reference's shape, contiguous: element index = position
  kVector,     // kLinear and aligned: the block's `width` elements move as one vector
  kStrided,    // sum of coordinate x stride; one access per element
  kRowVector,  // strided, unit stride along the last dim and aligned: a vector per row run
  kSplat,      // strided, stride 0 along the last dim: one load serves the row run
  kUniform,    // every stride 0: one element for every position
  kIndexed,    // read by index (Note [Indexed inputs]): its own strides, one element per lane
};

// How a kernel walks positions (Note [Kernel modes], codegen/trace_kernels.h).
enum class KernelMode : uint8_t {
  kBlock,       // one block of the trace over its reference (elementwise, matmul epilogue)
  kRow,         // every block of a reduce trace, a group of `group` threads per row (reduce along
                // the last axis)
  kColumn,      // every block of a reduce trace, one thread per column (reduce along another axis)
  kRowPartial,  // split rows, pass 1: the full blocks over one part of a row, one partial each
  kRowCombine,  // split rows, pass 2: a row's partials combined, then the reduced blocks
};

// What one slot of Note [Kernel arguments] holds.
struct Slot {
  enum class Kind : uint8_t {
    kAddress,    // tensor's data address
    kStride,     // tensor's stride along reference dim `dim` of block `block` (0: broadcast)
    kRefDim,     // dim `dim` of block `block`'s reference
    kCount,      // positions of block `block`
    kUnits,      // reduce modes: rows (outer positions)
    kLength,     // reduce modes: the reduced axis' length
    kInner,      // reduce modes: positions after the axis
    kParts,      // split rows: the parts of each row (TracePlan::parts)
    kScalar,     // scalar `index` as the domain of `dtype` would use it in an op
    kFill,       // scalar `index` stored as `dtype` and loaded back (a fused Full)
    kOwnStride,  // tensor's own stride along its dim `dim` (indexed inputs: codegen/indexed_read.h)
    kOwnDim,     // tensor's own size along its dim `dim` (indexed inputs)
  };
  Kind kind = Kind::kAddress;
  int tensor = 0;
  int block = 0;
  int dim = 0;
  int index = 0;
  DType dtype = DType::kF32;

  bool operator==(const Slot&) const = default;
};

// A buffer the plan needs for values one block hands to another: `positions` numbers of
// `dtype`, contiguous.
struct ScratchSpec {
  DType dtype = DType::kF32;
  int64_t positions = 0;
};

// One kernel of a plan: everything its source depends on, and how to launch it.
struct KernelSpec {
  KernelMode mode = KernelMode::kBlock;
  int block = 0;  // kBlock: the trace block it runs
  // Reduce modes: -1 runs the whole trace; k >= 0 runs its chain k alone (Note [Trace chains],
  // engine/trace/trace_chains.h), its scratch handovers numbered from `scratch_base`.
  int chain = -1;
  int scratch_base = 0;
  int width = 1;  // positions a thread handles per step (a vector along the last dim)
  bool index64 = false;
  int threads = 256;
  // kRow: threads per row (a power of two; threads / group rows per thread block). The split
  // modes: every thread of the block (one row part per block).
  int group = 1;
  // [block][kernel tensor]: how each block touches each tensor.
  std::vector<std::vector<Access>> access;
  std::vector<DType> dtypes;  // per kernel tensor
  // kRow: values handed between full blocks live in shared memory (else in scratch).
  bool shared_handover = false;
  // Reduce modes, per block: its reference is the full shape (else the reduced one).
  std::vector<bool> full;
  // Per kernel tensor: no other tensor of the launch shares its memory (__restrict__).
  std::vector<bool> unaliased;
  // Launch geometry (not part of the source).
  int64_t grid = 1;
  int shared_bytes = 0;
  // Deterministic text of every decision above that the source depends on.
  std::string signature;
};

struct TracePlan {
  std::vector<KernelSpec> kernels;  // run in order on one stream
  std::vector<ScratchSpec> scratch;
  // Scratch buffers kernel tensors refer to start at this index.
  int first_scratch_tensor = 0;
  // Split rows (kRowPartial then kRowCombine): the parts each row is cut into, one partial
  // per part; 0 when the plan does not split.
  int64_t parts = 0;
};

// The positions of a shape (1 for rank 0).
int64_t Positions(const Shape& shape);

// The strides of `tensor` seen from reference `ref` (numpy broadcasting: missing leading dims
// and size-1 dims get 0). Throws ember::Error when it does not broadcast to `ref`.
std::vector<int64_t> StridesOver(const BoundTensor& tensor, const Shape& ref);

}  // namespace ember::codegen

// TraceBuilder: accumulates a fused trace one fused op at a time (burn's TraceFuser and
// FuseBlockBuilder, burn-cubecl-fusion's engine/trace/fuser.rs and engine/trace/block.rs). Fusers
// (trace_op_fuser.h) decide *whether* an op fuses; this class records *how*: which tensors are read
// from global memory, which values stay in locals, which outputs must still be written, and how
// blocks hand values over.
//
// Every call works on relative TensorIr. Inputs and outputs are registered once per id and
// keep their latest status (RegisteredTensors), which is what lets Finish() skip writing a
// value consumed inside the kernel (status ReadWrite) - the source of a fusion's savings.
//
// Plain value type: fusers copy it to try an op and keep the copy only if the op fits (the
// clone-and-try rule of burn's TryTraceFuser::fuse).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "engine/fuse/registered_tensors.h"
#include "engine/ir/scalar_ir.h"
#include "engine/trace/fuse_trace.h"

namespace ember {

class TraceBuilder {
 public:
  TraceBuilder();

  // The local holding `tensor` in the current block, reading it from global memory the first
  // time (an input, or the buffer of an output an earlier block wrote). nullopt: cannot.
  std::optional<FuseArg> Input(const TensorIr& tensor);
  // The local an op writes `tensor` to; registers it as a trace output.
  std::optional<FuseArg> Output(const TensorIr& tensor);
  // `view` = reshape or swap-dims of `original`, read through a fused view. Only for an
  // original already read from global memory in this block and never written by the trace
  // (as burn's FuseBlockBuilder::input_reshaped: a single-use view is cheaper done eagerly).
  std::optional<FuseArg> InputReshaped(const TensorIr& original, const TensorIr& view);
  std::optional<FuseArg> InputSwapDims(const TensorIr& original, const TensorIr& view, int64_t dim1,
                                       int64_t dim2);
  // A scalar placeholder read as `dtype`. REQUIRES: `placeholder` is relative (UInt).
  FuseArg Scalar(const ScalarIr& placeholder, DType dtype);
  // `tensor` is dropped by the segment: it is not written, and its handle goes away.
  void Drop(const TensorIr& tensor);
  void AddOp(const FuseOp& op) { current_.ops.push_back(op); }

  // An input the kernel reads itself (matmul operands): registered, no read op. REQUIRES: not
  // indexed (IsIndexed).
  FuseArg InputUnhandled(const TensorIr& tensor);
  // An input an indexed op reads by index (Note [Indexed inputs], engine/trace/fuse_trace.h;
  // burn's TraceFuser::input_indexed): registered once, with no read op. nullopt when `tensor`
  // is already a normal input of the trace or produced by it. Once indexed, a tensor is never
  // read normally, written or viewed (Input, Output and the views refuse it).
  std::optional<FuseArg> InputIndexed(const TensorIr& tensor);
  bool IsIndexed(TensorId id) const;
  // Closes the current block (its reference becomes `shape_ref`) and opens a new one.
  void NextBlock(const Shape& shape_ref);
  // Hands the value of `tensor` in block `block` over to the current block (a MultiBlockLocal).
  // A value `block` itself received from an earlier block is passed on as it is, unless
  // `written_by_block`: then `block` copies it into a local and writes that (a reduce stage
  // reads its input from the block right before it, ReduceStage).
  // REQUIRES: block < num_previous_blocks().
  FuseArg BlockLocalInput(const TensorIr& tensor, uint32_t block, bool written_by_block = false);

  size_t num_previous_blocks() const { return previous_.size(); }
  // The latest closed block holding a value of `id` (produced, read or handed over there).
  std::optional<uint32_t> BlockHolding(TensorId id) const;
  // Whether the trace produces `id` (an op output or an unhandled output).
  bool Produces(TensorId id) const { return outputs_.Contains(id); }
  // Fused ops in all blocks (reads and writes excluded): the 64-op limit counts these.
  uint32_t num_ops_fused() const;
  // Bindings a kernel would need: 1 (metadata) + outputs written + inputs. May overestimate.
  uint32_t EstimateBindings() const;
  const Shape* current_block_shape() const { return &current_.shape_ref; }

  // The trace, with the current block's reference set to `shape_ref`.
  FuseTrace Finish(const Shape& shape_ref) const;

 private:
  struct TensorOps {
    TensorId id;
    std::vector<FuseOp> ops;
  };
  struct Block {
    Shape shape_ref;
    std::vector<FuseOp> ops;
    std::vector<TensorOps> reads;
    std::vector<TensorOps> writes;  // to multi-block variables only, until built
    std::vector<std::pair<TensorId, FuseArg>> locals;
    std::vector<std::pair<TensorId, FuseArg>> local_inputs;  // from earlier blocks
    RegisteredTensors outputs;                               // declared in this block
    uint32_t num_locals = 0;
    uint32_t num_handed_over = 0;
  };

  Block current_;
  std::vector<Block> previous_;
  RegisteredTensors inputs_;
  RegisteredTensors outputs_;  // every declared output, latest status
  RegisteredTensors buffers_;  // outputs re-read by a later block from global memory
  std::vector<FuseScalar> scalars_;
  std::vector<FuseView> views_;
  std::vector<TensorId> dropped_;
  std::vector<TensorId> inputs_unhandled_;
  std::vector<std::pair<TensorId, FuseArg>> indexed_;

  static std::optional<FuseArg> FindLocal(const Block& block, TensorId id);
  static std::vector<FuseOp>& OpsFor(std::vector<TensorOps>& list, TensorId id);
  FuseArg NewLocal(Block& block, const TensorIr& tensor);
  std::optional<uint32_t> ViewableInput(const TensorIr& original);
  // The outputs of `block` that must be written to global memory (burn's
  // FuseBlockBuilder::tensor_writes: latest status not ReadWrite, or a buffer a later block
  // re-reads, written once).
  std::vector<TensorIr> TensorWrites(const Block& block, std::vector<TensorId>& buffers) const;
  FuseBlock Build(const Block& block, RegisteredTensors& outputs,
                  std::vector<TensorId>& buffers) const;
};

}  // namespace ember

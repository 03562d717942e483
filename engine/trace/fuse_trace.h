// The fused-trace IR: what a fuser builds and a backend runs (burn's FuseTrace, FuseBlock,
// FuseOp and FuseArg, in burn-cubecl-fusion's engine/trace/base.rs, engine/trace/block.rs and
// engine/codegen/ir.rs). Plain data in relative ids and relative shape ids: the plan database
// serializes it, the CPU backend interprets it (engine/runtime/cpu/fused_*.cpp) and the CUDA
// code generator reads it.
//
// Note [Fused trace]
// A trace is a list of blocks over shared resources. One block is one loop over the positions
// of its reference shape (`shape_ref`, relative ids, 0 = size 1); for each position it runs
//   reads  : Assign(Input | view of an input | Output buffer -> Local), one per read tensor;
//   ops    : the fused ops, in the order the fuser accepted them, over locals, scalars and
//            literals;
//   writes : Assign(Local -> Output) for each tensor still needed after the kernel, and
//            Assign(Local -> MultiBlockLocal) for values a later block takes over.
// `resources.inputs` are the global tensors read (relative TensorIr, status = the status of
// its last use inside the trace: ReadWrite means the kernel may reuse its buffer);
// `resources.outputs` are the tensors written (after FuseTraceBuilder::Finish, only those).
// Scalars are placeholders bound at launch (`scalars[k].placeholder` indexes the context's
// scalar values), so one trace serves every value of them; literals (the 0 and 1 of
// Zeros/Ones) are constants. Inputs broadcast to the block's reference shape by numpy rules
// over relative shape ids; an output whose shape has size 1 where the reference is bigger
// is written from every position that maps to it (they all compute the same value).
//
// Value semantics (what every backend must compute, matched bit for bit by the CPU
// interpreter against the unfused CPU kernels):
//   * a local holds its value in the domain of the local's dtype: f32 for f16/bf16/f32, i64
//     for i32/i64/bool (Note [CPU compute domains], engine/runtime/cpu/convert.h);
//   * each op computes in the domain of its compute type, as the unfused kernel would: the
//     lhs's dtype for binary ops and comparisons, the input's for Abs and Neg, the output's
//     for Clamp and ConditionalAssign, always f32 for the float math ops (Exp, Log, ...) and
//     always i64 for the bitwise ops (Note [Bitwise ops], engine/runtime/cpu/elementwise.cpp);
//     Assign converts by the load/store rules of that note (a cast);
//   * each op's result is rounded to its output local's dtype before it is used again
//     (f16/bf16 round to nearest even, ints wrap or saturate as a store would, bool is != 0),
//     so a fused chain computes exactly what the same ops unfused store and reload.
// Multi-block traces (Reduce, ReduceBroadcasted, Matmul) add `stages`: a reduce between two
// blocks, or a matmul feeding its epilogue block; see ReduceStage and MatmulStage.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <ember/dtype.h>

#include "engine/ir/op_kind.h"
#include "engine/ir/tensor_ir.h"

namespace ember {

// What a fused trace computes per element, generated from engine/ir/op_list.def
// (EMBER_FUSE_OP), where each kind's stored number (plan database) and form are written.
enum class FuseOpKind : uint8_t {
#define EMBER_FUSE_OP(name, number, form) k##name = number,
#include "engine/ir/op_list.def"
};

inline constexpr int kNumFuseOpKinds = 0
#define EMBER_FUSE_OP(name, number, form) +1
#include "engine/ir/op_list.def"
    ;

// Unary (Assign and the math ops), Binary, Comparison (two operands, a bool result), Ternary
// (Clamp and ConditionalAssign), or Indexed (Gather, Select, Cat: Note [Indexed inputs]).
enum class FuseOpForm : uint8_t { kUnary, kBinary, kComparison, kTernary, kIndexed };

FuseOpForm FormOf(FuseOpKind kind);
std::string_view FuseOpKindName(FuseOpKind kind);
// Number of operands in FuseOp::args (1 for unary and Assign, 2 for binary and comparisons, 3
// for Clamp and ConditionalAssign, 0 for the indexed ops, whose operands are FuseOp::indexed).
int FuseOpArity(FuseOpKind kind);

// op_list.def's Fused column: whether `kind` always becomes one fused op in a fused trace, and
// which.
bool HasFusedKind(OpKind kind);
// REQUIRES: HasFusedKind(kind).
FuseOpKind FusedKindOf(OpKind kind);

enum class FuseArgKind : uint8_t {
  kInput = 0,            // resources.inputs[pos]
  kOutput = 1,           // resources.outputs[pos] (a write; or a re-read of a buffer a
                         // previous block wrote, resources.buffers)
  kLocal = 2,            // the block's local number pos
  kMultiBlockLocal = 3,  // value number pos handed over by block `block`
  kScalar = 4,           // resources.scalars[pos], bound at launch
  kLiteral = 5,          // the constant `pos` (0 or 1)
  kInputView = 6,        // resources.views[pos]: an input read through a reshape/swap-dims
};

struct FuseArg {
  FuseArgKind kind = FuseArgKind::kLocal;
  DType dtype = DType::kF32;
  uint32_t pos = 0;
  uint32_t block = 0;  // kMultiBlockLocal only

  bool operator==(const FuseArg&) const = default;
};

// Note [Indexed inputs]
// Gather, Select and Cat fuse as burn's do (burn-cubecl-fusion's TraceFuser::input_indexed and
// FuseOp::Gather/Select/Concat): the tensors they read are global inputs the kernel addresses
// itself, by index, never read position by position into a local. Such an input (an
// "indexed" input) is recorded in resources.inputs with no read op; an indexed op's operands
// are kInput args in `indexed`: {tensor, indices} for Gather and Select, every input in order
// for Cat; `dim` is the dim they index along (0 <= dim < the output's rank). At a position p
// of the block (the op's output shape, which is the reference's):
//   Gather: tensor[p with p[dim] := indices[p]]            (indices has the output's shape)
//   Select: tensor[p with p[dim] := indices[p[dim]]]       (indices is one-dimensional)
//   Cat:    inputs[t][p with p[dim] := p[dim] - start_t]   (start_t: the sizes along dim of the
//                                                           inputs before t)
// An index outside [0, tensor's size along dim), negative included, reads 0, as the unfused
// kernels do (docs/API.md). An indexed input is never also read normally, written, viewed, or
// reused in place, and it is never vectorised; a block with an indexed op keeps a contiguous
// output layout (burn's may_permute_layout). The op's output shape is the block's reference:
// the fuser takes an indexed op only when its output is the reference, and grows a block that
// holds one no further (burn would, and its kernels then read indices at positions past the
// op's output: docs/FIDELITY.md). A trace's structure is checked by CheckFuseTrace
// (trace_state.h); the tensors a launch binds, by IndexedLaunchProblem (indexed_launch.h) on
// both backends.
struct FuseOp {
  FuseOpKind kind = FuseOpKind::kAssign;
  FuseArg args[3];
  FuseArg out;
  // Indexed ops only (FormOf(kind) == kIndexed): Note [Indexed inputs].
  int64_t dim = 0;
  std::vector<FuseArg> indexed;

  bool operator==(const FuseOp& o) const;
};

// An input read through a view fused into the kernel (burn's TensorView, in burn-cubecl-fusion's
// engine/trace/base.rs): the original is resources.inputs[input]; the view's relative shape is
// `shape`.
struct FuseView {
  enum class Kind : uint8_t { kReshape = 0, kSwapDims = 1 };
  Kind kind = Kind::kReshape;
  uint32_t input = 0;
  TensorId view_id = 0;        // the relative id of the view tensor
  Shape shape;                 // relative shape ids of the view
  int64_t dim1 = 0, dim2 = 0;  // kSwapDims

  bool operator==(const FuseView&) const = default;
};

struct FuseScalar {
  DType dtype = DType::kF32;  // the type the kernel reads it as
  uint32_t placeholder = 0;   // index into the context's scalar values

  bool operator==(const FuseScalar&) const = default;
};

struct FuseBlock {
  Shape shape_ref;
  std::vector<FuseOp> reads;
  std::vector<FuseOp> ops;
  std::vector<FuseOp> writes;
  uint32_t num_locals = 0;

  bool operator==(const FuseBlock&) const = default;
};

// Calls fn(arg, is_output) for every operand and then the output of every op of `block`, in
// the order its kernel runs them: the reads, the ops, the writes. An indexed op's operands
// (FuseOp::indexed) are not among them: they are not read at the block's positions
// (ForEachIndexed visits them).
template <typename Fn>
void ForEachArg(const FuseBlock& block, Fn&& fn) {
  for (const std::vector<FuseOp>* ops : {&block.reads, &block.ops, &block.writes}) {
    for (const FuseOp& op : *ops) {
      for (int k = 0; k < FuseOpArity(op.kind); ++k) fn(op.args[k], false);
      fn(op.out, true);
    }
  }
}

// Calls fn(op, arg) for every operand of every indexed op of `block` (Note [Indexed inputs]).
template <typename Fn>
void ForEachIndexed(const FuseBlock& block, Fn&& fn) {
  for (const FuseOp& op : block.ops) {
    for (const FuseArg& arg : op.indexed) fn(op, arg);
  }
}

struct FuseResources {
  std::vector<TensorIr> inputs;
  std::vector<TensorIr> outputs;
  std::vector<FuseScalar> scalars;
  std::vector<FuseView> views;
  std::vector<TensorId> dropped;  // tensors the trace drops (their handles are removed)

  bool operator==(const FuseResources&) const = default;
};

// A reduce between block `from` and block `from + 1` (Reduce and ReduceBroadcasted traces):
// for every position of block from+1 (the reduced shape: the input's shape with `axis` of size
// 1), the values of `input` (a MultiBlockLocal of block `from`) along `axis` are combined into
// the block from+1 local `output`, which that block reads like any other local. Accumulation
// follows the unfused kernels (engine/runtime/cpu/kernels.h, ReduceDim): floats in double,
// ints in wrapping i64; ArgMax/ArgMin give the first extreme's index.
struct ReduceStage {
  enum class Kind : uint8_t {
    kSum = 0,
    kMean = 1,
    kProd = 2,
    kMax = 3,
    kMin = 4,
    kArgMax = 5,
    kArgMin = 6
  };
  Kind kind = Kind::kSum;
  uint32_t from = 0;
  int64_t axis = 0;
  FuseArg input;            // kMultiBlockLocal of block `from`
  FuseArg output;           // kLocal of block from+1
  DType acc = DType::kF32;  // accumulator type (burn: widened for Sum/Mean/Prod)

  bool operator==(const ReduceStage&) const = default;
};

// A matmul feeding block 0 (the epilogue): resources.inputs[lhs] x resources.inputs[rhs]
// (unhandled inputs: no read op refers to them) gives the block-0 local `output`, at every
// position of block 0's reference (the matmul's output shape).
struct MatmulStage {
  uint32_t lhs = 0;
  uint32_t rhs = 0;
  FuseArg output;

  bool operator==(const MatmulStage&) const = default;
};

struct FuseTrace {
  std::vector<FuseBlock> blocks;
  FuseResources resources;
  std::vector<ReduceStage> reduces;   // ordered by `from`
  std::optional<MatmulStage> matmul;  // Matmul traces only

  bool operator==(const FuseTrace&) const = default;
};

// The highest relative shape id the trace refers to (the plan safety check of
// OperationQueue::Execute, engine/stream/operation_queue.h: a plan that names a shape id its own
// ops did not assign runs its ops unfused).
std::optional<size_t> MaxRelativeShapeId(const FuseTrace& trace);

// A multi-line listing for logs, tests and `ember-plans show`.
std::string FormatFuseTrace(const FuseTrace& trace);

}  // namespace ember

// TraceOpFuser: the elementwise fusion engine every fuser builds on (burn's TraceOperationFuser +
// TryTraceFuser, burn-cubecl-fusion's engine/fuser.rs). It translates relative ops into fused ops
// on a TraceBuilder, checks shapes (broadcasting on relative shape ids, burn's
// output_is_compatible), limits (bindings and 64 fused ops, burn's TryTraceFuser) and keeps the
// Scoring.
//
// Accepted ops (burn's TraceOperationFuser::fuse, mapped onto ember's op list): every op with a
// fused op (the Fused column of engine/ir/op_list.def: arithmetic, math and comparisons with
// their scalar forms, Clamp, MaskWhere, MaskFill, Full, Zeros, Ones), Cast as burn's conversions
// allow it (CastIsFusable below), Reshape and SwapDims (as views of inputs already read in the
// kernel), Gather, Select and Cat (as indexed inputs, Note [Indexed inputs] in
// engine/trace/fuse_trace.h: burn's input_indexed), and Drop (not as the first op). Any other op
// closes the fuser. One knowing difference from burn (docs/FIDELITY.md lists every one):
//   * Neg is accepted (as FuseOp Neg). burn never sees a Neg op - its frontend emits
//     MulScalar(-1) - so fusing it keeps ember's decisions equal to burn's for the same program.
//
// A rejected op closes the fuser for good (until Reset). Every op but the first is tried on a
// copy of the builder, kept only if it succeeds within the limits, and the reference shape is
// put back, so a rejection leaves the trace as it was (unlike burn, which keeps a reference
// grown by the rejected op's output).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "engine/fuse/fuser.h"
#include "engine/fuse/scoring.h"
#include "engine/fuse/trace_builder.h"

namespace ember {

// Whether a Cast from `from` to `to` fuses. ember has one Cast where burn has a conversion per
// pair of families, and burn's fuser takes some and not others: the cast within a family
// (BaseFloat/BaseInt/BaseBool::Cast, float precision or int width) and Int::IntoFloat fuse;
// Float::IntoInt is not fused, and every Bool op (Bool::IntoFloat, Bool::IntoInt) closes the
// fuser. A cast to bool has no burn conversion (burn compares instead) and is not fused either.
bool CastIsFusable(DType from, DType to);

struct FuseSettings {
  bool broadcast = true;             // an op's output may be smaller than the reference
  bool output_shape_updates = true;  // ... or larger, growing the reference
};

class TraceOpFuser {
 public:
  static constexpr uint32_t kMaxOps = 64;

  TraceOpFuser(uint32_t max_bindings, FuseSettings settings);

  // Fuses `op` or closes. Returns whether it was fused.
  bool Fuse(const OperationIr& op);
  // Whether Fuse(op) would fuse it (tried on a copy).
  bool CanFuse(const OperationIr& op) const;
  void Reset();
  void Close() { status_ = FuserStatus::kClosed; }

  FuserStatus status() const { return status_; }
  size_t len() const { return num_ops_; }
  // ready when at least one op is fused; the score of the trace finished now.
  FuserProperties properties() const;
  uint64_t Score() const { return scoring_.Evaluate(Finish()); }
  FuseTrace Finish() const { return builder_.Finish(current_output_shape_); }

  // For the reduce and matmul fusers (reduce_fuser.h, matmul_fuser.h): operands their own
  // algorithm reads or writes.
  FuseArg InputUnhandled(const TensorIr& tensor) { return builder_.InputUnhandled(tensor); }
  // Declares `tensor` as produced by the kernel itself; the larger shape (by the sum of its
  // relative ids, burn's heuristic) becomes the reference.
  FuseArg OutputUnhandled(const TensorIr& tensor);
  // Closes the current block and opens one with `settings`; `tensor` (a value of the closed
  // block) becomes readable in the new one. Returns its MultiBlockLocal.
  FuseArg NextBlock(const TensorIr& tensor, FuseSettings settings);
  // Closes the current block and opens one with `settings`, handing nothing over.
  void NextBlock(FuseSettings settings);
  // Makes the value of `tensor` held by closed block `block` readable in the current block.
  FuseArg BlockLocalInput(const TensorIr& tensor, uint32_t block) {
    return builder_.BlockLocalInput(tensor, block);
  }
  const Shape& current_output_shape() const { return current_output_shape_; }
  size_t num_previous_blocks() const { return builder_.num_previous_blocks(); }
  uint32_t num_views() const { return num_views_; }
  TraceBuilder& builder() { return builder_; }

 private:
  TraceBuilder builder_;
  Scoring scoring_;
  FuseSettings settings_;
  Shape current_output_shape_;
  // The current block holds an indexed op, whose output shape is then the block's reference for
  // good (Note [Indexed inputs], engine/trace/fuse_trace.h).
  bool indexed_block_ = false;
  FuserStatus status_ = FuserStatus::kOpen;
  size_t num_ops_ = 0;
  uint32_t num_views_ = 0;
  uint32_t max_bindings_;
  bool added_ops_ = false;

  // Returns the reason it cannot fuse `op`, or an empty view when it fused it.
  std::string_view TryFuse(const OperationIr& op);
  // Runs `add` on a copy of the builder and keeps the copy if it succeeded within the limits.
  bool Transaction(const std::function<bool(TraceBuilder&)>& add);
  bool OutputIsCompatible(const TensorIr& out);
  bool FuseUnary(FuseOpKind kind, const TensorIr& input, const TensorIr& out);
  bool FuseBinary(FuseOpKind kind, const OperationIr& op);
  bool FuseScalar(FuseOpKind kind, const OperationIr& op);
};

}  // namespace ember

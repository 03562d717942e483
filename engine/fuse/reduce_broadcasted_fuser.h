// ReduceBroadcastedFuser: softmax- and layernorm-shaped chains over the last axis as one
// kernel (burn's ReduceBroadcastedFuser, burn-cubecl-fusion's
// optim/reduce_broadcasted/fuser/base.rs and fuser/block.rs):
//
//   (elementwise)* -> reduce -> (per-row ops)* -> (elementwise on rows)* -> reduce -> ...
//
// Decisions follow burn: the chain is cut into ReduceFuser blocks; an op the last block refuses
// opens a new block when that block holds a reduce and a fresh ReduceFuser would take the op as
// a reduce of the same input shape and axis, or as an elementwise op of that input shape (the
// "broadcast back"); anything else closes. The first reduce must be on the last axis (else
// the fuser aborts). Every op is first tried on a copy, and an op after which the single-kernel
// trace would not cover every op closes the fuser (the consistency check). Ready once closed
// over a reduce or with several blocks, and every block ready; the score is the sum of the
// blocks' ReduceFuser scores.
//
// The single-kernel trace (what runs) replays the blocks into one TraceOpFuser: one block per
// stretch of ops, a ReduceStage between a reduce's input block and its per-row block. Unlike
// burn, which re-reads full-row intermediates from global buffers, every value a later block
// reads from an earlier one is handed over as a MultiBlockLocal (the CPU keeps a row's values
// in cache-sized scratch); the decisions and scores are unaffected.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "engine/fuse/fuser.h"
#include "engine/fuse/reduce_fuser.h"

namespace ember {

class ReduceBroadcastedFuser final : public OperationFuser {
 public:
  static constexpr std::string_view kName = "ReduceBroadcasted";
  // What the environment fingerprint records for it (Note [Environment fingerprint]): raised
  // whenever what it accepts or builds changes, so that no plan found by the old rules is
  // served. 2: burn's conversion rule for Cast (CastIsFusable, trace_op_fuser.h). 3: Gather,
  // Select and Cat as indexed inputs (Note [Indexed inputs], engine/trace/fuse_trace.h).
  static constexpr uint32_t kVersion = 3;

  explicit ReduceBroadcastedFuser(uint32_t max_bindings);

  void Fuse(const OperationIr& op) override;
  std::shared_ptr<Optimization> Finish() override;
  void Reset() override;
  FuserStatus status() const override;
  FuserProperties properties() const override;
  size_t len() const override { return num_ops_; }
  std::unique_ptr<OperationFuser> Clone() const override;

 private:
  enum class State { kStarting, kInit, kClosed, kAbort };
  enum class Analysis { kAccept, kRefuse, kNewBlock };
  struct Block {
    ReduceFuser fuser;
    std::vector<OperationIr> ops;
    std::optional<size_t> reduce_index;  // position of the reduce in `ops`; none: elementwise
  };
  struct FullTrace {
    FuseTrace trace;
    size_t num_ops_fused = 0;  // ops the single kernel covers (reduces included)
    size_t num_ops = 0;        // ops the blocks cover
  };

  uint32_t max_bindings_;
  ReduceFuser default_;
  std::vector<Block> blocks_;
  size_t num_ops_ = 0;
  State state_ = State::kStarting;
  Shape init_shape_;
  int64_t init_axis_ = 0;

  // *taken: the fuser that took `op` (the block's, for kAccept; a fresh one, for kNewBlock).
  Analysis Analyze(const Block& block, const OperationIr& op,
                   std::optional<ReduceFuser>* taken) const;
  void FuseNoCheck(const OperationIr& op);
  // properties().ready without the scores.
  bool Ready() const;
  // The counts always; the trace only `with_trace` (building it is most of the cost).
  FullTrace BuildFullTrace(bool with_trace) const;
  bool IsConsistent() const;
};

}  // namespace ember

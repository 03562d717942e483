// Block: a group of a stream's relative ops that share tensors, with its own set of fusers
// (burn's search/block.rs). The StreamOptimizer puts every registered op into the blocks it
// shares a tensor id with; merging (engine/search/merging.h) combines blocks; the
// BlocksOptimizer asks each block for its best strategy.
//
// A block's ops are fed to its fusers in registration order, which is stream order except
// after a merge (the other block's ops are appended after this block's, keeping their stream
// positions). `ordering` holds the stream position of each op, parallel to `operations`.
//
// The data-flow sets follow burn's register_op: `produced` = outputs of the block's ops,
// `read` = inputs that no op of the block produces, `freed` = ReadWrite inputs (even when
// produced inside). Flow() gives them as a DataFlow whose position is start_pos, for Dag.
//
// Copying a Block deep-copies its fusers (burn clones blocks before every merge attempt).
// Single-threaded: one block belongs to one search.
//
// Note [Head settling]
// burn 0.22 (#5622, "settle only the unfusable head of a block") changed what a block yields
// when none of its fusers has a plan (no ready fuser with a score > 0). Before, the whole block
// ran op by op; a block is a dependency chain, so ops after an unfusable head that could have
// fused were run one at a time too (the shape of backward passes: a lone elementwise op, then a
// view of its own output, a convolution backward or a reduction). Now only the block's *head*
// is settled as unfused, in registration order:
//   1. every op up to and including the one at which the last fuser closed: a fuser that
//      closes on op k cannot take op k, so once every fuser has closed, none of them can use
//      ops 0..k any more (burn's operations_settled_once_every_builder_closed);
//   2. then, one by one, each following op on which no fresh fuser would start (burn's
//      operations_settled_while_no_builder_would_start). "Would start" is decided by feeding
//      the op alone to a fresh copy of every fuser (the block's own fuser cloned and Reset):
//      it starts when that copy stays Open or becomes ready with a score > 0. The first op on
//      which some fuser would start ends the head.
// The rest of the block is left uncovered: the BlocksOptimizer turns those positions into
// holes (re-searched right away with fresh fusers) or into the trailing tail (left queued for
// the next round), so coverage stays a prefix of the segment.
// Cases the rule must still answer:
//   * a fuser that never closed (still Open, e.g. a forced optimize at a sync) gives no head
//     boundary: the whole block is settled, as before #5622;
//   * a fuser that was already Closed before the first op contributes nothing to step 1;
//   * the head always holds at least one op, so a round always makes progress (with no
//     fusers at all, step 2 takes every op and the block runs whole, as in burn).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "engine/fuse/fuser.h"
#include "engine/ir/operation_ir.h"
#include "engine/search/graph/node.h"
#include "engine/search/graph/subgraph.h"
#include "engine/search/strategy.h"

namespace ember {

enum class RegistrationResult { kAccepted, kNotPartOfTheGraph };

class Block {
 public:
  // The fusers are cloned from `prototypes` (which are never fed).
  explicit Block(std::span<const std::unique_ptr<OperationFuser>> prototypes);
  Block(const Block& other);
  Block& operator=(const Block& other);
  Block(Block&&) noexcept = default;
  Block& operator=(Block&&) noexcept = default;
  ~Block();

  // Adds `op` at stream position `position` when the block is empty, shares a tensor id with
  // it, or `force` is set; every fuser sees the op.
  RegistrationResult Register(const OperationIr& op, size_t position, bool force);

  // Some fuser is still Open.
  bool StillOptimizing() const;
  // Some fuser is ready.
  bool HasReadyOptimization() const;

  // The block's strategy: the ready fuser with the strictly highest score > 0 (ties: the
  // earlier fuser) over its first len() ops in registration order; otherwise Operations over
  // the settled head (Note [Head settling]). Finishes a fuser, so call once.
  BlockOptimization Optimize();

  // The number of ops (in registration order) Optimize settles as unfused when no fuser has
  // a plan (Note [Head settling]). At least 1. REQUIRES: at least one op.
  size_t SettledHeadLength() const;

  // Whether running this block's ops and then `other`'s, in registration order, keeps every
  // tensor alive while it is read (IsValidExecutionOrder).
  bool CanAppend(const Block& other) const;

  // Appends `other`'s ops (forced, keeping their positions) and says whether the merged block
  // is worth keeping: some fuser still Open, or a ready fusion that neither side had before.
  // Mutates this block even when it returns false (merge a copy).
  bool Merge(const Block& other);

  // Whether `op` references a tensor id of this block.
  bool ContainsTensors(const OperationIr& op) const;

  DataFlow Flow() const;

  const SubGraph& constituents() const { return constituents_; }
  void SeedConstituent(size_t index) { constituents_ = SubGraph::Single(index); }

  const std::vector<OperationIr>& operations() const { return operations_; }
  const std::vector<size_t>& ordering() const { return ordering_; }
  size_t start_pos() const { return start_pos_; }
  size_t end_pos() const { return end_pos_; }

  // burn's PartialEq: the same set of positions.
  bool operator==(const Block& other) const;

  // Sorts by start_pos (stable, so equal starts keep their order).
  static void Sort(std::vector<Block>& blocks);

 private:
  void RegisterOp(const OperationIr& op, size_t position);
  std::optional<size_t> BestFuserIndex() const;
  bool AnyFreshFuserWouldStart(const OperationIr& op) const;

  std::vector<std::unique_ptr<OperationFuser>> fusers_;
  // For each fuser, the number of ops the block had when it was first seen Closed (1 + the
  // index of the op it closed on; 0 when it was Closed before any op); nullopt while Open.
  std::vector<std::optional<size_t>> closed_after_;
  std::vector<OperationIr> operations_;
  std::vector<size_t> ordering_;
  std::set<TensorId> ids_;
  std::set<TensorId> produced_;
  std::set<TensorId> read_;
  std::set<TensorId> freed_;
  SubGraph constituents_;
  size_t start_pos_ = static_cast<size_t>(-1);
  size_t end_pos_ = 0;
};

// Replaces every position p of `optimization` (its ordering and every leaf) by mapping[p]:
// local hole positions to stream positions (burn's BlockOptimization::map_ordering).
void MapOrdering(BlockOptimization& optimization, std::span<const size_t> mapping);

// The DataFlows of the given blocks, in order (for Dag).
std::vector<DataFlow> BlockFlows(std::span<const Block> blocks);
std::vector<DataFlow> BlockFlows(std::span<const Block* const> blocks);

}  // namespace ember

#include "engine/search/stream_optimizer.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "engine/core/check.h"
#include "engine/core/log.h"
#include "engine/search/block.h"
#include "engine/search/blocks_optimizer.h"
#include "engine/search/graph/dag.h"
#include "engine/search/merging.h"
#include "engine/search/order_repair.h"

namespace ember {

namespace {

enum class MergeStep { kFull, kPartial, kFail, kNoNeed };

}  // namespace

// The optimizer's state and, as static members taking it, burn's private helpers.
struct StreamOptimizer::State {
  std::vector<std::unique_ptr<OperationFuser>> fusers;  // prototypes, never fed
  std::vector<Block> blocks;                            // sorted by start_pos after merges
  size_t length = 0;                                    // the next op's position
  bool stopped = false;
  std::optional<size_t> max_blocks;

  static void OnNewBlock(State& s, const OperationIr& op) {
    Block block(s.fusers);
    block.Register(op, s.length, /*force=*/true);
    s.blocks.push_back(std::move(block));
    LogFusion(LogLevel::kFull, [&] {
      return fmt::format("[stream] op {} {} → new block (total: {})", s.length, OpName(op),
                         s.blocks.size());
    });
  }

  static void LogAccepted(const State& s, const OperationIr& op, size_t added) {
    LogFusion(LogLevel::kFull, [&] {
      return fmt::format("[stream] op {} {} → accepted in {}/{} block(s)", s.length, OpName(op),
                         added, s.blocks.size());
    });
  }

  static size_t RegisterInner(State& s, const OperationIr& op, bool force) {
    size_t added = 0;
    for (Block& block : s.blocks) {
      if (block.Register(op, s.length, force) == RegistrationResult::kAccepted) ++added;
    }
    return added;
  }

  // Merges the blocks `op` touches (or all of them), guarded by the Dag of all blocks: a
  // block between two candidates must still block their merge.
  static MergeStep MergeBlocksFor(State& s, const OperationIr& op, bool all) {
    std::vector<size_t> candidates;
    for (size_t i = 0; i < s.blocks.size(); ++i) {
      if (all || s.blocks[i].ContainsTensors(op)) candidates.push_back(i);
    }
    if (candidates.size() <= 1) return MergeStep::kNoNeed;

    for (size_t i = 0; i < s.blocks.size(); ++i) s.blocks[i].SeedConstituent(i);
    const Reachability guard = Dag(BlockFlows(std::span<const Block>(s.blocks))).Reachability();
    std::vector<const Block*> refs;
    for (size_t i : candidates) refs.push_back(&s.blocks[i]);
    MergeBlocksResult result = MergeBlocks(refs, /*sorted=*/false, guard);
    if (result.kind == MergeBlocksResult::Kind::kFail) return MergeStep::kFail;

    for (size_t k = candidates.size(); k > 0; --k) {
      s.blocks.erase(s.blocks.begin() + static_cast<ptrdiff_t>(candidates[k - 1]));
    }
    for (Block& block : result.merged) s.blocks.push_back(std::move(block));
    for (Block& block : result.failed) s.blocks.push_back(std::move(block));
    Block::Sort(s.blocks);
    return result.kind == MergeBlocksResult::Kind::kFull ? MergeStep::kFull : MergeStep::kPartial;
  }

  // `op` links blocks that could not merge: it gets its own block, which depends on them.
  static void OnDependentOp(State& s, const OperationIr& op) {
    if (s.max_blocks && s.blocks.size() >= *s.max_blocks) {
      MergeBlocksFor(s, op, /*all=*/true);
      if (s.blocks.size() >= *s.max_blocks) {
        LogFusion(LogLevel::kMedium, [&] {
          return fmt::format("[stream] stopped (max_blocks={} reached on dependency) at op {} ({})",
                             *s.max_blocks, s.length, OpName(op));
        });
        s.stopped = true;
        return;
      }
    }
    Block block(s.fusers);
    block.Register(op, s.length, /*force=*/true);
    s.blocks.push_back(std::move(block));
    // A new block only reads from the others, so a cycle needs an op that re-produces or reads
    // what a block frees; checked anyway.
    if (!Dag(BlockFlows(std::span<const Block>(s.blocks))).IsAcyclic()) {
      s.blocks.pop_back();
      LogFusion(LogLevel::kMedium, [&] {
        return fmt::format("[stream] stopped (unresolvable dependency cycle) at op {} ({})",
                           s.length, OpName(op));
      });
      s.stopped = true;
      return;
    }
    LogFusion(LogLevel::kFull, [&] {
      return fmt::format("[stream] op {} {} → new dependent block (total: {})", s.length,
                         OpName(op), s.blocks.size());
    });
  }

  // Returns false when the cap is reached and force-merging freed no slot.
  static bool RegisterMaxBlock(State& s, const OperationIr& op, size_t max_blocks) {
    if (max_blocks == 1) {
      RegisterInner(s, op, /*force=*/true);
      return true;
    }
    const size_t added = RegisterInner(s, op, /*force=*/false);
    if (added > 0) {
      LogAccepted(s, op, added);
      return true;
    }
    if (s.blocks.size() < max_blocks) {
      OnNewBlock(s, op);
      return true;
    }
    MergeBlocksFor(s, op, /*all=*/true);
    if (s.blocks.size() >= max_blocks) return false;
    const size_t added_after = RegisterInner(s, op, /*force=*/false);
    if (added_after == 0) {
      OnNewBlock(s, op);
    } else {
      LogAccepted(s, op, added_after);
    }
    return true;
  }

  static void Register(State& s, const OperationIr& op) {
    if (s.stopped) {
      LogFusion(LogLevel::kFull, [&] {
        return fmt::format("[stream] {} dropped (optimizer stopped at op {})", OpName(op),
                           s.length);
      });
      return;
    }
    if (s.blocks.empty()) {
      OnNewBlock(s, op);
      ++s.length;
      return;
    }
    const MergeStep step = MergeBlocksFor(s, op, /*all=*/false);
    if (step == MergeStep::kFail || step == MergeStep::kPartial) {
      OnDependentOp(s, op);
      if (!s.stopped) ++s.length;
      return;
    }
    if (s.max_blocks) {
      if (RegisterMaxBlock(s, op, *s.max_blocks)) {
        ++s.length;
        return;
      }
      LogFusion(LogLevel::kMedium, [&] {
        return fmt::format("[stream] stopped (max_blocks={} reached) at op {} ({})", *s.max_blocks,
                           s.length, OpName(op));
      });
      s.stopped = true;
      return;
    }
    const size_t added = RegisterInner(s, op, /*force=*/false);
    if (added == 0) {
      OnNewBlock(s, op);
    } else {
      LogAccepted(s, op, added);
    }
    ++s.length;
  }

  // burn's new_empty_search: the prototypes cloned and reset, the same cap.
  static StreamOptimizer NewEmptySearch(const State& s) {
    std::vector<std::unique_ptr<OperationFuser>> fusers;
    for (const auto& fuser : s.fusers) {
      fusers.push_back(fuser->Clone());
      fusers.back()->Reset();
    }
    return StreamOptimizer(std::move(fusers), s.max_blocks);
  }
};

StreamOptimizer::StreamOptimizer(std::vector<std::unique_ptr<OperationFuser>> fusers,
                                 std::optional<size_t> max_blocks)
    : state_(std::make_unique<State>()) {
  state_->fusers = std::move(fusers);
  // Fresh once here: blocks clone the prototypes and only the clones are ever fed, so Reset
  // need not touch them (resetting a ReduceBroadcasted fuser rebuilds six TraceOpFusers, and
  // a reset follows every executed segment, hit or not).
  for (auto& fuser : state_->fusers) fuser->Reset();
  state_->max_blocks = max_blocks;
}

StreamOptimizer::~StreamOptimizer() = default;
StreamOptimizer::StreamOptimizer(StreamOptimizer&&) noexcept = default;
StreamOptimizer& StreamOptimizer::operator=(StreamOptimizer&&) noexcept = default;

void StreamOptimizer::Register(const OperationIr& op) { State::Register(*state_, op); }

bool StreamOptimizer::StillOptimizing() const {
  if (state_->stopped) return false;
  if (state_->blocks.empty()) return true;
  return std::any_of(state_->blocks.begin(), state_->blocks.end(),
                     [](const Block& block) { return block.StillOptimizing(); });
}

BlockOptimization StreamOptimizer::Optimize(std::span<const OperationIr> ops) const {
  EMBER_CHECK(!state_->blocks.empty(), "Optimize before any op was registered");
  BlocksOptimizerResult result = BlocksOptimizer(state_->blocks).Optimize();
  if (result.full) return RepairOrder(std::move(result.optimization), ops);

  // Holes: searched again with fresh fusers, at local positions 0..holes.size(), then mapped
  // back. Each round covers a prefix of the holes; repair puts the chunks in order below.
  std::vector<ExecutionStrategy> strategies = std::move(result.strategies);
  std::vector<size_t> ordering = std::move(result.ordering);
  std::vector<size_t> holes = std::move(result.holes);
  while (!holes.empty()) {
    StreamOptimizer search = State::NewEmptySearch(*state_);
    std::vector<OperationIr> hole_ops;
    hole_ops.reserve(holes.size());
    for (size_t position : holes) {
      EMBER_CHECK(position < ops.size(), "hole {} outside a {}-op segment", position, ops.size());
      hole_ops.push_back(ops[position]);
      search.Register(ops[position]);
    }
    BlockOptimization filled = search.Optimize(hole_ops);
    MapOrdering(filled, holes);
    size_t consumed = filled.ordering.size();
    if (consumed == 0) {
      // A fuser whose optimization covers no op would make this loop spin; run the first
      // hole unfused instead (burn cannot get here with fusers whose len() >= 1).
      filled = BlockOptimization{.strategy = ExecutionStrategy::Operations({holes.front()}),
                                 .ordering = {holes.front()}};
      consumed = 1;
    }
    strategies.push_back(std::move(filled.strategy));
    ordering.insert(ordering.end(), filled.ordering.begin(), filled.ordering.end());
    holes.erase(holes.begin(), holes.begin() + static_cast<ptrdiff_t>(consumed));
  }
  return RepairOrder(
      BlockOptimization{.strategy = ExecutionStrategy::Composed(std::move(strategies)),
                        .ordering = std::move(ordering)},
      ops);
}

void StreamOptimizer::Reset() {
  state_->blocks.clear();
  state_->length = 0;
  state_->stopped = false;
}

bool StreamOptimizer::stopped() const { return state_->stopped; }
size_t StreamOptimizer::num_blocks() const { return state_->blocks.size(); }

}  // namespace ember

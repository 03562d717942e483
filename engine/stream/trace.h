// The fusion trace table (burn-fusion's stream/execution/trace.rs): what one execution
// of a strategy ran, block by block, as logged at LogLevel::kFull on every
// OperationQueue::ExecuteOptimization (cached plan, shape-check fallback and unfused run alike).
// `ember-plans show` prints stored plans with the same functions (tools/plans/show_command.cpp).
//
// A strategy flattens into TraceBlocks, one per leaf in execution order; each block holds the
// *global* ops at its leaf's positions, so the table shows real tensor ids and shapes:
//
//   ═══════════ … (table_width times; see Note [Trace table widths] in trace.cpp)
//   fusion trace (4 ops, 1 block)
//   idx  block                                     op                       inputs  …
//   ---  ----------------------------------------  -----------------------  ------  …
//   0    ▸ fused ElementWise (score=630, 4 ops)    NumericFloat::Mul        t1:f32[64,64], …
//   1                                              NumericFloat::MulScalar  t3:f32[64,64]  …
//
// `idx` counts rows across all blocks (it is not the queue position); the block cell is filled
// on a block's first row only. With no ops at all the table is `fusion block: <empty>`.
//
// Pure functions; callable from any thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/ir/operation_ir.h"
#include "engine/search/strategy.h"

namespace ember {

// One strategy leaf as it ran (burn's FusionBlock with its BlockKind).
struct TraceBlock {
  enum class Kind : uint8_t { kFused = 0, kUnfused = 1 };

  Kind kind = Kind::kUnfused;
  std::string name;              // kFused: the optimization's name() ("ElementWise")
  uint64_t score = 0;            // kFused: the score its fuser reported
  std::vector<OperationIr> ops;  // in execution order

  bool operator==(const TraceBlock&) const = default;
};

// Flattens `strategy` (through nested Composed) into one block per leaf, in execution order,
// copying the ops at each leaf's positions from `global_ops`.
// REQUIRES: every position of the strategy is < global_ops.size(); fused leaves have an
// optimization.
std::vector<TraceBlock> CollectTraceBlocks(const ExecutionStrategy& strategy,
                                           std::span<const OperationIr> global_ops);

// The block cell: `▸ fused {name} (score={score}, {n} op|ops)` or `▸ un-fused ({n} op|ops)`.
std::string FormatTraceBlockHeader(const TraceBlock& block);

// The table for `blocks`, without a trailing newline.
std::string FormatTraceTable(std::span<const TraceBlock> blocks);

// FormatTraceTable(CollectTraceBlocks(strategy, global_ops)): the message logged per execution.
std::string FormatExecutionTable(const ExecutionStrategy& strategy,
                                 std::span<const OperationIr> global_ops);

}  // namespace ember

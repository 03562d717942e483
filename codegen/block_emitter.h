// KernelContext: writes the statements of one kernel (Note [Kernel modes], kernel_source.h)
// while collecting its slots: the body of each block at a site (how many lanes, where the
// position comes from), the tensor pointers, the handover storage and the reduce
// accumulators. The lowering of a block follows the CPU interpreter's
// (engine/runtime/cpu/fused_program.cpp) step for step, so both compute the same values.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "codegen/kernel_plan.h"
#include "codegen/plan_trace.h"

namespace ember::codegen {

// Where a block body runs.
struct BlockSite {
  int lanes = 1;          // positions per body: pos, pos + 1, ... along the last dim
  std::string pos;        // the expression of the first position
  std::string row = "0";  // reduce modes: the position along the axis (shared memory, folds)
  std::string guard;      // non-empty: only threads where it holds store outputs
  int indent = 4;
};

class KernelContext {
 public:
  KernelContext(const FuseTrace& trace, const KernelSpec& spec);

  // "p.s[k]" for `slot` (added once).
  std::string S(const Slot& slot);
  const std::vector<Slot>& slots() const { return slots_; }

  // The body of block `b` at `site`.
  std::string Block(uint32_t b, const BlockSite& site);
  // Declarations of every tensor pointer the bodies used (call after the bodies).
  std::string Pointers();
  // kRow: the shared-memory arrays of full-block handovers, `rows` rows per thread block.
  std::string SharedArrays(int rows);
  // Per row or column: the variables of reduced-block handovers.
  std::string RegisterHandovers(int indent);

  // The reduce stage whose input block `b` writes.
  std::optional<size_t> StageFrom(uint32_t b) const;
  // The prelude type a stage folds in (Note [Reduce accumulators], codegen/prelude.cuh).
  std::string AccumulatorType(size_t stage) const;
  std::string StartAccumulator(size_t stage, int indent);
  // `row`: combine the partials of the row group's threads first (spec.group of them).
  std::string FinishAccumulator(size_t stage, bool row, int indent);

 private:
  struct Held {
    int value = -1;  // v<value>[lanes]
    DType dtype = DType::kF32;
  };
  class BodyWriter;
  friend class BodyWriter;

  int MatmulTensor() const;
  int FirstScratch() const;
  const Handover* FindHandover(uint32_t block, uint32_t pos) const;

  const FuseTrace& trace_;
  const KernelSpec& spec_;
  std::vector<Slot> slots_;
  std::vector<Handover> handovers_;
  std::vector<bool> used_;     // per kernel tensor
  std::vector<bool> written_;  // per kernel tensor
};

}  // namespace ember::codegen

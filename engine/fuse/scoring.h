// Scoring: how much a fused trace saves over running its ops one by one (burn's Scoring in
// burn-cubecl-fusion's engine/scoring.rs, copied exactly so that ember makes burn's decisions):
//
//   unfused = tensor inputs + outputs of every registered op (Drop counts its one input)
//   fused   = global reads (Assign from an input, a view or an output buffer) and global
//             writes (Assign to an output) of the trace; a view read counts once more as a
//             penalty
//   score   = saturating((unfused - fused) * 100 [if fused < unfused]
//                        + max(ops - 1, 0) * 10 - penalties * 50)
//
// So `(a*b + c*2).exp()` scores (10 - 4) * 100 + 3 * 10 = 630, and a single op scores 0 (it
// is never fused: the search requires a score above 0).
#pragma once

#include <cstdint>

#include "engine/ir/operation_ir.h"
#include "engine/trace/fuse_trace.h"

namespace ember {

class Scoring {
 public:
  void Register(const OperationIr& op);
  void Reset() { *this = Scoring{}; }
  uint64_t Evaluate(const FuseTrace& trace) const;
  // The formula alone, for tests: fused reads and writes, and view penalties.
  uint64_t Calculate(uint64_t reads_fused, uint64_t writes_fused, uint64_t penalties) const;

  uint64_t num_reads() const { return num_reads_; }
  uint64_t num_writes() const { return num_writes_; }
  uint64_t num_ops() const { return num_ops_; }

 private:
  uint64_t num_reads_ = 0;
  uint64_t num_writes_ = 0;
  uint64_t num_ops_ = 0;
};

}  // namespace ember

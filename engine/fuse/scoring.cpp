#include "engine/fuse/scoring.h"

namespace ember {

void Scoring::Register(const OperationIr& op) {
  num_reads_ += op.inputs.size();
  num_writes_ += op.outputs.size();
  num_ops_ += 1;
}

uint64_t Scoring::Calculate(uint64_t reads_fused, uint64_t writes_fused, uint64_t penalties) const {
  constexpr uint64_t kFactorIo = 100;
  constexpr uint64_t kFactorLaunch = 10;
  constexpr uint64_t kFactorPenalty = 50;
  const uint64_t fused = reads_fused + writes_fused;
  const uint64_t unfused = num_reads_ + num_writes_;
  const uint64_t score_io = fused >= unfused ? 0 : (unfused - fused) * kFactorIo;
  const uint64_t score_launch = (num_ops_ > 0 ? num_ops_ - 1 : 0) * kFactorLaunch;
  const uint64_t score_penalty = penalties * kFactorPenalty;
  const uint64_t gain = score_io + score_launch;
  return gain > score_penalty ? gain - score_penalty : 0;
}

uint64_t Scoring::Evaluate(const FuseTrace& trace) const {
  uint64_t reads = 0, writes = 0, penalties = 0;
  auto global = [](const FuseArg& a) {
    return a.kind == FuseArgKind::kInput || a.kind == FuseArgKind::kOutput;
  };
  for (const FuseBlock& block : trace.blocks) {
    for (const FuseOp& op : block.reads) {
      if (global(op.args[0])) ++reads;
      if (op.args[0].kind == FuseArgKind::kInputView) {
        ++reads;
        ++penalties;
      }
    }
    for (const FuseOp& op : block.writes) {
      if (global(op.out)) ++writes;
    }
  }
  return Calculate(reads, writes, penalties);
}

}  // namespace ember

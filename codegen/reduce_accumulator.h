// How a generated kernel folds a reduce stage (Note [Reduce accumulators], codegen/prelude.cuh):
// the prelude's number for each reduce kind, and which kinds fold a value with its position.
// Shared by the block emitter's statements and its accumulator declarations.
#pragma once

#include "engine/trace/fuse_trace.h"

namespace ember::codegen {

inline int ReduceOpNumber(ReduceStage::Kind kind) { return static_cast<int>(kind); }
inline bool IsArg(ReduceStage::Kind kind) {
  return kind == ReduceStage::Kind::kArgMax || kind == ReduceStage::Kind::kArgMin;
}
// Max, Min and the arg ops fold a value with its position (Note [Reduce accumulators],
// codegen/prelude.cuh); Sum, Mean and Prod the accumulator alone.
inline bool IsExtreme(ReduceStage::Kind kind) {
  switch (kind) {
    case ReduceStage::Kind::kSum:
    case ReduceStage::Kind::kMean:
    case ReduceStage::Kind::kProd: return false;
    case ReduceStage::Kind::kMax:
    case ReduceStage::Kind::kMin:
    case ReduceStage::Kind::kArgMax:
    case ReduceStage::Kind::kArgMin: return true;
  }
  return true;
}

}  // namespace ember::codegen

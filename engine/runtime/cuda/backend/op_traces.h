// The traces the CUDA backend runs unfused ops through: an unfused elementwise op, a copy and
// a reduction are one-op fused traces, generated and compiled like any other (codegen/), so
// the GPU has one code path for the math and the fused and unfused results agree. Built with
// the conventions of the elementwise fuser (engine/fuse/trace_op_fuser.cpp): inputs read into
// locals in order, scalars typed like the fuser types them, MaskWhere / MaskFill as
// ConditionalAssign {mask, value, tensor}.
#pragma once

#include "engine/ir/operation_ir.h"
#include "engine/trace/fuse_trace.h"

namespace ember::cuda {

// REQUIRES: op.kind has a fused op (HasFusedKind), Cast, Full, Zeros or Ones included. The
// trace depends only on the op's kind, dtypes, ranks and scalar count (OpTraceCache's key):
// its tensors are numbered by position, with shapes of 1s of the right rank.
FuseTrace ElementwiseTrace(const OperationIr& op);

// Input 0 (any strides) copied element by element to output 0 over a reference of `rank`.
FuseTrace CopyTrace(DType dtype, size_t rank);

// Input 0 reduced along `axis` into output 0 (the axis kept with size 1).
FuseTrace ReduceTrace(ReduceStage::Kind kind, DType input, DType output, int64_t axis, size_t rank);

}  // namespace ember::cuda

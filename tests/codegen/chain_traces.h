// Fused traces of several independent chains (Note [Trace chains], engine/trace/trace_chains.h)
// built by hand, for the chain, golden and NVRTC tests of the code generator.
#pragma once

#include "engine/trace/fuse_trace.h"

namespace ember::codegen_test {

// Block 0 reads x once for sum(x * s0) (out0, over the reduced shape) and for exp(x) (out1,
// over the full shape): two chains, one read, the second chain without a stage. Built by hand:
// the fusers put a second chain's ops in a later block.
inline FuseTrace OneReadForTwoChains() {
  const Shape rows = {1, 2}, row = {1, 0};
  auto arg = [](FuseArgKind kind, uint32_t pos, uint32_t block = 0) {
    return FuseArg{.kind = kind, .dtype = DType::kF32, .pos = pos, .block = block};
  };
  auto op = [](FuseOpKind kind, FuseArg out, FuseArg a, FuseArg b = {}) {
    FuseOp o{.kind = kind, .out = out};
    o.args[0] = a;
    o.args[1] = b;
    return o;
  };
  using K = FuseArgKind;
  FuseTrace t;
  t.resources.inputs = {TensorIr{.id = 0, .shape = rows, .status = TensorStatus::kReadOnly}};
  t.resources.outputs = {TensorIr{.id = 2, .shape = row}, TensorIr{.id = 3, .shape = rows}};
  t.resources.scalars = {FuseScalar{.dtype = DType::kF32, .placeholder = 0}};
  FuseBlock b0{.shape_ref = rows, .num_locals = 3};
  b0.reads = {op(FuseOpKind::kAssign, arg(K::kLocal, 0), arg(K::kInput, 0))};
  b0.ops = {op(FuseOpKind::kMul, arg(K::kLocal, 1), arg(K::kLocal, 0), arg(K::kScalar, 0)),
            op(FuseOpKind::kExp, arg(K::kLocal, 2), arg(K::kLocal, 0))};
  b0.writes = {op(FuseOpKind::kAssign, arg(K::kMultiBlockLocal, 0, 0), arg(K::kLocal, 1)),
               op(FuseOpKind::kAssign, arg(K::kOutput, 1), arg(K::kLocal, 2))};
  FuseBlock b1{.shape_ref = row, .num_locals = 1};
  b1.writes = {op(FuseOpKind::kAssign, arg(K::kOutput, 0), arg(K::kLocal, 0))};
  t.blocks = {b0, b1};
  t.reduces = {ReduceStage{.kind = ReduceStage::Kind::kSum,
                           .from = 0,
                           .axis = 1,
                           .input = arg(K::kMultiBlockLocal, 0, 0),
                           .output = arg(K::kLocal, 0),
                           .acc = DType::kF32}};
  return t;
}

}  // namespace ember::codegen_test

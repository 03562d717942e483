// Fused traces with indexed ops (Note [Indexed inputs], engine/trace/fuse_trace.h), built by
// hand, so that each case is exactly the one named (the fusers emit them too). Used
// by the golden, plan and NVRTC tests of the code generator and by the CUDA backend's GPU test
// (tests/runtime/cuda/fused_indexed_gpu_test.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/trace/fuse_trace.h"

namespace ember::codegen_test {

// out0 = op(...) * scalar0 + addend, one block over `ref` (relative shape ids). The trace's
// inputs are `inputs` and then the addend (shape `ref`, `dtype`); the indexed op's operands are
// inputs[operands[k]] (a repeated position reads one input twice, as cat([x, x]) after the
// builder's dedup). The op's value, the scalar, the addend and the output are `dtype`.
inline FuseTrace IndexedMulAdd(FuseOpKind kind, int64_t dim, std::vector<TensorIr> inputs,
                               const std::vector<uint32_t>& operands, const Shape& ref,
                               DType dtype) {
  auto local = [&](uint32_t pos) { return FuseArg{FuseArgKind::kLocal, dtype, pos}; };
  const auto addend = static_cast<uint32_t>(inputs.size());
  FuseOp indexed{.kind = kind, .out = local(0), .dim = dim};
  for (uint32_t k : operands) {
    indexed.indexed.push_back({FuseArgKind::kInput, inputs.at(k).dtype, k});
  }
  FuseTrace t;
  FuseBlock block{.shape_ref = ref, .num_locals = 4};
  block.reads.push_back({FuseOpKind::kAssign, {{FuseArgKind::kInput, dtype, addend}}, local(1)});
  block.ops.push_back(indexed);
  block.ops.push_back({FuseOpKind::kMul, {local(0), {FuseArgKind::kScalar, dtype, 0}}, local(2)});
  block.ops.push_back({FuseOpKind::kAdd, {local(2), local(1)}, local(3)});
  block.writes.push_back({FuseOpKind::kAssign, {local(3)}, {FuseArgKind::kOutput, dtype, 0}});
  t.blocks.push_back(std::move(block));
  const auto next_id = static_cast<TensorId>(inputs.size() + 1);
  inputs.push_back({next_id, ref, TensorStatus::kReadOnly, dtype});
  t.resources.inputs = std::move(inputs);
  t.resources.outputs.push_back({next_id + 1, ref, TensorStatus::kNotInit, dtype});
  t.resources.scalars.push_back({dtype, 0});
  return t;
}

inline TensorIr IndexedInput(TensorId id, Shape shape, DType dtype) {
  return {id, std::move(shape), TensorStatus::kReadOnly, dtype};
}

// Gather along `dim` of a [1, 3] (relative) tensor by [1, 2] indices, over [1, 2].
inline FuseTrace GatherMulAdd(int64_t dim, DType dtype, DType index) {
  const Shape tensor = dim == 0 ? Shape{3, 2} : Shape{1, 3};
  return IndexedMulAdd(FuseOpKind::kGather, dim,
                       {IndexedInput(1, tensor, dtype), IndexedInput(2, {1, 2}, index)}, {0, 1},
                       {1, 2}, dtype);
}

// Select along `dim` of a tensor 3 long there by 1-D indices as long as the output there.
inline FuseTrace SelectMulAdd(int64_t dim, DType dtype, DType index) {
  const Shape tensor = dim == 0 ? Shape{3, 2} : Shape{1, 3};
  const Shape indices = {dim == 0 ? int64_t{1} : int64_t{2}};
  return IndexedMulAdd(FuseOpKind::kSelect, dim,
                       {IndexedInput(1, tensor, dtype), IndexedInput(2, indices, index)}, {0, 1},
                       {1, 2}, dtype);
}

// Cat along `dim` of inputs that are `alongs[k]` (relative ids) long there and [1, 2]
// elsewhere, over a reference `total` long there.
inline FuseTrace CatMulAdd(int64_t dim, const std::vector<int64_t>& alongs, int64_t total,
                           DType dtype, std::vector<uint32_t> operands = {}) {
  std::vector<TensorIr> inputs;
  for (int64_t along : alongs) {
    Shape shape = {1, 2};
    shape[dim] = along;
    inputs.push_back(IndexedInput(static_cast<TensorId>(inputs.size() + 1), shape, dtype));
  }
  if (operands.empty()) {
    for (uint32_t k = 0; k < alongs.size(); ++k) operands.push_back(k);
  }
  Shape ref = {1, 2};
  ref[dim] = total;
  return IndexedMulAdd(FuseOpKind::kCat, dim, std::move(inputs), operands, ref, dtype);
}

}  // namespace ember::codegen_test

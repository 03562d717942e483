// BindFused (fused_plan.h): the step between a checked plan and a run.
#include <utility>

#include "engine/runtime/cpu/cpu_buffer.h"
#include "engine/runtime/cpu/fused_indexed.h"
#include "engine/runtime/cpu/fused_plan.h"
#include "engine/runtime/cpu/kernels.h"

namespace ember::cpu {
namespace {

// The view's elements as a handle: a reshape indexes the original in row-major order (copied
// first when the original is strided), a swap is a strided view.
TensorHandle ViewHandle(const FuseView& view, const TensorHandle& original, const Shape& shape,
                        ThreadPool& pool) {
  switch (view.kind) {
    case FuseView::Kind::kReshape: return Reshape(original, shape, pool);
    case FuseView::Kind::kSwapDims: return SwapDims(original, view.dim1, view.dim2);
  }
  return original;
}

OutputTarget Target(int output, const TensorHandle& handle, const Shape& ref) {
  OutputTarget target{.output = output,
                      .data = ElementData(handle),
                      .dtype = handle.dtype,
                      .dense = handle.shape == ref,
                      .ref = ref,
                      .strides = TensorHandle::ContiguousStrides(handle.shape)};
  for (size_t d = 0; d < ref.size(); ++d) {
    if (handle.shape[d] == 1 && ref[d] > 1) target.strides[d] = 0;
  }
  return target;
}

// The plan tensor of output `o`: after the inputs and the views (fused_plan.h).
size_t OutputTensor(const FusedLaunch& launch, size_t o) {
  return launch.inputs.size() + launch.view_shapes.size() + o;
}

}  // namespace

void BindFused(FusedPlan& plan, const FusedLaunch& launch, std::vector<TensorHandle>& outputs,
               ThreadPool& pool) {
  const FuseTrace& trace = *launch.trace;
  std::vector<TensorHandle>& tensors = plan.tensors;
  tensors = launch.inputs;
  for (size_t k = 0; k < trace.resources.views.size(); ++k) {
    const FuseView& view = trace.resources.views[k];
    tensors.push_back(ViewHandle(view, launch.inputs[view.input], launch.view_shapes[k], pool));
  }
  TensorHandle product;
  if (trace.matmul) {
    const TensorIr result{.shape = launch.block_shapes[0], .dtype = trace.matmul->output.dtype};
    product =
        Matmul(launch.inputs[trace.matmul->lhs], launch.inputs[trace.matmul->rhs], result, pool);
    if (plan.matmul_output >= 0) outputs[plan.matmul_output] = product;
  }
  tensors.insert(tensors.end(), outputs.begin(), outputs.end());
  if (trace.matmul) tensors.push_back(std::move(product));
  // Tensors an output overwrites in place, and those outputs: a read of the input must happen
  // before the output's store (Note [Direct writes], fused_program.h).
  std::vector<bool> overwritten(tensors.size(), false);
  for (size_t o = 0; o < plan.in_place.size(); ++o) {
    if (plan.in_place[o] < 0) continue;
    overwritten[plan.in_place[o]] = true;
    overwritten[OutputTensor(launch, o)] = true;
  }
  if (plan.matmul_output >= 0) {
    overwritten.back() = true;
    overwritten[OutputTensor(launch, plan.matmul_output)] = true;
  }
  for (size_t b = 0; b < plan.blocks.size(); ++b) {
    const Shape& ref = launch.block_shapes[b];
    BlockProgram& program = plan.blocks[b];
    RefillConstants(program, launch.scalars);
    for (TileSource& source : program.sources) {
      if (source.kind != TileSource::Kind::kTensor) continue;
      source.view = BroadcastView(tensors[source.index], ref);
      source.copy = overwritten[source.index] && source.stored_raw;
    }
    // Indexed inputs are never overwritten in place (ChooseInPlace, fused_outputs.cpp).
    for (IndexedSource& source : program.indexed) BindIndexed(source, tensors, ref);
    for (OutputTarget& target : program.targets) {
      target = Target(target.output, outputs[target.output], ref);
      target.direct = target.dense && !overwritten[OutputTensor(launch, target.output)];
    }
  }
}

}  // namespace ember::cpu

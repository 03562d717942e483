#include "codegen/launch_tensors.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <ember/error.h>

#include "codegen/indexed_read.h"

namespace ember::codegen {

// The largest element offset a tensor reaches, plus one.
int64_t Span(const BoundTensor& t) {
  int64_t span = 1;
  for (size_t d = 0; d < t.shape.size(); ++d) {
    if (t.shape[d] == 0) return 0;
    span += (t.shape[d] - 1) * (t.strides[d] < 0 ? -t.strides[d] : t.strides[d]);
  }
  return span;
}

bool IsContiguous(const BoundTensor& t) {
  int64_t expected = 1;
  for (size_t d = t.shape.size(); d-- > 0;) {
    if (t.shape[d] == 1) continue;
    if (t.strides[d] != expected) return false;
    expected *= t.shape[d];
  }
  return true;
}

TensorTable MakeTable(const TraceLaunch& launch) {
  TensorTable table;
  for (const BoundTensor& t : launch.inputs) table.tensors.push_back(&t);
  table.views = static_cast<int>(table.tensors.size());
  for (const BoundTensor& t : launch.views) table.tensors.push_back(&t);
  table.outputs = static_cast<int>(table.tensors.size());
  for (const BoundTensor& t : launch.outputs) table.tensors.push_back(&t);
  if (launch.matmul_result) {
    table.matmul = static_cast<int>(table.tensors.size());
    table.tensors.push_back(&*launch.matmul_result);
  }
  table.first_scratch = static_cast<int>(table.tensors.size());
  return table;
}

void CheckLaunch(const TraceLaunch& launch) {
  const FuseTrace& trace = *launch.trace;
  const FuseResources& r = trace.resources;
  if (launch.inputs.size() != r.inputs.size() || launch.views.size() != r.views.size() ||
      launch.outputs.size() != r.outputs.size() || launch.scalars.size() != r.scalars.size() ||
      launch.block_shapes.size() != trace.blocks.size() ||
      launch.matmul_result.has_value() != trace.matmul.has_value()) {
    throw Error("fused launch does not match its trace");
  }
  auto check = [](const BoundTensor& t) {
    if (t.strides.size() != t.shape.size()) throw Error("fused tensor without strides");
  };
  for (const auto* list : {&launch.inputs, &launch.views, &launch.outputs}) {
    for (const BoundTensor& t : *list) check(t);
  }
  if (trace.matmul && (trace.blocks.size() != 1 || !trace.reduces.empty())) {
    throw Error("a fused matmul needs exactly one block and no reduce stage");
  }
  // The generated code takes each block's rank from the trace (shape_ref), its dims from the
  // launch: a launch of another rank would index with too few (or too many) coordinates.
  for (size_t b = 0; b < trace.blocks.size(); ++b) {
    if (launch.block_shapes[b].size() != trace.blocks[b].shape_ref.size()) {
      throw Error(fmt::format("block {} of rank {} launched over {}", b,
                              trace.blocks[b].shape_ref.size(), launch.block_shapes[b]));
    }
  }
  CheckIndexedOps(launch);
}

}  // namespace ember::codegen

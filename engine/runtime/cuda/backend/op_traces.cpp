#include "engine/runtime/cuda/backend/op_traces.h"

namespace ember::cuda {
namespace {

FuseArg Local(uint32_t pos, DType dtype) { return {FuseArgKind::kLocal, dtype, pos, 0}; }

FuseOp Assign(FuseArg from, FuseArg to) {
  FuseOp op{.kind = FuseOpKind::kAssign, .out = to};
  op.args[0] = from;
  return op;
}

// A trace of one block of `rank` reading `inputs` into locals 0.. in order.
FuseTrace OneBlock(const std::vector<TensorIr>& inputs, size_t rank) {
  FuseTrace trace;
  trace.blocks.emplace_back();
  FuseBlock& block = trace.blocks.back();
  block.shape_ref.assign(rank, 1);  // only the rank is read: shapes are launch arguments
  for (size_t i = 0; i < inputs.size(); ++i) {
    trace.resources.inputs.push_back(inputs[i]);
    block.reads.push_back(
        Assign({FuseArgKind::kInput, inputs[i].dtype, static_cast<uint32_t>(i), 0},
               Local(static_cast<uint32_t>(i), inputs[i].dtype)));
  }
  block.num_locals = static_cast<uint32_t>(inputs.size());
  return trace;
}

FuseArg AddScalar(FuseTrace& trace, uint32_t index, DType dtype) {
  trace.resources.scalars.push_back({.dtype = dtype, .placeholder = index});
  return {FuseArgKind::kScalar, dtype, static_cast<uint32_t>(trace.resources.scalars.size() - 1),
          0};
}

}  // namespace

FuseTrace ElementwiseTrace(const OperationIr& op) {
  // Ids and dims are the op's own business: the trace keeps positions and ranks only, so every
  // op of one structure gets one trace (and one kernel, one launch record).
  std::vector<TensorIr> inputs;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    inputs.push_back({.id = static_cast<TensorId>(i),
                      .shape = Shape(op.inputs[i].shape.size(), 1),
                      .dtype = op.inputs[i].dtype});
  }
  const TensorIr out{.id = static_cast<TensorId>(op.inputs.size()),
                     .shape = Shape(op.outputs.at(0).shape.size(), 1),
                     .dtype = op.outputs.at(0).dtype};
  FuseTrace trace = OneBlock(inputs, out.shape.size());
  FuseBlock& block = trace.blocks[0];
  auto in = [&](size_t i) { return Local(static_cast<uint32_t>(i), op.inputs.at(i).dtype); };
  FuseOp fused{.kind = FusedKindOf(op.kind)};
  switch (op.kind) {
    case OpKind::kZeros:
    case OpKind::kOnes:
      fused.args[0] = {FuseArgKind::kLiteral, out.dtype, op.kind == OpKind::kOnes ? 1u : 0u, 0};
      break;
    case OpKind::kFull: fused.args[0] = AddScalar(trace, 0, out.dtype); break;
    case OpKind::kClamp:
      fused.args[0] = in(0);
      fused.args[1] = AddScalar(trace, 0, out.dtype);
      fused.args[2] = AddScalar(trace, 1, out.dtype);
      break;
    case OpKind::kMaskWhere:
      fused.args[0] = in(1);
      fused.args[1] = in(2);
      fused.args[2] = in(0);
      break;
    case OpKind::kMaskFill:
      fused.args[0] = in(1);
      fused.args[1] = AddScalar(trace, 0, out.dtype);
      fused.args[2] = in(0);
      break;
    default: {
      int k = 0;
      for (size_t i = 0; i < op.inputs.size(); ++i) fused.args[k++] = in(i);
      for (size_t s = 0; s < op.scalars.size(); ++s) {
        fused.args[k++] = AddScalar(trace, static_cast<uint32_t>(s), op.inputs.at(0).dtype);
      }
      break;
    }
  }
  const auto result = static_cast<uint32_t>(op.inputs.size());
  fused.out = Local(result, out.dtype);
  block.ops.push_back(fused);
  block.num_locals = result + 1;
  trace.resources.outputs.push_back(out);
  block.writes.push_back(Assign(fused.out, {FuseArgKind::kOutput, out.dtype, 0, 0}));
  return trace;
}

FuseTrace CopyTrace(DType dtype, size_t rank) {
  const TensorIr tensor{.id = 0, .shape = Shape(rank, 1), .dtype = dtype};
  FuseTrace trace = OneBlock({tensor}, rank);
  trace.resources.outputs.push_back(tensor);
  trace.blocks[0].writes.push_back(Assign(Local(0, dtype), {FuseArgKind::kOutput, dtype, 0, 0}));
  return trace;
}

FuseTrace ReduceTrace(ReduceStage::Kind kind, DType input, DType output, int64_t axis,
                      size_t rank) {
  const TensorIr in{.id = 0, .shape = Shape(rank, 1), .dtype = input};
  FuseTrace trace = OneBlock({in}, rank);
  const FuseArg handed{FuseArgKind::kMultiBlockLocal, input, 0, 0};
  trace.blocks[0].writes.push_back(Assign(Local(0, input), handed));
  trace.blocks.emplace_back();
  FuseBlock& after = trace.blocks[1];
  after.shape_ref.assign(rank, 1);
  after.num_locals = 1;
  trace.reduces.push_back({.kind = kind,
                           .from = 0,
                           .axis = axis,
                           .input = handed,
                           .output = Local(0, output),
                           .acc = IsFloat(input) ? DType::kF32 : DType::kI64});
  trace.resources.outputs.push_back({.id = 1, .shape = Shape(rank, 1), .dtype = output});
  after.writes.push_back(Assign(Local(0, output), {FuseArgKind::kOutput, output, 0, 0}));
  return trace;
}

}  // namespace ember::cuda

#include "store/codec/trace_codec.h"

#include <capnp/message.h>

#include "schema/plan.capnp.h"
#include "store/codec/canonical_message.h"

namespace ember {
namespace {

// --- Writing -------------------------------------------------------------------------------

void WriteArg(const FuseArg& arg, schema::FuseArg::Builder out) {
  out.setKind(static_cast<uint8_t>(arg.kind));
  out.setDtype(static_cast<uint8_t>(arg.dtype));
  out.setPos(arg.pos);
  out.setBlock(arg.block);
}

void WriteOps(const std::vector<FuseOp>& ops, capnp::List<schema::FuseOp>::Builder out) {
  for (size_t i = 0; i < ops.size(); ++i) {
    const FuseOp& op = ops[i];
    schema::FuseOp::Builder o = out[static_cast<unsigned>(i)];
    o.setKind(static_cast<uint8_t>(op.kind));
    // Only the operands the kind uses: they are all FuseOp::operator== compares. An indexed
    // op's are its indexed inputs, with its dim (Note [Indexed inputs]).
    if (FormOf(op.kind) == FuseOpForm::kIndexed) {
      auto args = o.initArgs(Count(op.indexed.size()));
      for (size_t k = 0; k < op.indexed.size(); ++k) {
        WriteArg(op.indexed[k], args[static_cast<unsigned>(k)]);
      }
      o.setDim(op.dim);
    } else {
      const int arity = FuseOpArity(op.kind);
      auto args = o.initArgs(static_cast<unsigned>(arity));
      for (int k = 0; k < arity; ++k) WriteArg(op.args[k], args[static_cast<unsigned>(k)]);
    }
    WriteArg(op.out, o.initOut());
  }
}

void WriteTrace(const FuseTrace& trace, schema::FuseTrace::Builder out) {
  auto blocks = out.initBlocks(Count(trace.blocks.size()));
  for (size_t b = 0; b < trace.blocks.size(); ++b) {
    const FuseBlock& block = trace.blocks[b];
    schema::FuseBlock::Builder o = blocks[static_cast<unsigned>(b)];
    WriteShape(block.shape_ref, o.initShapeRef(Count(block.shape_ref.size())));
    WriteOps(block.reads, o.initReads(Count(block.reads.size())));
    WriteOps(block.ops, o.initOps(Count(block.ops.size())));
    WriteOps(block.writes, o.initWrites(Count(block.writes.size())));
    o.setNumLocals(block.num_locals);
  }

  const FuseResources& r = trace.resources;
  schema::FuseResources::Builder res = out.initResources();
  auto inputs = res.initInputs(Count(r.inputs.size()));
  for (size_t i = 0; i < r.inputs.size(); ++i)
    WriteTensor(r.inputs[i], inputs[static_cast<unsigned>(i)]);
  auto outputs = res.initOutputs(Count(r.outputs.size()));
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    WriteTensor(r.outputs[i], outputs[static_cast<unsigned>(i)]);
  }
  auto scalars = res.initScalars(Count(r.scalars.size()));
  for (size_t i = 0; i < r.scalars.size(); ++i) {
    scalars[static_cast<unsigned>(i)].setDtype(static_cast<uint8_t>(r.scalars[i].dtype));
    scalars[static_cast<unsigned>(i)].setPlaceholder(r.scalars[i].placeholder);
  }
  auto views = res.initViews(Count(r.views.size()));
  for (size_t i = 0; i < r.views.size(); ++i) {
    const FuseView& view = r.views[i];
    schema::FuseView::Builder o = views[static_cast<unsigned>(i)];
    o.setKind(static_cast<uint8_t>(view.kind));
    o.setInput(view.input);
    o.setViewId(view.view_id);
    WriteShape(view.shape, o.initShape(Count(view.shape.size())));
    o.setDim1(view.dim1);
    o.setDim2(view.dim2);
  }
  auto dropped = res.initDropped(Count(r.dropped.size()));
  for (size_t i = 0; i < r.dropped.size(); ++i) dropped.set(static_cast<unsigned>(i), r.dropped[i]);

  auto reduces = out.initReduces(Count(trace.reduces.size()));
  for (size_t i = 0; i < trace.reduces.size(); ++i) {
    const ReduceStage& stage = trace.reduces[i];
    schema::ReduceStage::Builder o = reduces[static_cast<unsigned>(i)];
    o.setKind(static_cast<uint8_t>(stage.kind));
    o.setFrom(stage.from);
    o.setAxis(stage.axis);
    WriteArg(stage.input, o.initInput());
    WriteArg(stage.output, o.initOutput());
    o.setAcc(static_cast<uint8_t>(stage.acc));
  }

  if (trace.matmul) {
    schema::MatmulStage::Builder o = out.getMatmul().initStage();
    o.setLhs(trace.matmul->lhs);
    o.setRhs(trace.matmul->rhs);
    WriteArg(trace.matmul->output, o.initOutput());
  } else {
    out.getMatmul().setNone();
  }
}

// --- Reading (representation checks; CheckTraceState does the cross references) ------------

FuseArg ReadArg(schema::FuseArg::Reader in) {
  return FuseArg{.kind = ReadEnum<FuseArgKind>(in.getKind(), "fused argument kind"),
                 .dtype = ReadDType(in.getDtype()),
                 .pos = in.getPos(),
                 .block = in.getBlock()};
}

std::vector<FuseOp> ReadOps(capnp::List<schema::FuseOp>::Reader in) {
  std::vector<FuseOp> ops;
  ops.reserve(in.size());
  for (schema::FuseOp::Reader o : in) {
    FuseOp op;
    op.kind = ReadEnum<FuseOpKind>(o.getKind(), "fused op kind");
    const auto args = o.getArgs();
    if (FormOf(op.kind) == FuseOpForm::kIndexed) {
      Require(args.size() >= 1, "fused {} with no operands", FuseOpKindName(op.kind));
      for (schema::FuseArg::Reader arg : args) op.indexed.push_back(ReadArg(arg));
      op.dim = o.getDim();
    } else {
      const int arity = FuseOpArity(op.kind);
      Require(args.size() == static_cast<unsigned>(arity), "fused {} with {} operands",
              FuseOpKindName(op.kind), args.size());
      for (int k = 0; k < arity; ++k) op.args[k] = ReadArg(args[static_cast<unsigned>(k)]);
    }
    op.out = ReadArg(o.getOut());
    ops.push_back(op);
  }
  return ops;
}

FuseTrace ReadTrace(schema::FuseTrace::Reader in) {
  FuseTrace trace;
  const auto blocks = in.getBlocks();
  trace.blocks.reserve(blocks.size());
  for (schema::FuseBlock::Reader o : blocks) {
    trace.blocks.push_back(FuseBlock{.shape_ref = ReadShapeIds(o.getShapeRef()),
                                     .reads = ReadOps(o.getReads()),
                                     .ops = ReadOps(o.getOps()),
                                     .writes = ReadOps(o.getWrites()),
                                     .num_locals = o.getNumLocals()});
  }

  const auto res = in.getResources();
  FuseResources& r = trace.resources;
  for (schema::TensorIr::Reader t : res.getInputs()) r.inputs.push_back(ReadTensor(t));
  for (schema::TensorIr::Reader t : res.getOutputs()) r.outputs.push_back(ReadTensor(t));
  for (schema::FuseScalar::Reader s : res.getScalars()) {
    r.scalars.push_back(
        FuseScalar{.dtype = ReadDType(s.getDtype()), .placeholder = s.getPlaceholder()});
  }
  for (schema::FuseView::Reader v : res.getViews()) {
    r.views.push_back(FuseView{.kind = ReadEnum<FuseView::Kind>(v.getKind(), "view kind"),
                               .input = v.getInput(),
                               .view_id = v.getViewId(),
                               .shape = ReadShapeIds(v.getShape()),
                               .dim1 = v.getDim1(),
                               .dim2 = v.getDim2()});
  }
  for (uint64_t id : res.getDropped()) r.dropped.push_back(id);

  for (schema::ReduceStage::Reader s : in.getReduces()) {
    trace.reduces.push_back(
        ReduceStage{.kind = ReadEnum<ReduceStage::Kind>(s.getKind(), "reduce kind"),
                    .from = s.getFrom(),
                    .axis = s.getAxis(),
                    .input = ReadArg(s.getInput()),
                    .output = ReadArg(s.getOutput()),
                    .acc = ReadDType(s.getAcc())});
  }

  const auto matmul = in.getMatmul();
  switch (matmul.which()) {
    case schema::FuseTrace::Matmul::NONE: break;
    case schema::FuseTrace::Matmul::STAGE: {
      const auto s = matmul.getStage();
      trace.matmul =
          MatmulStage{.lhs = s.getLhs(), .rhs = s.getRhs(), .output = ReadArg(s.getOutput())};
      break;
    }
    default: Require(false, "unknown matmul stage variant");  // written by a newer schema
  }
  return trace;
}

}  // namespace

std::vector<uint8_t> EncodeTraceState(const TraceState& state) {
  capnp::MallocMessageBuilder message;
  auto root = message.initRoot<schema::TraceOptimizationState>();
  WriteTrace(state.trace, root.initTrace());
  root.setLen(state.len);
  root.setScore(state.score);
  return WordsToBytes(capnp::canonicalize(root.asReader()));
}

Status DecodeTraceState(std::span<const uint8_t> bytes, TraceState* out) {
  TraceState state;
  Status status = ReadCanonicalMessage(bytes, "trace state", [&](capnp::MessageReader& message) {
    const auto root = message.getRoot<schema::TraceOptimizationState>();
    state.trace = ReadTrace(root.getTrace());
    Require(root.getLen() >= 1, "an optimization covering no op");
    state.len = static_cast<size_t>(root.getLen());
    state.score = root.getScore();
  });
  if (!status.ok()) return status;
  status = CheckTraceState(state);
  if (!status.ok()) return status;
  *out = std::move(state);
  return Status::Ok();
}

}  // namespace ember

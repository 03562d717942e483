#include "engine/trace/trace_codec.h"

#include <cstring>
#include <exception>

#include <capnp/message.h>
#include <fmt/format.h>
#include <kj/exception.h>

namespace ember {
namespace {

// Decoding limits (Note [Canonical messages]). A well-formed reader touches each word about
// once; the factor leaves room for lists read twice, the slack for tiny blobs. The nesting
// limit bounds recursion in Cap'n Proto itself (a plan's strategy tree also has its own).
constexpr uint64_t kTraversalFactor = 8;
constexpr uint64_t kTraversalSlack = 1024;
constexpr int kNestingLimit = 64;

// Each Known* below is an exhaustive switch (no default): a new enum value fails to build
// (-Werror=switch) until the decoder accepts it. A raw number outside the enum is well defined
// for an enum with a fixed underlying type and simply matches no case.
bool Known(TensorStatus status) {
  switch (status) {
    case TensorStatus::kNotInit:
    case TensorStatus::kReadOnly:
    case TensorStatus::kReadWrite: return true;
  }
  return false;
}

bool Known(FuseOpKind kind) {
  switch (kind) {
    case FuseOpKind::kAssign:
    case FuseOpKind::kAdd:
    case FuseOpKind::kSub:
    case FuseOpKind::kMul:
    case FuseOpKind::kDiv:
    case FuseOpKind::kRem:
    case FuseOpKind::kPowf:
    case FuseOpKind::kAbs:
    case FuseOpKind::kNeg:
    case FuseOpKind::kExp:
    case FuseOpKind::kLog:
    case FuseOpKind::kLog1p:
    case FuseOpKind::kSqrt:
    case FuseOpKind::kRecip:
    case FuseOpKind::kSin:
    case FuseOpKind::kCos:
    case FuseOpKind::kTanh:
    case FuseOpKind::kErf:
    case FuseOpKind::kEqual:
    case FuseOpKind::kLower:
    case FuseOpKind::kGreater:
    case FuseOpKind::kLowerEqual:
    case FuseOpKind::kGreaterEqual:
    case FuseOpKind::kClamp:
    case FuseOpKind::kConditionalAssign: return true;
  }
  return false;
}

bool Known(FuseArgKind kind) {
  switch (kind) {
    case FuseArgKind::kInput:
    case FuseArgKind::kOutput:
    case FuseArgKind::kLocal:
    case FuseArgKind::kMultiBlockLocal:
    case FuseArgKind::kScalar:
    case FuseArgKind::kLiteral:
    case FuseArgKind::kInputView: return true;
  }
  return false;
}

bool Known(FuseView::Kind kind) {
  switch (kind) {
    case FuseView::Kind::kReshape:
    case FuseView::Kind::kSwapDims: return true;
  }
  return false;
}

bool Known(ReduceStage::Kind kind) {
  switch (kind) {
    case ReduceStage::Kind::kSum:
    case ReduceStage::Kind::kMean:
    case ReduceStage::Kind::kProd:
    case ReduceStage::Kind::kMax:
    case ReduceStage::Kind::kMin:
    case ReduceStage::Kind::kArgMax:
    case ReduceStage::Kind::kArgMin: return true;
  }
  return false;
}

template <typename Enum>
Enum ReadEnum(uint8_t raw, std::string_view what) {
  const auto value = static_cast<Enum>(raw);
  Require(Known(value), "unknown {} {}", what, raw);
  return value;
}

// --- Writing -------------------------------------------------------------------------------

void WriteShape(const Shape& shape, capnp::List<int64_t>::Builder out) {
  for (size_t i = 0; i < shape.size(); ++i) out.set(static_cast<unsigned>(i), shape[i]);
}

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
    // Only the operands the kind uses: they are all FuseOp::operator== compares.
    const int arity = FuseOpArity(op.kind);
    auto args = o.initArgs(static_cast<unsigned>(arity));
    for (int k = 0; k < arity; ++k) WriteArg(op.args[k], args[static_cast<unsigned>(k)]);
    WriteArg(op.out, o.initOut());
  }
}

void WriteTrace(const FuseTrace& trace, schema::FuseTrace::Builder out) {
  auto blocks = out.initBlocks(static_cast<unsigned>(trace.blocks.size()));
  for (size_t b = 0; b < trace.blocks.size(); ++b) {
    const FuseBlock& block = trace.blocks[b];
    schema::FuseBlock::Builder o = blocks[static_cast<unsigned>(b)];
    WriteShape(block.shape_ref, o.initShapeRef(static_cast<unsigned>(block.shape_ref.size())));
    WriteOps(block.reads, o.initReads(static_cast<unsigned>(block.reads.size())));
    WriteOps(block.ops, o.initOps(static_cast<unsigned>(block.ops.size())));
    WriteOps(block.writes, o.initWrites(static_cast<unsigned>(block.writes.size())));
    o.setNumLocals(block.num_locals);
  }

  const FuseResources& r = trace.resources;
  schema::FuseResources::Builder res = out.initResources();
  auto inputs = res.initInputs(static_cast<unsigned>(r.inputs.size()));
  for (size_t i = 0; i < r.inputs.size(); ++i)
    WriteTensor(r.inputs[i], inputs[static_cast<unsigned>(i)]);
  auto outputs = res.initOutputs(static_cast<unsigned>(r.outputs.size()));
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    WriteTensor(r.outputs[i], outputs[static_cast<unsigned>(i)]);
  }
  auto scalars = res.initScalars(static_cast<unsigned>(r.scalars.size()));
  for (size_t i = 0; i < r.scalars.size(); ++i) {
    scalars[static_cast<unsigned>(i)].setDtype(static_cast<uint8_t>(r.scalars[i].dtype));
    scalars[static_cast<unsigned>(i)].setPlaceholder(r.scalars[i].placeholder);
  }
  auto views = res.initViews(static_cast<unsigned>(r.views.size()));
  for (size_t i = 0; i < r.views.size(); ++i) {
    const FuseView& view = r.views[i];
    schema::FuseView::Builder o = views[static_cast<unsigned>(i)];
    o.setKind(static_cast<uint8_t>(view.kind));
    o.setInput(view.input);
    o.setViewId(view.view_id);
    WriteShape(view.shape, o.initShape(static_cast<unsigned>(view.shape.size())));
    o.setDim1(view.dim1);
    o.setDim2(view.dim2);
  }
  auto dropped = res.initDropped(static_cast<unsigned>(r.dropped.size()));
  for (size_t i = 0; i < r.dropped.size(); ++i) dropped.set(static_cast<unsigned>(i), r.dropped[i]);

  auto reduces = out.initReduces(static_cast<unsigned>(trace.reduces.size()));
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

// --- Reading (representation checks; CheckFuseTrace does the cross references) -------------

Shape ReadShapeIds(capnp::List<int64_t>::Reader in) {
  Shape shape;
  shape.reserve(in.size());
  for (int64_t id : in) {
    Require(id >= 0, "negative relative shape id {}", id);
    shape.push_back(id);
  }
  return shape;
}

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
    const int arity = FuseOpArity(op.kind);
    Require(args.size() == static_cast<unsigned>(arity), "fused {} with {} operands",
            FuseOpKindName(op.kind), args.size());
    for (int k = 0; k < arity; ++k) op.args[k] = ReadArg(args[static_cast<unsigned>(k)]);
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

// --- Cross-reference checks -----------------------------------------------------------------

Status Bad(std::string message) { return Status::Corruption("fused trace: " + std::move(message)); }

// Whether `arg`'s position names something that exists, for an argument of block `b`.
Status CheckArg(const FuseTrace& trace, size_t b, const FuseArg& arg) {
  const FuseResources& r = trace.resources;
  auto in_range = [&](size_t size, std::string_view what) {
    if (arg.pos < size) return Status::Ok();
    return Bad(fmt::format("block {} names {} {} of {}", b, what, arg.pos, size));
  };
  switch (arg.kind) {
    case FuseArgKind::kInput: return in_range(r.inputs.size(), "input");
    case FuseArgKind::kOutput: return in_range(r.outputs.size(), "output");
    case FuseArgKind::kLocal: return in_range(trace.blocks[b].num_locals, "local");
    case FuseArgKind::kMultiBlockLocal:
      if (arg.block < trace.blocks.size()) return Status::Ok();
      return Bad(fmt::format("block {} names a value of block {} of {}", b, arg.block,
                             trace.blocks.size()));
    case FuseArgKind::kScalar: return in_range(r.scalars.size(), "scalar");
    case FuseArgKind::kLiteral: return in_range(2, "literal");
    case FuseArgKind::kInputView: return in_range(r.views.size(), "view");
  }
  return Bad("unknown argument kind");
}

bool Writable(FuseArgKind kind) {
  return kind == FuseArgKind::kLocal || kind == FuseArgKind::kOutput ||
         kind == FuseArgKind::kMultiBlockLocal;
}

}  // namespace

DType ReadDType(uint8_t raw) {
  Require(raw < kNumDTypes, "unknown dtype {}", raw);
  return static_cast<DType>(raw);
}

void WriteTensor(const TensorIr& tensor, schema::TensorIr::Builder out) {
  out.setId(tensor.id);
  WriteShape(tensor.shape, out.initShape(static_cast<unsigned>(tensor.shape.size())));
  out.setStatus(static_cast<uint8_t>(tensor.status));
  out.setDtype(static_cast<uint8_t>(tensor.dtype));
}

TensorIr ReadTensor(schema::TensorIr::Reader in) {
  return TensorIr{.id = in.getId(),
                  .shape = ReadShapeIds(in.getShape()),
                  .status = ReadEnum<TensorStatus>(in.getStatus(), "tensor status"),
                  .dtype = ReadDType(in.getDtype())};
}

std::vector<uint8_t> WordsToBytes(kj::ArrayPtr<const capnp::word> words) {
  const auto* begin = reinterpret_cast<const uint8_t*>(words.begin());
  return std::vector<uint8_t>(begin, begin + words.size() * sizeof(capnp::word));
}

Status ReadCanonicalMessage(std::span<const uint8_t> bytes, std::string_view what,
                            const std::function<void(capnp::MessageReader&)>& read) {
  constexpr size_t kWord = sizeof(capnp::word);
  if (bytes.size() < kWord || bytes.size() % kWord != 0) {
    return Status::Corruption(
        fmt::format("{}: {} bytes is not a whole number of 8-byte words", what, bytes.size()));
  }
  // Copied: a blob from SQLite or a file has no alignment guarantee, and Cap'n Proto reads
  // words in place.
  const size_t num_words = bytes.size() / kWord;
  kj::Array<capnp::word> words = kj::heapArray<capnp::word>(num_words);
  std::memcpy(words.begin(), bytes.data(), bytes.size());
  const kj::ArrayPtr<const capnp::word> segments[1] = {words.asPtr()};
  capnp::ReaderOptions options;
  options.traversalLimitInWords = num_words * kTraversalFactor + kTraversalSlack;
  options.nestingLimit = kNestingLimit;
  try {
    capnp::SegmentArrayMessageReader message(kj::arrayPtr(segments, 1), options);
    if (!message.isCanonical()) {
      return Status::Corruption(fmt::format("{}: not a canonical message", what));
    }
    read(message);
  } catch (const CodecError& e) {
    return Status::Corruption(fmt::format("{}: {}", what, e.what()));
  } catch (const kj::Exception& e) {
    return Status::Corruption(fmt::format("{}: {}", what, e.getDescription().cStr()));
  } catch (const std::exception& e) {
    return Status::Corruption(fmt::format("{}: {}", what, e.what()));
  }
  return Status::Ok();
}

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
  status = CheckFuseTrace(state.trace);
  if (!status.ok()) return status;
  *out = std::move(state);
  return Status::Ok();
}

Status CheckFuseTrace(const FuseTrace& trace) {
  const FuseResources& r = trace.resources;
  for (size_t b = 0; b < trace.blocks.size(); ++b) {
    const FuseBlock& block = trace.blocks[b];
    for (const auto* ops : {&block.reads, &block.ops, &block.writes}) {
      for (const FuseOp& op : *ops) {
        for (int k = 0; k < FuseOpArity(op.kind); ++k) {
          if (Status s = CheckArg(trace, b, op.args[k]); !s.ok()) return s;
        }
        if (Status s = CheckArg(trace, b, op.out); !s.ok()) return s;
        if (!Writable(op.out.kind)) {
          return Bad(
              fmt::format("block {} writes to argument kind {}", b, static_cast<int>(op.out.kind)));
        }
      }
    }
  }
  for (size_t v = 0; v < r.views.size(); ++v) {
    if (r.views[v].input >= r.inputs.size()) {
      return Bad(fmt::format("view {} of input {} of {}", v, r.views[v].input, r.inputs.size()));
    }
  }
  for (size_t i = 0; i < trace.reduces.size(); ++i) {
    const ReduceStage& stage = trace.reduces[i];
    if (static_cast<size_t>(stage.from) + 1 >= trace.blocks.size()) {
      return Bad(fmt::format("reduce from block {} of {}", stage.from, trace.blocks.size()));
    }
    if (i > 0 && stage.from <= trace.reduces[i - 1].from) {
      return Bad("reduce stages not ordered by block");
    }
    const size_t rank = trace.blocks[stage.from].shape_ref.size();
    if (stage.axis < 0 || static_cast<size_t>(stage.axis) >= rank) {
      return Bad(fmt::format("reduce axis {} of rank {}", stage.axis, rank));
    }
    if (stage.input.kind != FuseArgKind::kMultiBlockLocal || stage.input.block != stage.from ||
        stage.output.kind != FuseArgKind::kLocal ||
        stage.output.pos >= trace.blocks[stage.from + 1].num_locals) {
      return Bad(fmt::format("reduce from block {} has unusable arguments", stage.from));
    }
  }
  if (trace.matmul) {
    const MatmulStage& m = *trace.matmul;
    if (trace.blocks.empty() || m.lhs >= r.inputs.size() || m.rhs >= r.inputs.size() ||
        m.output.kind != FuseArgKind::kLocal || m.output.pos >= trace.blocks[0].num_locals) {
      return Bad("matmul stage has unusable arguments");
    }
  }
  return Status::Ok();
}

}  // namespace ember

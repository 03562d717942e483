#include "store/codec/plan_codec.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <string>

#include <capnp/message.h>
#include <fmt/format.h>

#include "engine/core/check.h"
#include "engine/fuse/optimization_factory.h"
#include "engine/search/graph/lifetime.h"
#include "engine/search/graph/node.h"
#include "schema/plan.capnp.h"
#include "store/codec/canonical_message.h"
#include "store/codec/plan_proof.h"
#include "store/codec/trace_codec.h"

namespace ember {
namespace {

// --- Ops ---------------------------------------------------------------------------------------

void WriteOperation(const OperationIr& op, schema::OperationIr::Builder out) {
  out.setKind(static_cast<uint16_t>(op.kind));
  out.setDtype(static_cast<uint8_t>(op.dtype));
  auto inputs = out.initInputs(Count(op.inputs.size()));
  for (size_t i = 0; i < op.inputs.size(); ++i) WriteTensor(op.inputs[i], inputs[Count(i)]);
  auto outputs = out.initOutputs(Count(op.outputs.size()));
  for (size_t i = 0; i < op.outputs.size(); ++i) WriteTensor(op.outputs[i], outputs[Count(i)]);
  auto scalars = out.initScalars(Count(op.scalars.size()));
  for (size_t i = 0; i < op.scalars.size(); ++i) {
    scalars[Count(i)].setKind(static_cast<uint8_t>(op.scalars[i].kind));
    scalars[Count(i)].setBits(op.scalars[i].bits);
  }
  auto ranges = out.initRanges(Count(op.ranges.size()));
  for (size_t i = 0; i < op.ranges.size(); ++i) {
    const Slice& range = op.ranges[i];
    schema::Slice::Builder o = ranges[Count(i)];
    o.setStart(range.start);
    if (range.end) {
      o.getEnd().setAt(*range.end);
    } else {
      o.getEnd().setToTheEnd();
    }
    o.setStep(range.step);
  }
  auto dims = out.initDims(Count(op.dims.size()));
  for (size_t i = 0; i < op.dims.size(); ++i) dims.set(Count(i), op.dims[i]);
  schema::Distribution::Builder d = out.initDistribution();
  d.setKind(static_cast<uint8_t>(op.distribution.kind));
  d.setABits(std::bit_cast<uint64_t>(op.distribution.a));
  d.setBBits(std::bit_cast<uint64_t>(op.distribution.b));
}

void WriteOperations(std::span<const OperationIr> ops,
                     capnp::List<schema::OperationIr>::Builder out) {
  for (size_t i = 0; i < ops.size(); ++i) WriteOperation(ops[i], out[Count(i)]);
}

OperationIr ReadOperation(schema::OperationIr::Reader in) {
  OperationIr op;
  Require(in.getKind() < kNumOpKinds, "unknown op kind {}", in.getKind());
  op.kind = static_cast<OpKind>(in.getKind());
  op.dtype = ReadDType(in.getDtype());
  for (schema::TensorIr::Reader t : in.getInputs()) op.inputs.push_back(ReadTensor(t));
  for (schema::TensorIr::Reader t : in.getOutputs()) op.outputs.push_back(ReadTensor(t));
  for (schema::ScalarIr::Reader s : in.getScalars()) {
    op.scalars.push_back(ScalarIr{.kind = ReadEnum<ScalarIr::Kind>(s.getKind(), "scalar kind"),
                                  .bits = s.getBits()});
  }
  for (schema::Slice::Reader r : in.getRanges()) {
    Slice range{.start = r.getStart(), .step = r.getStep()};
    const auto end = r.getEnd();
    switch (end.which()) {
      case schema::Slice::End::TO_THE_END: break;
      case schema::Slice::End::AT: range.end = end.getAt(); break;
      default: Require(false, "unknown slice end variant");  // written by a newer schema
    }
    op.ranges.push_back(range);
  }
  for (int64_t dim : in.getDims()) op.dims.push_back(dim);
  const auto d = in.getDistribution();
  op.distribution = Distribution{.kind = ReadEnum<Distribution::Kind>(d.getKind(), "distribution"),
                                 .a = std::bit_cast<double>(d.getABits()),
                                 .b = std::bit_cast<double>(d.getBBits())};
  const Status layout = CheckOperationLayout(op);
  Require(layout.ok(), "{}", layout.message());
  return op;
}

std::vector<OperationIr> ReadOperations(capnp::List<schema::OperationIr>::Reader in) {
  std::vector<OperationIr> ops;
  ops.reserve(in.size());
  for (schema::OperationIr::Reader op : in) ops.push_back(ReadOperation(op));
  return ops;
}

// --- Strategies --------------------------------------------------------------------------------

void WriteOrdering(const std::vector<size_t>& ordering, capnp::List<uint32_t>::Builder out) {
  for (size_t i = 0; i < ordering.size(); ++i) {
    EMBER_CHECK(ordering[i] <= UINT32_MAX, "queue position {}", ordering[i]);
    out.set(Count(i), static_cast<uint32_t>(ordering[i]));
  }
}

std::vector<size_t> ReadOrdering(capnp::List<uint32_t>::Reader in) {
  std::vector<size_t> ordering;
  ordering.reserve(in.size());
  for (uint32_t position : in) ordering.push_back(position);
  return ordering;
}

void WriteStrategy(const ExecutionStrategy& strategy, schema::ExecutionStrategy::Builder out) {
  switch (strategy.kind) {
    case ExecutionStrategy::Kind::kOptimization: {
      EMBER_CHECK(strategy.optimization != nullptr, "a fused leaf without its optimization");
      const OptimizationState state = strategy.optimization->ToState();
      auto o = out.initOptimization();
      auto s = o.initState();
      s.setName(state.name);
      const std::vector<uint8_t> bytes = EncodeTraceState(state.trace);
      s.setBytes(kj::arrayPtr(bytes.data(), bytes.size()));
      WriteOrdering(strategy.ordering, o.initOrdering(Count(strategy.ordering.size())));
      o.setScore(strategy.score);
      return;
    }
    case ExecutionStrategy::Kind::kOperations:
      WriteOrdering(strategy.ordering,
                    out.initOperations().initOrdering(Count(strategy.ordering.size())));
      return;
    case ExecutionStrategy::Kind::kComposed: {
      auto children = out.initComposed().initChildren(Count(strategy.children.size()));
      for (size_t i = 0; i < strategy.children.size(); ++i) {
        WriteStrategy(strategy.children[i], children[Count(i)]);
      }
      return;
    }
  }
}

ExecutionStrategy ReadStrategy(schema::ExecutionStrategy::Reader in, int depth) {
  Require(depth <= kMaxStrategyDepth, "strategy nested too deep");
  switch (in.which()) {
    case schema::ExecutionStrategy::OPTIMIZATION: {
      const auto o = in.getOptimization();
      const auto s = o.getState();
      const auto name = s.getName();
      const auto bytes = s.getBytes();
      OptimizationState state{.name = std::string(name.begin(), name.end())};
      Require(IsKnownOptimization(state.name), "unknown optimization '{}'", state.name);
      const Status decoded = DecodeTraceState(std::span(bytes.begin(), bytes.end()), &state.trace);
      Require(decoded.ok(), "optimization {}: {}", state.name, decoded.message());
      std::shared_ptr<Optimization> optimization;
      const Status status = OptimizationFromState(state, &optimization);
      Require(status.ok(), "{}", status.message());
      return ExecutionStrategy::Fused(std::move(optimization), ReadOrdering(o.getOrdering()),
                                      o.getScore());
    }
    case schema::ExecutionStrategy::OPERATIONS:
      return ExecutionStrategy::Operations(ReadOrdering(in.getOperations().getOrdering()));
    case schema::ExecutionStrategy::COMPOSED: {
      std::vector<ExecutionStrategy> children;
      for (schema::ExecutionStrategy::Reader child : in.getComposed().getChildren()) {
        children.push_back(ReadStrategy(child, depth + 1));
      }
      return ExecutionStrategy::Composed(std::move(children));
    }
  }
  Require(false, "unknown strategy variant");  // written by a newer schema
  return {};
}

// --- Validation --------------------------------------------------------------------------------

// The counters of one relative frame (Note [Relative form], engine/ir/relative.h), replayed
// over ops in submission order: each new id must be the next one handed out.
struct RelativeFrame {
  uint64_t tensors = 0;
  int64_t shapes = 1;  // id 0 (dim value 1) is seeded
  uint64_t scalars = 0;
  int64_t ranges = 0;

  Status Tensor(const TensorIr& t) {
    if (t.id > tensors) return Bad(fmt::format("tensor id {} before id {}", t.id, tensors));
    if (t.id == tensors) ++tensors;
    for (int64_t id : t.shape) {
      if (id < 0 || id > shapes) return Bad(fmt::format("shape id {} before id {}", id, shapes));
      if (id == shapes) ++shapes;
    }
    return Status::Ok();
  }

  // The converter visits inputs, scalars, ranges, then outputs (InputsThenOutputs); the
  // counters are independent, so only the tensors' order matters.
  Status Visit(const OperationIr& op) {
    for (const TensorIr& t : op.inputs) {
      if (Status s = Tensor(t); !s.ok()) return s;
    }
    for (const ScalarIr& s : op.scalars) {
      if (!(s == ScalarIr::UInt(scalars))) {
        return Bad(fmt::format("scalar is not placeholder {}", scalars));
      }
      ++scalars;
    }
    for (const Slice& r : op.ranges) {
      if (!(r == Slice{ranges, std::nullopt, 1})) {
        return Bad(fmt::format("range is not placeholder {}", ranges));
      }
      ++ranges;
    }
    for (const TensorIr& t : op.outputs) {
      if (Status s = Tensor(t); !s.ok()) return s;
    }
    return Status::Ok();
  }

  static Status Bad(std::string message) {
    return Status::Corruption("not in relative form: " + std::move(message));
  }
};

Status CheckLeaves(const ExecutionStrategy& strategy, int depth) {
  if (depth > kMaxStrategyDepth) return Status::Corruption("strategy nested too deep");
  switch (strategy.kind) {
    case ExecutionStrategy::Kind::kOptimization:
      if (strategy.optimization == nullptr) {
        return Status::Corruption("fused leaf without optimization");
      }
      if (strategy.ordering.empty() || strategy.ordering.size() != strategy.optimization->len()) {
        return Status::Corruption(fmt::format("fused leaf over {} positions for {} ops",
                                              strategy.ordering.size(),
                                              strategy.optimization->len()));
      }
      return Status::Ok();
    case ExecutionStrategy::Kind::kOperations: return Status::Ok();
    case ExecutionStrategy::Kind::kComposed:
      for (const ExecutionStrategy& child : strategy.children) {
        if (Status s = CheckLeaves(child, depth + 1); !s.ok()) return s;
      }
      return Status::Ok();
  }
  return Status::Corruption("unknown strategy kind");
}

void WriteBlock(const BlockOptimization& block, schema::BlockOptimization::Builder out) {
  WriteStrategy(block.strategy, out.initStrategy());
  WriteOrdering(block.ordering, out.initOrdering(Count(block.ordering.size())));
}

BlockOptimization ReadBlock(schema::BlockOptimization::Reader in) {
  BlockOptimization block;
  block.strategy = ReadStrategy(in.getStrategy(), 0);
  block.ordering = ReadOrdering(in.getOrdering());
  return block;
}

// The invariants of a block over `n` ops (ValidatePlan's list, minus what needs the ops).
Status CheckBlock(const BlockOptimization& block, size_t n) {
  if (block.ordering.size() != n) {
    return Status::Corruption(
        fmt::format("ordering of {} positions for {} ops", block.ordering.size(), n));
  }
  std::vector<bool> seen(n, false);
  for (size_t position : block.ordering) {
    if (position >= n || seen[position]) {
      return Status::Corruption(fmt::format("ordering is not a permutation of 0..{}", n - 1));
    }
    seen[position] = true;
  }
  if (Status s = CheckLeaves(block.strategy, 0); !s.ok()) return s;
  if (block.strategy.FlatOrdering() != block.ordering) {
    return Status::Corruption("the strategy's leaves do not cover the block ordering");
  }
  return Status::Ok();
}

}  // namespace

std::vector<uint8_t> EncodePlan(const ExecutionPlan& plan) {
  capnp::MallocMessageBuilder message;
  auto root = message.initRoot<schema::ExecutionPlan>();
  WriteOperations(plan.operations, root.initOperations(Count(plan.operations.size())));
  auto triggers = root.initTriggers(Count(plan.triggers.size()));
  for (size_t i = 0; i < plan.triggers.size(); ++i) {
    const ExecutionTrigger& trigger = plan.triggers[i];
    schema::ExecutionTrigger::Builder t = triggers[Count(i)];
    t.setKind(static_cast<uint8_t>(trigger.kind));
    WriteOperations(trigger.operations, t.initOperations(Count(trigger.operations.size())));
  }
  WriteBlock(plan.optimization, root.initOptimization());
  return WordsToBytes(capnp::canonicalize(root.asReader()));
}

Status DecodePlan(std::span<const uint8_t> bytes, ExecutionPlan* out) {
  ExecutionPlan plan;
  const Status status = ReadCanonicalMessage(bytes, "plan", [&](capnp::MessageReader& message) {
    const auto root = message.getRoot<schema::ExecutionPlan>();
    plan.operations = ReadOperations(root.getOperations());
    for (schema::ExecutionTrigger::Reader t : root.getTriggers()) {
      plan.triggers.push_back(
          ExecutionTrigger{.kind = ReadEnum<ExecutionTrigger::Kind>(t.getKind(), "trigger kind"),
                           .operations = ReadOperations(t.getOperations())});
    }
    plan.optimization = ReadBlock(root.getOptimization());
  });
  if (!status.ok()) return status;
  if (Status valid = ValidatePlan(plan); !valid.ok()) {
    return Status::Corruption("plan: " + valid.message());
  }
  *out = std::move(plan);
  return Status::Ok();
}

std::vector<uint8_t> EncodeBlockOptimization(const BlockOptimization& block) {
  capnp::MallocMessageBuilder message;
  auto root = message.initRoot<schema::BlockOptimization>();
  WriteBlock(block, root);
  return WordsToBytes(capnp::canonicalize(root.asReader()));
}

Status DecodeBlockOptimization(std::span<const uint8_t> bytes, BlockOptimization* out) {
  BlockOptimization block;
  const Status status =
      ReadCanonicalMessage(bytes, "block optimization", [&](capnp::MessageReader& message) {
        block = ReadBlock(message.getRoot<schema::BlockOptimization>());
      });
  if (!status.ok()) return status;
  if (Status valid = CheckBlock(block, block.ordering.size()); !valid.ok()) {
    return Status::Corruption("block optimization: " + valid.message());
  }
  *out = std::move(block);
  return Status::Ok();
}

std::vector<uint8_t> EncodeOperations(std::span<const OperationIr> ops) {
  capnp::MallocMessageBuilder message;
  auto root = message.initRoot<schema::OperationList>();
  WriteOperations(ops, root.initOperations(Count(ops.size())));
  return WordsToBytes(capnp::canonicalize(root.asReader()));
}

Status DecodeOperations(std::span<const uint8_t> bytes, std::vector<OperationIr>* out) {
  std::vector<OperationIr> ops;
  const Status status =
      ReadCanonicalMessage(bytes, "operations", [&](capnp::MessageReader& message) {
        ops = ReadOperations(message.getRoot<schema::OperationList>().getOperations());
      });
  if (!status.ok()) return status;
  *out = std::move(ops);
  return Status::Ok();
}

Hash128 PlanKey(std::span<const OperationIr> ops) { return HashOps(ops); }

uint64_t FirstOpHash(std::span<const OperationIr> ops) {
  EMBER_CHECK(!ops.empty(), "FirstOpHash of an empty op list");
  return HashOp(ops.front());
}

Status ValidatePlan(const ExecutionPlan& plan) {
  const size_t n = plan.operations.size();
  if (n == 0) return Status::Corruption("a plan without ops");
  RelativeFrame frame;
  for (const OperationIr& op : plan.operations) {
    if (Status s = CheckOperationLayout(op); !s.ok()) return s;
    if (Status s = frame.Visit(op); !s.ok()) return s;
  }

  for (size_t i = 0; i < plan.triggers.size(); ++i) {
    const ExecutionTrigger& trigger = plan.triggers[i];
    const bool on_ops = trigger.kind == ExecutionTrigger::Kind::kOnOperations;
    if (on_ops == trigger.operations.empty()) {
      return Status::Corruption(fmt::format("trigger {} of kind {} with {} ops", i,
                                            static_cast<int>(trigger.kind),
                                            trigger.operations.size()));
    }
    // Trigger ops follow the plan's ops in the same frame (plan.h).
    RelativeFrame continued = frame;
    for (const OperationIr& op : trigger.operations) {
      if (Status s = CheckOperationLayout(op); !s.ok()) return s;
      if (Status s = continued.Visit(op); !s.ok()) return s;
    }
    if (std::find(plan.triggers.begin(), plan.triggers.begin() + static_cast<ptrdiff_t>(i),
                  trigger) != plan.triggers.begin() + static_cast<ptrdiff_t>(i)) {
      return Status::Corruption(fmt::format("trigger {} repeats an earlier one", i));
    }
  }

  const BlockOptimization& block = plan.optimization;
  if (Status s = CheckBlock(block, n); !s.ok()) return s;
  const std::optional<size_t> needed = block.strategy.MaxRelativeShapeId();
  if (needed && *needed >= static_cast<size_t>(frame.shapes)) {
    return Status::Corruption(
        fmt::format("a fused leaf needs shape id {}, the ops hand out {}", *needed, frame.shapes));
  }
  // The block ordering is the order the ops run in (OperationQueue::ExecuteOptimization), and
  // nothing above ties it to the data flow: an unfused leaf may list its positions in any order,
  // and Composed children any order of leaves. A decoded plan that ran a reader before its
  // producer, or after its input's last use (a ReadWrite read or a Drop), failed on every live
  // queue it matched ("its input ... was never computed"; found by the plan_execute fuzz
  // target), and a purely unfused plan is never demoted, so the segment failed on every run.
  // Refused: a block ordering that breaks a tensor's lifetime (IsValidExecutionOrder) where the
  // ops' own order keeps it. A live queue's ops always run in their own order, so that is every
  // plan that can match one; ops whose own order is already broken match no queue and stay
  // the codec's business (their tests build such lists). Order repair
  // (engine/search/order_repair.h) gives every plan the search stores a valid ordering, so no
  // genuine plan is refused.
  std::vector<DataFlow> in_stream_order;
  in_stream_order.reserve(n);
  for (size_t position = 0; position < n; ++position) {
    in_stream_order.push_back(ForOperation(plan.operations[position], position));
  }
  if (!IsValidExecutionOrder(in_stream_order, block.ordering) &&
      IsValidExecutionOrder(in_stream_order)) {
    return Status::Corruption(
        "the block ordering runs an op before the op producing its input, or after its last use");
  }
  // Last: re-deriving a leaf needs the positions checked above.
  return ProveFusedLeaves(plan);
}

}  // namespace ember

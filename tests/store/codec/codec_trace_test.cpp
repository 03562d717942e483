// Traces built by the real fusers survive to_state/from_state unchanged, and the round-trip
// rule: from_state(to_state(x)) executes identically to x. Both run through the queue on the
// CPU backend over the same inputs, next to the same ops unfused; outputs are compared bit for
// bit and the execution counters (fused kernel or fallback, launches) must match, so the test
// means the same whether the backend runs the trace fused or falls back to the ops one by one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "engine/fuse/elementwise_fuser.h"
#include "engine/fuse/matmul_fuser.h"
#include "engine/fuse/optimization_factory.h"
#include "engine/fuse/reduce_broadcasted_fuser.h"
#include "engine/fuse/reduce_fuser.h"
#include "engine/fuse/trace_optimization.h"
#include "engine/ir/builders.h"
#include "engine/ir/relative.h"
#include "engine/runtime/cpu/cpu_backend.h"
#include "engine/stream/operation_queue.h"
#include "store/codec/canonical_message.h"
#include "store/codec/plan_codec.h"
#include "store/codec/trace_codec.h"
#include "tests/ir/sample_ops.h"

namespace ember {
namespace {

constexpr uint32_t kUnlimited = 0xffffffffu;

using test::F;
using test::Out;
using test::Ro;
using test::Rw;

std::vector<OperationIr> Relative(const std::vector<OperationIr>& global) {
  OperationConverter converter;
  std::vector<OperationIr> relative;
  for (const OperationIr& op : global) relative.push_back(converter.ToRelative(op));
  return relative;
}

// A run of global ops (real ids and sizes, as the API queues them) and the fuser that should
// take (a prefix of) it.
struct Pattern {
  std::string name;
  std::string fuser_name;
  std::function<std::unique_ptr<OperationFuser>()> fuser;
  std::vector<OperationIr> ops;
};

template <typename Fuser>
std::function<std::unique_ptr<OperationFuser>()> Make() {
  return [] { return std::make_unique<Fuser>(kUnlimited); };
}

std::vector<Pattern> Patterns() {
  const Shape r = {4, 8}, p = {4, 1};
  std::vector<Pattern> patterns;
  patterns.push_back({"seed (a*b + c*s).exp()", "ElementWise", Make<ElementWiseFuser>(),
                      ir_test::SeedProgram(0, r, 1.5)});
  // Broadcasting, casts through f16 and i32, a comparison feeding a mask, a dropped tensor, a
  // clamp, a literal, scalars of both kinds; the fuser stops at the reshape of an input it has
  // not read, so the tail runs unfused behind the fused leaf.
  patterns.push_back({"elementwise with casts, masks and literals",
                      "ElementWise",
                      Make<ElementWiseFuser>(),
                      {
                          ir::Binary(OpKind::kAdd, Ro(1, r), Ro(2, {1, 8}), Out(3, r)),
                          ir::Unary(OpKind::kCast, Ro(3, r), Out(4, r, DType::kF16)),
                          ir::Unary(OpKind::kExp, Rw(4, r, DType::kF16), Out(5, r, DType::kF16)),
                          ir::Unary(OpKind::kCast, Rw(5, r, DType::kF16), Out(6, r)),
                          ir::Scalar(OpKind::kLowerElem, Ro(6, r), F(1.5), Out(7, r, DType::kBool)),
                          ir::MaskFill(Rw(3, r), Rw(7, r, DType::kBool), F(-1.0), Out(8, r)),
                          ir::Drop(Rw(6, r)),
                          ir::Clamp(Rw(8, r), F(-0.5), F(3.0), Out(9, r)),
                          ir::Creation(OpKind::kOnes, Out(10, r)),
                          ir::Binary(OpKind::kAdd, Rw(9, r), Rw(10, r), Out(11, r)),
                          ir::Unary(OpKind::kReshape, Ro(18, {8}), Out(12, {1, 8})),
                          ir::SwapDims(Ro(19, {8, 4}), 0, 1, Out(13, r)),
                          ir::Binary(OpKind::kMul, Rw(11, r), Rw(13, r), Out(14, r)),
                          ir::Binary(OpKind::kAdd, Rw(14, r), Rw(12, {1, 8}), Out(20, r)),
                          ir::Unary(OpKind::kCast, Ro(20, r), Out(15, r, DType::kI32)),
                          ir::Scalar(OpKind::kMulScalar, Rw(15, r, DType::kI32), ScalarIr::Int(3),
                                     Out(16, r, DType::kI32)),
                          ir::Scalar(OpKind::kRemScalar, Rw(16, r, DType::kI32), ScalarIr::Int(5),
                                     Out(17, r, DType::kI32)),
                      }});
  // Inputs read in the kernel and then through views of them (FuseView).
  patterns.push_back({"reshape and swap_dims views of inputs",
                      "ElementWise",
                      Make<ElementWiseFuser>(),
                      {
                          ir::Binary(OpKind::kAdd, Ro(1, {8, 8}), Ro(2, {8, 1}), Out(3, {8, 8})),
                          ir::Unary(OpKind::kReshape, Ro(2, {8, 1}), Out(4, {1, 8})),
                          ir::Binary(OpKind::kMul, Rw(3, {8, 8}), Rw(4, {1, 8}), Out(5, {8, 8})),
                          ir::SwapDims(Ro(1, {8, 8}), 0, 1, Out(6, {8, 8})),
                          ir::Binary(OpKind::kSub, Rw(5, {8, 8}), Rw(6, {8, 8}), Out(7, {8, 8})),
                      }});
  patterns.push_back({"exp, sum over the rows, divide",
                      "Reduce",
                      Make<ReduceFuser>(),
                      {
                          ir::Unary(OpKind::kExp, Ro(1, r), Out(2, r)),
                          ir::ReduceDim(OpKind::kSumDim, Rw(2, r), 1, Out(3, p)),
                          ir::Scalar(OpKind::kDivScalar, Rw(3, p), F(8.0), Out(4, p)),
                      }});
  patterns.push_back(
      {"f16 mean over the columns",
       "Reduce",
       Make<ReduceFuser>(),
       {
           ir::Unary(OpKind::kCast, Ro(1, r), Out(2, r, DType::kF16)),
           ir::Unary(OpKind::kExp, Rw(2, r, DType::kF16), Out(3, r, DType::kF16)),
           ir::ReduceDim(OpKind::kMeanDim, Rw(3, r, DType::kF16), 0, Out(4, {1, 8}, DType::kF16)),
           ir::Scalar(OpKind::kMulScalar, Rw(4, {1, 8}, DType::kF16), F(2.0),
                      Out(5, {1, 8}, DType::kF16)),
       }});
  patterns.push_back({"matmul with bias and scale",
                      "Matmul",
                      Make<MatmulFuser>(),
                      {
                          ir::Binary(OpKind::kMatmul, Ro(1, r), Ro(2, {8, 16}), Out(4, {4, 16})),
                          ir::Binary(OpKind::kAdd, Rw(4, {4, 16}), Ro(3, {1, 16}), Out(5, {4, 16})),
                          ir::Scalar(OpKind::kMulScalar, Rw(5, {4, 16}), F(0.5), Out(6, {4, 16})),
                      }});
  patterns.push_back({"softmax",
                      "ReduceBroadcasted",
                      Make<ReduceBroadcastedFuser>(),
                      {
                          ir::Scalar(OpKind::kMulScalar, Ro(1, r), F(0.7), Out(2, r)),
                          ir::ReduceDim(OpKind::kMaxDim, Ro(2, r), 1, Out(3, p)),
                          ir::Binary(OpKind::kSub, Rw(2, r), Rw(3, p), Out(4, r)),
                          ir::Unary(OpKind::kExp, Rw(4, r), Out(5, r)),
                          ir::ReduceDim(OpKind::kSumDim, Ro(5, r), 1, Out(6, p)),
                          ir::Binary(OpKind::kDiv, Rw(5, r), Rw(6, p), Out(7, r)),
                      }});
  patterns.push_back({"layer norm",
                      "ReduceBroadcasted",
                      Make<ReduceBroadcastedFuser>(),
                      {
                          ir::Binary(OpKind::kAdd, Ro(1, r), Ro(2, r), Out(3, r)),
                          ir::ReduceDim(OpKind::kMeanDim, Ro(3, r), 1, Out(4, p)),
                          ir::Binary(OpKind::kSub, Rw(3, r), Rw(4, p), Out(5, r)),
                          ir::Binary(OpKind::kMul, Ro(5, r), Ro(5, r), Out(6, r)),
                          ir::ReduceDim(OpKind::kMeanDim, Rw(6, r), 1, Out(7, p)),
                          ir::Scalar(OpKind::kAddScalar, Rw(7, p), F(1e-5), Out(8, p)),
                          ir::Unary(OpKind::kSqrt, Rw(8, p), Out(9, p)),
                          ir::Binary(OpKind::kDiv, Rw(5, r), Rw(9, p), Out(10, r)),
                      }});
  return patterns;
}

const Pattern& PatternNamed(std::string_view name) {
  static const std::vector<Pattern> patterns = Patterns();
  for (const Pattern& pattern : patterns) {
    if (pattern.name == name) return pattern;
  }
  ADD_FAILURE() << "no pattern " << name;
  return patterns.front();
}

struct Fused {
  std::shared_ptr<TraceOptimization> optimization;
  uint64_t score = 0;
};

// Feeds the pattern's relative ops to its fuser (which closes on the first op it cannot take)
// and finishes it.
Fused Fuse(const Pattern& pattern) {
  std::unique_ptr<OperationFuser> fuser = pattern.fuser();
  for (const OperationIr& op : Relative(pattern.ops)) fuser->Fuse(op);
  EXPECT_TRUE(fuser->properties().ready);
  EXPECT_GE(fuser->len(), 2u);
  const uint64_t score = fuser->properties().score;
  return {std::dynamic_pointer_cast<TraceOptimization>(fuser->Finish()), score};
}

std::shared_ptr<Optimization> FromState(const OptimizationState& state) {
  std::shared_ptr<Optimization> optimization;
  const Status status = OptimizationFromState(state, &optimization);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return optimization;
}

// The optimization over the first len() positions, the rest unfused.
BlockOptimization FusedBlock(std::shared_ptr<Optimization> optimization, uint64_t score, size_t n) {
  std::vector<size_t> ordering(optimization->len());
  std::iota(ordering.begin(), ordering.end(), size_t{0});
  BlockOptimization block{ExecutionStrategy::Fused(std::move(optimization), ordering, score),
                          ordering};
  block.IncludeTrailing(n);
  return block;
}

// Deterministic inputs: every tensor an op reads before any op writes it, f32 values in
// [-2, 2) from a fixed linear congruential sequence (the same on every platform).
void UploadInputs(const std::vector<OperationIr>& ops, Backend& backend, HandleContainer& handles) {
  uint64_t state = 0x9e3779b97f4a7c15u;
  std::vector<TensorId> written;
  for (const OperationIr& op : ops) {
    for (const TensorIr& t : op.inputs) {
      if (std::find(written.begin(), written.end(), t.id) != written.end()) continue;
      ASSERT_EQ(t.dtype, DType::kF32) << "inputs are f32";
      std::vector<float> values(static_cast<size_t>(NumElements(t.shape)));
      for (float& v : values) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        v = static_cast<float>(
            static_cast<double>(state >> 40) / static_cast<double>(1 << 24) * 4.0 - 2.0);
      }
      std::vector<std::byte> bytes(values.size() * sizeof(float));
      std::memcpy(bytes.data(), values.data(), bytes.size());
      handles.Register(t.id, backend.FromHost(bytes, t.shape, t.dtype));
      written.push_back(t.id);
    }
    for (const TensorIr& t : op.outputs) written.push_back(t.id);
  }
}

struct Outcome {
  std::map<TensorId, std::vector<std::byte>> tensors;  // every handle left, as host bytes
  ExecutionCounters counters;
};

Outcome Execute(const std::vector<OperationIr>& ops, const BlockOptimization& block) {
  std::unique_ptr<Backend> backend = cpu::MakeCpuBackend(1);
  HandleContainer handles;
  UploadInputs(ops, *backend, handles);
  OperationQueue queue;
  for (const OperationIr& op : ops) queue.Add(op);
  queue.ExecuteOptimization(block, *backend, handles);
  EXPECT_TRUE(queue.empty());
  Outcome outcome;
  outcome.counters = queue.counters();
  for (const OperationIr& op : ops) {
    for (const TensorIr& t : op.Nodes()) {
      const TensorHandle* handle = handles.Peek(t.id);
      if (handle == nullptr || outcome.tensors.count(t.id) != 0) continue;
      std::vector<std::byte> bytes(static_cast<size_t>(handle->NumElements()) *
                                   DTypeSize(handle->dtype));
      backend->ToHost(*handle, bytes);
      outcome.tensors[t.id] = std::move(bytes);
    }
  }
  return outcome;
}

void ExpectIdentical(const Outcome& a, const Outcome& b) {
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (const auto& [id, bytes] : a.tensors) {
    ASSERT_EQ(b.tensors.count(id), 1u) << "t" << id;
    EXPECT_TRUE(bytes == b.tensors.at(id)) << "t" << id << " differs";
  }
  EXPECT_EQ(a.counters.fused_executions, b.counters.fused_executions);
  EXPECT_EQ(a.counters.unfused_operations, b.counters.unfused_operations);
  EXPECT_EQ(a.counters.launches, b.counters.launches);
}

TEST(TraceState, RealFuserTracesSurviveToStateAndFromState) {
  for (const Pattern& pattern : Patterns()) {
    SCOPED_TRACE(pattern.name);
    const Fused fused = Fuse(pattern);
    ASSERT_NE(fused.optimization, nullptr);
    EXPECT_EQ(fused.optimization->name(), pattern.fuser_name);
    EXPECT_TRUE(CheckFuseTrace(fused.optimization->trace()).ok());

    const OptimizationState state = fused.optimization->ToState();
    EXPECT_EQ(state.name, pattern.fuser_name);
    EXPECT_FALSE(EncodeTraceState(state.trace).empty());
    auto decoded = std::dynamic_pointer_cast<TraceOptimization>(FromState(state));
    ASSERT_NE(decoded, nullptr);
    EXPECT_EQ(decoded->name(), fused.optimization->name());
    EXPECT_EQ(decoded->trace(), fused.optimization->trace()) << FormatFuseTrace(decoded->trace());
    EXPECT_EQ(decoded->len(), fused.optimization->len());
    EXPECT_EQ(decoded->score(), fused.optimization->score());
    EXPECT_EQ(decoded->max_relative_shape_id(), fused.optimization->max_relative_shape_id());
    EXPECT_EQ(FormatFuseTrace(decoded->trace()), FormatFuseTrace(fused.optimization->trace()));
    EXPECT_EQ(decoded->ToState(), state);
    if (pattern.name == "reshape and swap_dims views of inputs") {
      EXPECT_EQ(decoded->trace().resources.views.size(), 2u) << FormatFuseTrace(decoded->trace());
    }
    if (pattern.fuser_name == "ReduceBroadcasted") {
      EXPECT_EQ(decoded->trace().reduces.size(), 2u);
    }
    if (pattern.fuser_name == "Matmul") {
      EXPECT_TRUE(decoded->trace().matmul.has_value());
    }
  }
}

TEST(Conformance, D9FromStateOfToStateExecutesIdentically) {
  for (const Pattern& pattern : Patterns()) {
    SCOPED_TRACE(pattern.name);
    const Fused fused = Fuse(pattern);
    ASSERT_NE(fused.optimization, nullptr);
    const size_t n = pattern.ops.size();
    const Outcome original = Execute(pattern.ops, FusedBlock(fused.optimization, fused.score, n));
    const Outcome rebuilt =
        Execute(pattern.ops, FusedBlock(FromState(fused.optimization->ToState()), fused.score, n));
    ExpectIdentical(original, rebuilt);
    // The fused trace computes what the ops compute one by one (Note [Fused trace]), so both
    // also match the unfused run; only the counters differ.
    const Outcome unfused = Execute(pattern.ops, BlockOptimization::Unfused(n));
    ASSERT_EQ(unfused.tensors.size(), original.tensors.size());
    for (const auto& [id, bytes] : unfused.tensors) {
      EXPECT_TRUE(original.tensors.count(id) == 1 && original.tensors.at(id) == bytes)
          << "t" << id << " differs from the unfused run";
    }
    std::printf("[   D9     ] %s: %zu of %zu ops %s\n", pattern.name.c_str(),
                fused.optimization->len(), n,
                original.counters.fused_executions == 1 ? "ran fused" : "fell back to one by one");
  }
}

TEST(Conformance, D9ADecodedPlanExecutesIdentically) {
  // Two fused leaves from two fusers and an unfused one, nested, through EncodePlan/DecodePlan.
  const Shape r = {4, 8}, p = {4, 1};
  const std::vector<OperationIr> ops = {
      ir::Binary(OpKind::kMul, Ro(1, r), Ro(2, r), Out(4, r)),
      ir::Scalar(OpKind::kMulScalar, Ro(3, r), F(2.0), Out(5, r)),
      ir::Binary(OpKind::kAdd, Rw(4, r), Rw(5, r), Out(6, r)),
      ir::Unary(OpKind::kExp, Rw(6, r), Out(7, r)),
      ir::Unary(OpKind::kExp, Ro(7, r), Out(8, r)),
      ir::ReduceDim(OpKind::kSumDim, Rw(8, r), 1, Out(9, p)),
      ir::Scalar(OpKind::kDivScalar, Rw(9, p), F(3.0), Out(10, p)),
      ir::Unary(OpKind::kNeg, Rw(7, r), Out(11, r)),
  };
  const std::vector<OperationIr> relative = Relative(ops);
  ElementWiseFuser elementwise(kUnlimited);
  for (size_t i = 0; i < 4; ++i) elementwise.Fuse(relative[i]);
  ReduceFuser reduce(kUnlimited);
  for (size_t i = 4; i < 7; ++i) reduce.Fuse(relative[i]);
  ASSERT_EQ(elementwise.len(), 4u);
  ASSERT_EQ(reduce.len(), 3u);
  const uint64_t ew_score = elementwise.properties().score;
  const uint64_t reduce_score = reduce.properties().score;
  const ExecutionPlan plan{
      relative,
      {ExecutionTrigger::Always()},
      BlockOptimization{ExecutionStrategy::Composed({
                            ExecutionStrategy::Fused(elementwise.Finish(), {0, 1, 2, 3}, ew_score),
                            ExecutionStrategy::Composed({
                                ExecutionStrategy::Fused(reduce.Finish(), {4, 5, 6}, reduce_score),
                                ExecutionStrategy::Operations({7}),
                            }),
                        }),
                        {0, 1, 2, 3, 4, 5, 6, 7}}};
  ExecutionPlan decoded;
  const Status status = DecodePlan(EncodePlan(plan), &decoded);
  ASSERT_TRUE(status.ok()) << status.ToString();
  const Outcome original = Execute(ops, plan.optimization);
  const Outcome rebuilt = Execute(ops, decoded.optimization);
  ExpectIdentical(original, rebuilt);
  std::printf("[   D9     ] decoded plan: %llu fused kernel(s), %llu op(s) one by one\n",
              static_cast<unsigned long long>(rebuilt.counters.fused_executions),
              static_cast<unsigned long long>(rebuilt.counters.unfused_operations));
}

// --- The factory's refusals --------------------------------------------------------------------

Status FromStateStatus(const OptimizationState& state) {
  std::shared_ptr<Optimization> optimization;
  return OptimizationFromState(state, &optimization);
}

TEST(OptimizationFactory, RefusesUnknownNamesAndBadBytes) {
  const Fused reduce = Fuse(PatternNamed("exp, sum over the rows, divide"));
  const OptimizationState state = reduce.optimization->ToState();
  ASSERT_TRUE(FromStateStatus(state).ok());
  const Fused elementwise = Fuse(PatternNamed("seed (a*b + c*s).exp()"));

  EXPECT_EQ(FromStateStatus({"TestOptimization", state.trace}).code(), Status::Code::kCorruption);
  EXPECT_EQ(FromStateStatus({"", state.trace}).code(), Status::Code::kCorruption);
  EXPECT_EQ(FromStateStatus({"Reduce", {}}).code(), Status::Code::kCorruption);
  // Bytes that are no trace state never reach the factory: the codec refuses them.
  TraceState garbage;
  EXPECT_EQ(DecodeTraceState(std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8}, &garbage).code(),
            Status::Code::kCorruption);
  // A Matmul without its matmul stage, and a matmul stage under another name.
  EXPECT_EQ(FromStateStatus({"Matmul", elementwise.optimization->ToState().trace}).code(),
            Status::Code::kCorruption);
  const Fused matmul = Fuse(PatternNamed("matmul with bias and scale"));
  EXPECT_EQ(FromStateStatus({"ElementWise", matmul.optimization->ToState().trace}).code(),
            Status::Code::kCorruption);
  // Any of the four names takes a trace of its shape.
  EXPECT_TRUE(FromStateStatus({"ReduceBroadcasted", state.trace}).ok());
}

// --- The trace validator ---------------------------------------------------------------------

// `edit` applied to the softmax trace makes DecodeTraceState fail with `reason`.
void ExpectTraceRefused(const std::function<void(TraceState&)>& edit, std::string_view reason) {
  const Fused softmax = Fuse(PatternNamed("softmax"));
  TraceState state{softmax.optimization->trace(), softmax.optimization->len(),
                   softmax.optimization->score()};
  edit(state);
  TraceState decoded;
  const Status status = DecodeTraceState(EncodeTraceState(state), &decoded);
  EXPECT_EQ(status.code(), Status::Code::kCorruption) << reason;
  EXPECT_NE(status.message().find(reason), std::string::npos) << status.ToString();
}

FuseOp& FirstRead(TraceState& s) { return s.trace.blocks[0].reads[0]; }

TEST(TraceCodec, RefusesTracesThatPointOutsideThemselves) {
  {
    // The unedited trace decodes: each refusal below is caused by its edit alone.
    const Fused softmax = Fuse(PatternNamed("softmax"));
    TraceState decoded;
    EXPECT_TRUE(
        DecodeTraceState(EncodeTraceState({softmax.optimization->trace(), 6, 1}), &decoded).ok());
  }
  ExpectTraceRefused([](TraceState& s) { s.len = 0; }, "covering no op");
  ExpectTraceRefused([](TraceState& s) { FirstRead(s).args[0].pos = 99; }, "names input 99");
  ExpectTraceRefused([](TraceState& s) { FirstRead(s).out.pos = 1000; }, "names local 1000");
  ExpectTraceRefused(
      [](TraceState& s) {
        FirstRead(s).args[0] = {FuseArgKind::kLiteral, DType::kF32, 2, 0};
      },
      "names literal 2");
  ExpectTraceRefused(
      [](TraceState& s) {
        FirstRead(s).args[0] = {FuseArgKind::kScalar, DType::kF32, 5, 0};
      },
      "names scalar 5");
  ExpectTraceRefused(
      [](TraceState& s) {
        FirstRead(s).args[0] = {FuseArgKind::kInputView, DType::kF32, 0, 0};
      },
      "names view 0");
  ExpectTraceRefused(
      [](TraceState& s) {
        FirstRead(s).args[0] = {FuseArgKind::kMultiBlockLocal, DType::kF32, 0, 9};
      },
      "a value of block 9");
  ExpectTraceRefused(
      [](TraceState& s) {
        FirstRead(s).out = {FuseArgKind::kInput, DType::kF32, 0, 0};
      },
      "writes to argument kind 0");
  ExpectTraceRefused([](TraceState& s) { s.trace.resources.views.push_back(FuseView{.input = 7}); },
                     "view 0 of input 7");
  ExpectTraceRefused([](TraceState& s) { s.trace.reduces[1].from = 4; }, "reduce from block 4");
  ExpectTraceRefused([](TraceState& s) { s.trace.reduces[1].from = 0; }, "not ordered");
  ExpectTraceRefused([](TraceState& s) { s.trace.reduces[0].axis = 2; }, "reduce axis 2");
  ExpectTraceRefused([](TraceState& s) { s.trace.reduces[0].input.block = 1; },
                     "unusable arguments");
  ExpectTraceRefused([](TraceState& s) { s.trace.reduces[0].output.pos = 1000; },
                     "unusable arguments");
  ExpectTraceRefused(
      [](TraceState& s) {
        s.trace.matmul = MatmulStage{.lhs = 3, .output = {FuseArgKind::kLocal, DType::kF32, 0, 0}};
      },
      "matmul stage");
  ExpectTraceRefused([](TraceState& s) { s.trace.blocks[0].shape_ref[0] = -2; },
                     "negative relative shape id -2");
}

}  // namespace
}  // namespace ember

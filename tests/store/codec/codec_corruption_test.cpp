// Bad bytes never crash the decoders (Note [Canonical messages]): every truncation of a valid
// blob, random bytes, and bit flips and overwritten bytes in valid blobs give a Status, and
// whatever does decode is a plan that passes ValidatePlan and encodes again. Run under the
// address sanitizer build as well (EMBER_SANITIZE=address).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "engine/fuse/optimization_factory.h"
#include "engine/fuse/reduce_broadcasted_fuser.h"
#include "engine/fuse/trace_optimization.h"
#include "engine/ir/builders.h"
#include "engine/ir/relative.h"
#include "store/codec/canonical_message.h"
#include "store/codec/plan_codec.h"
#include "store/codec/trace_codec.h"
#include "tests/ir/sample_ops.h"

namespace ember {
namespace {

using test::Out;
using test::Ro;
using test::Rw;

// A softmax fused by ReduceBroadcasted (a five-block trace with two reduce stages, nested as
// bytes inside the plan), then an op left unfused, with a trigger of each kind.
ExecutionPlan SoftmaxPlan() {
  std::vector<OperationIr> global = ir_test::SoftmaxProgram();
  global.push_back(ir::SliceOp(Rw(7, {4, 8}), {Slice{1, 3, 1}}, Out(8, {2, 8})));
  global.push_back(ir::Unary(OpKind::kNeg, Ro(8, {2, 8}), Out(9, {2, 8})));
  OperationConverter converter;
  std::vector<OperationIr> ops;
  for (const OperationIr& op : global) ops.push_back(converter.ToRelative(op));
  ReduceBroadcastedFuser fuser(0xffffffffu);
  for (size_t i = 0; i < 6; ++i) fuser.Fuse(ops[i]);
  EXPECT_TRUE(fuser.properties().ready);
  const uint64_t score = fuser.properties().score;
  std::vector<OperationIr> trigger = {ops[7]};
  ops.pop_back();
  ExecutionStrategy strategy = ExecutionStrategy::Composed(
      {ExecutionStrategy::Fused(fuser.Finish(), {0, 1, 2, 3, 4, 5}, score),
       ExecutionStrategy::Operations({6})});
  return ExecutionPlan{std::move(ops),
                       {ExecutionTrigger::OnOperations(std::move(trigger)),
                        ExecutionTrigger::OnSync(), ExecutionTrigger::Always()},
                       BlockOptimization{std::move(strategy), {0, 1, 2, 3, 4, 5, 6}}};
}

std::vector<uint8_t> TraceStateBytes(const ExecutionPlan& plan) {
  return EncodeTraceState(plan.optimization.strategy.children[0].optimization->ToState().trace);
}

// Decodes `bytes` as a plan; if that succeeds the result must be a valid plan whose encoding
// decodes again. Returns whether it decoded.
bool DecodesToAValidPlan(const std::vector<uint8_t>& bytes) {
  ExecutionPlan plan;
  if (!DecodePlan(bytes, &plan).ok()) return false;
  EXPECT_TRUE(ValidatePlan(plan).ok());
  ExecutionPlan again;
  EXPECT_TRUE(DecodePlan(EncodePlan(plan), &again).ok());
  return true;
}

bool DecodesToAValidOptimization(const std::vector<uint8_t>& bytes) {
  OptimizationState state{.name = "ReduceBroadcasted"};
  if (!DecodeTraceState(bytes, &state.trace).ok()) return false;
  std::shared_ptr<Optimization> optimization;
  if (!OptimizationFromState(state, &optimization).ok()) return false;
  auto trace = std::dynamic_pointer_cast<TraceOptimization>(optimization);
  EXPECT_NE(trace, nullptr);
  EXPECT_TRUE(CheckFuseTrace(trace->trace()).ok());
  EXPECT_GE(trace->len(), 1u);
  return true;
}

TEST(PlanCorruption, TheBlobsUnderTestAreValid) {
  const ExecutionPlan plan = SoftmaxPlan();
  EXPECT_TRUE(DecodesToAValidPlan(EncodePlan(plan)));
  EXPECT_TRUE(DecodesToAValidOptimization(TraceStateBytes(plan)));
}

TEST(PlanCorruption, EveryTruncationIsRefused) {
  const ExecutionPlan plan = SoftmaxPlan();
  const std::vector<uint8_t> bytes = EncodePlan(plan);
  for (size_t n = 0; n < bytes.size(); ++n) {
    ExecutionPlan decoded;
    const Status status = DecodePlan(std::span(bytes).first(n), &decoded);
    EXPECT_EQ(status.code(), Status::Code::kCorruption) << "first " << n << " of " << bytes.size();
  }
  const std::vector<uint8_t> block = EncodeBlockOptimization(plan.optimization);
  for (size_t n = 0; n < block.size(); ++n) {
    BlockOptimization decoded;
    EXPECT_FALSE(DecodeBlockOptimization(std::span(block).first(n), &decoded).ok()) << n;
  }
  const std::vector<uint8_t> ops = EncodeOperations(plan.operations);
  for (size_t n = 0; n < ops.size(); ++n) {
    std::vector<OperationIr> decoded;
    EXPECT_FALSE(DecodeOperations(std::span(ops).first(n), &decoded).ok()) << n;
  }
}

TEST(TraceStateCorruption, EveryTruncationIsRefused) {
  const std::vector<uint8_t> bytes = TraceStateBytes(SoftmaxPlan());
  for (size_t n = 0; n < bytes.size(); ++n) {
    const std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(n));
    EXPECT_FALSE(DecodesToAValidOptimization(prefix)) << "first " << n << " of " << bytes.size();
  }
}

TEST(PlanCorruption, RandomBytesAreRefused) {
  std::mt19937_64 rng(20240611);
  for (int i = 0; i < 4000; ++i) {
    std::vector<uint8_t> bytes(rng() % 1024);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    EXPECT_FALSE(DecodesToAValidPlan(bytes)) << i;
    EXPECT_FALSE(DecodesToAValidOptimization(bytes)) << i;
    std::vector<OperationIr> ops;
    DecodeOperations(bytes, &ops);  // may succeed (an empty list is a list); must not crash
  }
}

TEST(PlanCorruption, RandomBytesBehindAValidRootPointerAreRefused) {
  // A random blob almost always fails at its root pointer; keeping a valid one sends the
  // decoder into the structs and lists behind it.
  const std::vector<uint8_t> valid = EncodePlan(SoftmaxPlan());
  std::mt19937_64 rng(7);
  for (int i = 0; i < 4000; ++i) {
    std::vector<uint8_t> bytes = valid;
    for (size_t k = 8; k < bytes.size(); ++k) bytes[k] = static_cast<uint8_t>(rng());
    bytes.resize(8 + (rng() % (bytes.size() - 8)) / 8 * 8);
    EXPECT_FALSE(DecodesToAValidPlan(bytes)) << i;
  }
}

// A bit flip in every byte of a valid blob (the bit rotating with the byte, so that every bit
// of a word is hit somewhere): refused, or (a flip in a score, in a float's bits, in a dropped
// id...) decoded into a plan that is still valid.
TEST(PlanCorruption, ABitFlipInAnyByteIsRefusedOrStillValid) {
  const std::vector<uint8_t> valid = EncodePlan(SoftmaxPlan());
  size_t accepted = 0;
  for (size_t i = 0; i < valid.size(); ++i) {
    std::vector<uint8_t> bytes = valid;
    bytes[i] ^= static_cast<uint8_t>(1u << ((i + i / 8) % 8));
    accepted += DecodesToAValidPlan(bytes) ? 1 : 0;
  }
  std::printf("[ flips    ] %zu of %zu single-bit flips decoded to a valid plan\n", accepted,
              valid.size());
  // Most of a plan is structure and stored numbers that the decoder checks.
  EXPECT_LT(accepted, valid.size() / 2);
}

TEST(TraceStateCorruption, EveryBitFlipIsRefusedOrStillValid) {
  const std::vector<uint8_t> valid = TraceStateBytes(SoftmaxPlan());
  size_t accepted = 0;
  for (size_t bit = 0; bit < valid.size() * 8; ++bit) {
    std::vector<uint8_t> bytes = valid;
    bytes[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    accepted += DecodesToAValidOptimization(bytes) ? 1 : 0;
  }
  std::printf("[ flips    ] %zu of %zu single-bit flips decoded to a valid trace state\n", accepted,
              valid.size() * 8);
}

TEST(PlanCorruption, OverwrittenBytesAreRefusedOrStillValid) {
  const std::vector<uint8_t> valid = EncodePlan(SoftmaxPlan());
  const std::vector<uint8_t> trace = TraceStateBytes(SoftmaxPlan());
  std::mt19937_64 rng(42);
  for (int i = 0; i < 4000; ++i) {
    std::vector<uint8_t> bytes = valid;
    std::vector<uint8_t> state = trace;
    for (int k = 0; k < 1 + static_cast<int>(rng() % 4); ++k) {
      bytes[rng() % bytes.size()] = static_cast<uint8_t>(rng());
      state[rng() % state.size()] = static_cast<uint8_t>(rng());
    }
    DecodesToAValidPlan(bytes);
    DecodesToAValidOptimization(state);
  }
}

}  // namespace
}  // namespace ember

// The plans the codec tests encode and decode (codec_test.cpp, codec_refusals_test.cpp): one-op
// and nested plans built from relative ops, a golden plan, and a round trip through the codec.
#pragma once

#include <gtest/gtest.h>

#include <xxhash.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <fmt/format.h>

#include "engine/fuse/elementwise_fuser.h"
#include "engine/fuse/optimization_factory.h"
#include "engine/fuse/reduce_fuser.h"
#include "engine/fuse/trace_optimization.h"
#include "engine/ir/builders.h"
#include "engine/ir/relative.h"
#include "schema/plan.capnp.h"
#include "store/codec/canonical_message.h"
#include "store/codec/trace_codec.h"
#include "tests/ir/sample_ops.h"

#include "store/codec/plan_codec.h"

namespace ember::codec_test {

using test::Out;
using test::Ro;
using test::Rw;
using test::T;

inline constexpr uint32_t kUnlimited = 0xffffffffu;

inline std::vector<OperationIr> Relative(const std::vector<OperationIr>& global) {
  OperationConverter converter;
  std::vector<OperationIr> relative;
  for (const OperationIr& op : global) relative.push_back(converter.ToRelative(op));
  return relative;
}

inline std::vector<size_t> Iota(size_t begin, size_t end) {
  std::vector<size_t> v(end - begin);
  std::iota(v.begin(), v.end(), begin);
  return v;
}

inline ExecutionPlan UnfusedPlan(std::vector<OperationIr> relative) {
  const size_t n = relative.size();
  return ExecutionPlan{
      std::move(relative), {ExecutionTrigger::Always()}, BlockOptimization::Unfused(n)};
}

// Fused leaves compare by identity in ExecutionStrategy::operator==; here by their state.
inline bool SameStrategy(const ExecutionStrategy& a, const ExecutionStrategy& b) {
  if (a.kind != b.kind || a.ordering != b.ordering || a.score != b.score ||
      a.children.size() != b.children.size() ||
      (a.optimization == nullptr) != (b.optimization == nullptr)) {
    return false;
  }
  if (a.optimization && !(a.optimization->ToState() == b.optimization->ToState())) return false;
  for (size_t i = 0; i < a.children.size(); ++i) {
    if (!SameStrategy(a.children[i], b.children[i])) return false;
  }
  return true;
}

inline void ExpectSamePlan(const ExecutionPlan& a, const ExecutionPlan& b) {
  EXPECT_EQ(a.operations, b.operations);
  EXPECT_EQ(a.triggers, b.triggers);
  EXPECT_EQ(a.optimization.ordering, b.optimization.ordering);
  EXPECT_TRUE(SameStrategy(a.optimization.strategy, b.optimization.strategy));
}

inline ExecutionPlan RoundTrip(const ExecutionPlan& plan) {
  ExecutionPlan decoded;
  const Status status = DecodePlan(EncodePlan(plan), &decoded);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return decoded;
}

// The seed expression (a*b + c*s).exp(), then exp, sum over dim 1 and a division (a Reduce
// pattern), then a negation: two fused leaves from real fusers and an unfused one.
inline std::vector<OperationIr> NestedProgram() {
  const Shape r = {4, 8}, p = {4, 1};
  return Relative({
      ir::Binary(OpKind::kMul, Ro(1, r), Ro(2, r), Out(4, r)),
      ir::Scalar(OpKind::kMulScalar, Ro(3, r), ScalarIr::Float(2.0), Out(5, r)),
      ir::Binary(OpKind::kAdd, Rw(4, r), Rw(5, r), Out(6, r)),
      ir::Unary(OpKind::kExp, Rw(6, r), Out(7, r)),
      ir::Unary(OpKind::kExp, Ro(7, r), Out(8, r)),
      ir::ReduceDim(OpKind::kSumDim, Rw(8, r), 1, Out(9, p)),
      ir::Scalar(OpKind::kDivScalar, Rw(9, p), ScalarIr::Float(3.0), Out(10, p)),
      ir::Unary(OpKind::kNeg, Rw(7, r), Out(11, r)),
  });
}

// Composed{Composed{ElementWise over 0..3}, Composed{Reduce over 4..6, Operations{7}}}.
inline ExecutionPlan NestedPlan() {
  std::vector<OperationIr> ops = NestedProgram();
  ElementWiseFuser elementwise(kUnlimited);
  for (size_t i = 0; i < 4; ++i) elementwise.Fuse(ops[i]);
  ReduceFuser reduce(kUnlimited);
  for (size_t i = 4; i < 7; ++i) reduce.Fuse(ops[i]);
  EXPECT_TRUE(elementwise.properties().ready);
  EXPECT_TRUE(reduce.properties().ready);
  EXPECT_EQ(elementwise.len(), 4u);
  EXPECT_EQ(reduce.len(), 3u);
  const uint64_t ew_score = elementwise.properties().score;
  const uint64_t reduce_score = reduce.properties().score;
  ExecutionStrategy strategy = ExecutionStrategy::Composed({
      ExecutionStrategy::Composed(
          {ExecutionStrategy::Fused(elementwise.Finish(), Iota(0, 4), ew_score)}),
      ExecutionStrategy::Composed(
          {ExecutionStrategy::Fused(reduce.Finish(), Iota(4, 7), reduce_score),
           ExecutionStrategy::Operations({7})}),
  });
  return ExecutionPlan{std::move(ops),
                       {ExecutionTrigger::OnSync(), ExecutionTrigger::Always()},
                       BlockOptimization{std::move(strategy), Iota(0, 8)}};
}

// Two ops, an unfused strategy, triggers of every kind: small and independent of the fusers,
// so that its bytes only change when the schema or the codec does.
inline ExecutionPlan GoldenPlan() {
  std::vector<OperationIr> ops = Relative({
      ir::Scalar(OpKind::kMulScalar, T(7, {3, 1}), ScalarIr::Float(0.5), Out(8, {3, 1})),
      ir::Unary(OpKind::kExp, T(8, {3, 1}, TensorStatus::kReadWrite), Out(9, {3, 1})),
  });
  ExecutionPlan plan{ops,
                     {},
                     BlockOptimization{ExecutionStrategy::Composed({
                                           ExecutionStrategy::Operations({1, 0}),
                                       }),
                                       {1, 0}}};
  plan.triggers = {ExecutionTrigger::OnOperations({ir::Unary(
                       OpKind::kNeg, T(2, {1, 0}, TensorStatus::kReadWrite), Out(3, {1, 0}))}),
                   ExecutionTrigger::OnSync(), ExecutionTrigger::Always()};
  return plan;
}

}  // namespace ember::codec_test

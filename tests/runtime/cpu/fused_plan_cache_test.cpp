// The CPU backend's kept fused plans (engine/runtime/cpu/fused_plan_cache.h): a second launch
// of a trace compiles nothing and still computes what the ops compute one by one, with each
// launch's scalars, shapes and in-place choices; a trace that only shares an address with a
// kept one is never served its plan.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include <ember/error.h>

#include "engine/ir/builders.h"
#include "engine/runtime/cpu/fused_plan_cache.h"
#include "engine/runtime/cpu/fused_run.h"
#include "engine/runtime/cpu/thread_pool.h"
#include "engine/trace/trace_serial.h"
#include "tests/runtime/fused_test_util.h"

namespace ember::testing {
namespace {

// in0 * scalar0 + in1, one op at a time.
TensorIr Unfused(Harness& h, const TensorIr& a, const TensorIr& b, double scalar) {
  const TensorIr scaled =
      h.Exec(ir::Scalar(OpKind::kMulScalar, a, ScalarIr::Float(scalar), h.Output(a.shape)));
  return h.Exec(ir::Binary(OpKind::kAdd, scaled, b, h.Output(a.shape)));
}

class FusedPlanCacheTest : public ::testing::Test {
 protected:
  std::vector<TensorHandle> Run(const FuseTrace& trace, const std::vector<TensorIr>& in,
                                const Shape& shape, std::vector<ScalarIr> scalars,
                                std::vector<bool> reusable = {}, uint64_t serial = 0) {
    std::vector<TensorHandle> handles;
    for (const TensorIr& t : in) handles.push_back(h_.Handle(t));
    FusedLaunch launch =
        Launch(trace, std::move(handles), {OutIr(shape)}, {shape}, std::move(scalars));
    launch.trace_serial = serial;
    if (!reusable.empty()) launch.reusable = std::move(reusable);
    return cpu::RunFused(launch, pool_, cache_);
  }

  Harness h_{2};
  cpu::ThreadPool pool_{2};
  cpu::FusedPlanCache cache_;
};

TEST_F(FusedPlanCacheTest, ASecondLaunchIsAHitAndTakesItsOwnScalar) {
  const Shape shape = {37, 61};
  const TensorIr a = h_.Input(shape, DType::kF32, TestData(37 * 61, -3, 3, 1));
  const TensorIr b = h_.Input(shape, DType::kF32, TestData(37 * 61, -3, 3, 2));
  const FuseTrace trace = MulAddTrace();
  const auto first = Run(trace, {a, b}, shape, {ScalarIr::Float(2.5)});
  EXPECT_EQ(cache_.misses(), 1u);
  EXPECT_EQ(cache_.hits(), 0u);
  ExpectSameBytes(h_.backend(), first[0], h_.Handle(Unfused(h_, a, b, 2.5)), "first");
  // The kept plan was compiled with 2.5 in its constant tile: the hit must use -0.75.
  const auto second = Run(trace, {a, b}, shape, {ScalarIr::Float(-0.75)});
  EXPECT_EQ(cache_.hits(), 1u);
  EXPECT_EQ(cache_.size(), 1u);
  ExpectSameBytes(h_.backend(), second[0], h_.Handle(Unfused(h_, a, b, -0.75)), "second");
}

TEST_F(FusedPlanCacheTest, AnotherShapeCompilesItsOwnPlan) {
  const FuseTrace trace = MulAddTrace();
  for (const Shape& shape : {Shape{64, 64}, Shape{64, 32}, Shape{64, 64}, Shape{3, 5, 7}}) {
    const int64_t n = NumElements(shape);
    const TensorIr a = h_.Input(shape, DType::kF32, TestData(n, -3, 3, 3));
    const TensorIr b = h_.Input(shape, DType::kF32, TestData(n, -3, 3, 4));
    const auto fused = Run(trace, {a, b}, shape, {ScalarIr::Float(1.25)});
    ExpectSameBytes(h_.backend(), fused[0], h_.Handle(Unfused(h_, a, b, 1.25)), "shape");
  }
  EXPECT_EQ(cache_.misses(), 3u);
  EXPECT_EQ(cache_.hits(), 1u);
  EXPECT_EQ(cache_.size(), 3u);
}

TEST_F(FusedPlanCacheTest, ATraceChangedAtTheSameAddressIsNotServedTheOldPlan) {
  const Shape shape = {40, 50};
  const TensorIr a = h_.Input(shape, DType::kF32, TestData(2000, -3, 3, 5));
  const TensorIr b = h_.Input(shape, DType::kF32, TestData(2000, -3, 3, 6));
  FuseTrace trace = MulAddTrace();
  Run(trace, {a, b}, shape, {ScalarIr::Float(2)});
  // Same object, same shapes, another op: what a freed optimization's successor looks like.
  trace.blocks[0].ops[1].kind = FuseOpKind::kSub;
  const auto fused = Run(trace, {a, b}, shape, {ScalarIr::Float(2)});
  const TensorIr scaled =
      h_.Exec(ir::Scalar(OpKind::kMulScalar, a, ScalarIr::Float(2), h_.Output(shape)));
  const TensorIr want = h_.Exec(ir::Binary(OpKind::kSub, scaled, b, h_.Output(shape)));
  ExpectSameBytes(h_.backend(), fused[0], h_.Handle(want), "changed trace");
  EXPECT_EQ(cache_.hits(), 0u);
}

TEST_F(FusedPlanCacheTest, ASerialNamesTheTraceWhereverItLives) {
  const Shape shape = {21, 19};
  const TensorIr a = h_.Input(shape, DType::kF32, TestData(399, -3, 3, 14));
  const TensorIr b = h_.Input(shape, DType::kF32, TestData(399, -3, 3, 15));
  const FuseTrace trace = MulAddTrace();
  const FuseTrace copy = trace;  // another address, the same content and serial
  const uint64_t serial = NewTraceSerial();
  Run(trace, {a, b}, shape, {ScalarIr::Float(2)}, {}, serial);
  const auto hit = Run(copy, {a, b}, shape, {ScalarIr::Float(3)}, {}, serial);
  EXPECT_EQ(cache_.hits(), 1u);
  ExpectSameBytes(h_.backend(), hit[0], h_.Handle(Unfused(h_, a, b, 3)), "by serial");
  // Another serial at the same address is another trace: a miss, with its own plan.
  FuseTrace changed = MulAddTrace();
  changed.blocks[0].ops[1].kind = FuseOpKind::kSub;
  const auto fresh = Run(changed, {a, b}, shape, {ScalarIr::Float(2)}, {}, NewTraceSerial());
  EXPECT_EQ(cache_.hits(), 1u);
  EXPECT_EQ(cache_.misses(), 2u);
  const TensorIr scaled =
      h_.Exec(ir::Scalar(OpKind::kMulScalar, a, ScalarIr::Float(2), h_.Output(shape)));
  const TensorIr want = h_.Exec(ir::Binary(OpKind::kSub, scaled, b, h_.Output(shape)));
  ExpectSameBytes(h_.backend(), fresh[0], h_.Handle(want), "new serial");
}

TEST_F(FusedPlanCacheTest, KeptPlansHoldNoTensorSoAHitStillWritesInPlace) {
  const Shape shape = {33, 70};
  const FuseTrace trace = MulAddTrace();
  for (int round = 0; round < 2; ++round) {
    // The launch holds the only handles: input 0 is a last use nobody else shares.
    FusedLaunch launch =
        Launch(trace,
               {MakeHandle(h_.backend(), shape, DType::kF32, TestData(2310, -3, 3, 7)),
                MakeHandle(h_.backend(), shape, DType::kF32, TestData(2310, -3, 3, 8))},
               {OutIr(shape)}, {shape}, {ScalarIr::Float(3)});
    launch.reusable = {true, false};
    const Buffer* x_buffer = launch.inputs[0].buffer.get();
    const auto fused = cpu::RunFused(launch, pool_, cache_);
    EXPECT_EQ(fused[0].buffer.get(), x_buffer) << "round " << round << ": not in place";
  }
  EXPECT_EQ(cache_.hits(), 1u);
}

TEST_F(FusedPlanCacheTest, ManyShapesOfOneTraceKeepABoundedList) {
  const FuseTrace trace = MulAddTrace();
  for (int64_t len = 1; len <= 40; ++len) {
    const Shape shape = {len, 3};
    const TensorIr a = h_.Input(shape, DType::kF32, TestData(3 * len, -1, 1, 9));
    const TensorIr b = h_.Input(shape, DType::kF32, TestData(3 * len, -1, 1, 10));
    const auto fused = Run(trace, {a, b}, shape, {ScalarIr::Float(0.5)});
    ExpectSameBytes(h_.backend(), fused[0], h_.Handle(Unfused(h_, a, b, 0.5)), "bounded");
  }
  EXPECT_EQ(cache_.size(), cpu::FusedPlanCache::kMaxPerTrace);
}

TEST_F(FusedPlanCacheTest, ARefusedLaunchKeepsNothing) {
  const Shape shape = {8, 8};
  const TensorIr a = h_.Input(shape, DType::kF32, TestData(64, -1, 1, 11));
  const FuseTrace trace = MulAddTrace();
  // One input for a trace of two: PlanFused refuses it before anything is allocated.
  FusedLaunch launch = Launch(trace, {h_.Handle(a)}, {OutIr(shape)}, {shape}, {ScalarIr::Float(1)});
  EXPECT_THROW(cpu::RunFused(launch, pool_, cache_), Error);
  EXPECT_THROW(cpu::RunFused(launch, pool_, cache_), Error);
  EXPECT_EQ(cache_.size(), 0u);
}

TEST_F(FusedPlanCacheTest, AHitStillChecksWhatTheKeyDoesNotFix) {
  const Shape shape = {8, 8};
  const TensorIr a = h_.Input(shape, DType::kF32, TestData(64, -1, 1, 12));
  const TensorIr b = h_.Input(shape, DType::kF32, TestData(64, -1, 1, 13));
  const FuseTrace trace = MulAddTrace();
  Run(trace, {a, b}, shape, {ScalarIr::Float(1)});
  // Same trace and shapes, so the kept plan matches: the missing scalar is still an error.
  EXPECT_THROW(Run(trace, {a, b}, shape, {}), Error);
  const auto fused = Run(trace, {a, b}, shape, {ScalarIr::Float(4)});
  ExpectSameBytes(h_.backend(), fused[0], h_.Handle(Unfused(h_, a, b, 4)), "after the refusal");
}

}  // namespace
}  // namespace ember::testing

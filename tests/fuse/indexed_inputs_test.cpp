// Indexed inputs in the trace builder, the trace's validation and its codec (Note [Indexed
// inputs], engine/trace/fuse_trace.h; burn's TraceFuser::input_indexed, burn-cubecl-fusion's
// engine/trace/fuser.rs): a tensor read by index is registered once with no read op, refused
// when the trace already reads or produces it, and never read normally, written or viewed
// afterwards. The codec and the checks of forged traces: tests/store/codec/indexed_trace_test.cpp.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "engine/fuse/trace_builder.h"
#include "engine/trace/fuse_trace.h"
#include "engine/trace/trace_state.h"
#include "tests/common/ir_builders.h"

namespace ember {
namespace {

using test::Out;
using test::Ro;
using test::Rw;

FuseOp Indexed(FuseOpKind kind, std::vector<FuseArg> operands, int64_t dim, FuseArg out) {
  FuseOp op;
  op.kind = kind;
  op.indexed = std::move(operands);
  op.dim = dim;
  op.out = out;
  return op;
}

TEST(IndexedInputs, ATensorIsRegisteredOnceWithNoReadOp) {
  TraceBuilder b;
  const TensorIr table = Ro(1, {2, 3}), index = Ro(2, {1, 3}, DType::kI64);
  const auto t = b.InputIndexed(table);
  const auto i = b.InputIndexed(index);
  ASSERT_TRUE(t && i);
  EXPECT_EQ(t->kind, FuseArgKind::kInput);
  EXPECT_NE(t->pos, i->pos);
  EXPECT_TRUE(b.IsIndexed(1));
  const auto again = b.InputIndexed(Rw(1, {2, 3}));  // cat([x, x]): the same input
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, *t);
  EXPECT_EQ(b.EstimateBindings(), 1u + 2u) << "metadata and the two inputs";
  const auto o = b.Output(Out(3, {1, 3}));
  ASSERT_TRUE(o);
  b.AddOp(Indexed(FuseOpKind::kGather, {*t, *i}, 0, *o));
  const FuseTrace trace = b.Finish({1, 3});
  ASSERT_EQ(trace.resources.inputs.size(), 2u);
  EXPECT_EQ(trace.resources.inputs[0].status, TensorStatus::kReadWrite) << "the latest status";
  EXPECT_TRUE(trace.blocks[0].reads.empty()) << "an indexed input has no read op";
  EXPECT_TRUE(CheckFuseTrace(trace).ok()) << CheckFuseTrace(trace).message();
}

TEST(IndexedInputs, ATensorTheTraceReadsOrProducesIsNotIndexed) {
  TraceBuilder read;
  ASSERT_TRUE(read.Input(Ro(1)));
  EXPECT_FALSE(read.InputIndexed(Ro(1)));
  TraceBuilder produced;
  ASSERT_TRUE(produced.Output(Out(1)));
  EXPECT_FALSE(produced.InputIndexed(Ro(1)));
}

TEST(IndexedInputs, AnIndexedTensorIsNeverReadNormallyWrittenOrViewed) {
  TraceBuilder b;
  ASSERT_TRUE(b.InputIndexed(Ro(1)));
  EXPECT_FALSE(b.Input(Ro(1)));
  EXPECT_FALSE(b.Output(Out(1)));
  EXPECT_FALSE(b.InputReshaped(Ro(1), Out(2, {1, 1, 1})));
  EXPECT_FALSE(b.InputSwapDims(Ro(1), Out(2), 0, 1));
}

}  // namespace
}  // namespace ember

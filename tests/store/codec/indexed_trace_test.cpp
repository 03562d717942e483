// A trace with indexed ops (Note [Indexed inputs], engine/trace/fuse_trace.h) survives the plan
// codec, and the checks every loaded trace goes through (CheckFuseTrace) refuse forged ones: a
// dim past the rank, a wrong operand count, an operand that is not an input, an indexed input
// also read normally, an indexed op outside the ops.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "engine/fuse/trace_builder.h"
#include "engine/trace/fuse_trace.h"
#include "engine/trace/trace_state.h"
#include "store/codec/trace_codec.h"
#include "tests/common/ir_builders.h"

namespace ember {
namespace {

using test::Out;
using test::Ro;

FuseOp Indexed(FuseOpKind kind, std::vector<FuseArg> operands, int64_t dim, FuseArg out) {
  FuseOp op;
  op.kind = kind;
  op.indexed = std::move(operands);
  op.dim = dim;
  op.out = out;
  return op;
}

// A trace whose block gathers along dim 1 and adds a normal input, for the codec and the checks.
FuseTrace GatherThenAdd() {
  TraceBuilder b;
  const FuseArg t = *b.InputIndexed(Ro(1, {2, 3}));
  const FuseArg i = *b.InputIndexed(Ro(2, {2, 4}, DType::kI32));
  const FuseArg g = *b.Output(Out(3, {2, 4}));
  b.AddOp(Indexed(FuseOpKind::kGather, {t, i}, 1, g));
  const FuseArg y = *b.Input(Ro(4, {2, 4}));
  const FuseArg sum = *b.Output(Out(5, {2, 4}));
  FuseOp add;
  add.kind = FuseOpKind::kAdd;
  add.args[0] = g;
  add.args[1] = y;
  add.out = sum;
  b.AddOp(add);
  return b.Finish({2, 4});
}

TEST(IndexedInputs, ATraceWithIndexedOpsSurvivesTheCodec) {
  const TraceState state{.trace = GatherThenAdd(), .len = 2};
  ASSERT_TRUE(CheckTraceState(state).ok());
  TraceState decoded;
  ASSERT_TRUE(DecodeTraceState(EncodeTraceState(state), &decoded).ok());
  EXPECT_EQ(decoded.trace, state.trace);
  EXPECT_EQ(decoded.trace.blocks[0].ops[0].dim, 1);
  EXPECT_EQ(decoded.trace.blocks[0].ops[0].indexed.size(), 2u);
  EXPECT_NE(FormatFuseTrace(decoded.trace).find("Gather(in0:f32, in1:i32; dim 1)"),
            std::string::npos)
      << FormatFuseTrace(decoded.trace);
}

TEST(IndexedInputs, ForgedIndexedOpsAreRefused) {
  auto refused = [](const std::function<void(FuseTrace&)>& forge) {
    FuseTrace trace = GatherThenAdd();
    forge(trace);
    return !CheckFuseTrace(trace).ok();
  };
  FuseOp& (*gather)(FuseTrace&) = [](FuseTrace& t) -> FuseOp& { return t.blocks[0].ops[0]; };
  EXPECT_TRUE(refused([&](FuseTrace& t) { gather(t).dim = 2; })) << "dim past the rank";
  EXPECT_TRUE(refused([&](FuseTrace& t) { gather(t).dim = -1; }));
  EXPECT_TRUE(refused([&](FuseTrace& t) { gather(t).indexed.pop_back(); })) << "one operand";
  EXPECT_TRUE(refused([&](FuseTrace& t) { gather(t).indexed[0].pos = 9; })) << "no such input";
  EXPECT_TRUE(refused([&](FuseTrace& t) { gather(t).indexed[0].kind = FuseArgKind::kLocal; }));
  EXPECT_TRUE(refused([&](FuseTrace& t) { gather(t).out.kind = FuseArgKind::kOutput; }));
  EXPECT_TRUE(refused([&](FuseTrace& t) {
    // The added input read normally is the gathered tensor.
    t.blocks[0].reads[0].args[0].pos = 0;
  })) << "an indexed input read normally";
  EXPECT_TRUE(refused([&](FuseTrace& t) {
    t.blocks[0].writes.push_back(t.blocks[0].ops[0]);  // an indexed op among the writes
  }));
  EXPECT_TRUE(refused([&](FuseTrace& t) { t.blocks[0].ops[1].dim = 1; }))
      << "an elementwise op with a dim";
}

}  // namespace
}  // namespace ember

// Gather, Select and Cat fused as indexed inputs, as burn's TraceOperationFuser::fuse_base takes
// them (burn-cubecl-fusion's engine/fuser.rs and engine/trace/fuser.rs; Note [Indexed inputs],
// engine/trace/fuse_trace.h): the output's shape first, then every tensor the op reads as an
// indexed input, then the output. The three programs of issue 45 become one trace each; an
// indexed tensor the trace already reads or produces, or one read normally afterwards, closes
// the fuser; scores count an indexed read as fused (it has no read op), as burn's do.
#include <gtest/gtest.h>

#include <vector>

#include "engine/fuse/elementwise_fuser.h"
#include "engine/fuse/reduce_broadcasted_fuser.h"
#include "engine/fuse/reduce_fuser.h"
#include "engine/fuse/trace_optimization.h"
#include "tests/fuse/fuse_test_util.h"

namespace ember {
namespace {

using namespace fuse_test;
using test::Out;
using test::P;
using test::Ro;
using test::Rw;
constexpr uint32_t kUnlimited = 0xffffffffu;

FuseTrace TraceOf(ElementWiseFuser& fuser) {
  auto opt = std::dynamic_pointer_cast<TraceOptimization>(fuser.Finish());
  EXPECT_NE(opt, nullptr);
  return opt == nullptr ? FuseTrace{} : opt->trace();
}

// table.Select(0, idx) * 2.0 + pos: reads 5 and writes 3 unfused, one read (pos) and one write
// fused, so (8 - 2) * 100 + 2 * 10 = 620.
TEST(IndexedFusion, SelectThenElementwiseIsOneTrace) {
  ElementWiseFuser fuser(kUnlimited);
  EXPECT_EQ(
      FeedAll(fuser, {ir::Indexed(OpKind::kSelect, Ro(0, {2, 3}), 0, Ro(1, {4}, DType::kI64),
                                  Out(2, {4, 3})),
                      ir::Scalar(OpKind::kMulScalar, Rw(2, {4, 3}), P(0), Out(3, {4, 3})),
                      ir::Binary(OpKind::kAdd, Rw(3, {4, 3}), Ro(4, {4, 3}), Out(5, {4, 3}))}),
      3u);
  EXPECT_EQ(fuser.status(), FuserStatus::kOpen);
  EXPECT_EQ(fuser.properties().score, 620u);
  const FuseTrace trace = TraceOf(fuser);
  ASSERT_EQ(trace.blocks.size(), 1u);
  ASSERT_EQ(trace.blocks[0].ops.size(), 3u);
  const FuseOp& select = trace.blocks[0].ops[0];
  EXPECT_EQ(select.kind, FuseOpKind::kSelect);
  EXPECT_EQ(select.dim, 0);
  ASSERT_EQ(select.indexed.size(), 2u);
  EXPECT_EQ(trace.resources.inputs[select.indexed[0].pos].id, 0u);
  EXPECT_EQ(trace.resources.inputs[select.indexed[1].pos].id, 1u);
  EXPECT_EQ(trace.blocks[0].reads.size(), 1u) << "only pos is read at the block's positions";
  EXPECT_EQ(trace.blocks[0].shape_ref, (Shape{4, 3}));
}

// Cat({a, b}, 1).Exp() * 3: 7 accesses unfused, 1 fused: 620.
TEST(IndexedFusion, CatThenElementwiseIsOneTrace) {
  ElementWiseFuser fuser(kUnlimited);
  EXPECT_EQ(FeedAll(fuser, {ir::Cat({Ro(0, {2, 3}), Ro(1, {2, 4})}, 1, Out(2, {2, 5})),
                            ir::Unary(OpKind::kExp, Rw(2, {2, 5}), Out(3, {2, 5})),
                            ir::Scalar(OpKind::kMulScalar, Rw(3, {2, 5}), P(0), Out(4, {2, 5}))}),
            3u);
  EXPECT_EQ(fuser.properties().score, 620u);
  const FuseTrace trace = TraceOf(fuser);
  ASSERT_EQ(trace.blocks.size(), 1u);
  const FuseOp& cat = trace.blocks[0].ops[0];
  EXPECT_EQ(cat.kind, FuseOpKind::kCat);
  EXPECT_EQ(cat.dim, 1);
  EXPECT_EQ(cat.indexed.size(), 2u);
  EXPECT_TRUE(trace.blocks[0].reads.empty());
}

// a.Gather(1, idx).Abs() + 1.0: 7 accesses unfused, 1 fused: 620.
TEST(IndexedFusion, GatherThenElementwiseIsOneTrace) {
  ElementWiseFuser fuser(kUnlimited);
  EXPECT_EQ(FeedAll(fuser, {ir::Indexed(OpKind::kGather, Ro(0, {2, 3}), 1,
                                        Ro(1, {2, 4}, DType::kI32), Out(2, {2, 4})),
                            ir::Unary(OpKind::kAbs, Rw(2, {2, 4}), Out(3, {2, 4})),
                            ir::Scalar(OpKind::kAddScalar, Rw(3, {2, 4}), P(0), Out(4, {2, 4}))}),
            3u);
  EXPECT_EQ(fuser.properties().score, 620u);
  EXPECT_EQ(TraceOf(fuser).blocks[0].ops[0].kind, FuseOpKind::kGather);
}

// burn's quirk, kept for equal scores: a lone Gather's reads have no read op, so they count as
// fused: 3 accesses unfused against its one write, 200, and it runs as a fused kernel.
TEST(IndexedFusion, ALoneGatherScoresTwoHundred) {
  ElementWiseFuser fuser(kUnlimited);
  fuser.Fuse(ir::Indexed(OpKind::kGather, Ro(0), 1, Ro(1, {1, 1}, DType::kI64), Out(2)));
  EXPECT_EQ(fuser.len(), 1u);
  EXPECT_TRUE(fuser.properties().ready);
  EXPECT_EQ(fuser.properties().score, 200u);
}

TEST(IndexedFusion, ATensorAlreadyReadOrProducedClosesTheFuser) {
  const TensorIr index = Ro(9, {1, 1}, DType::kI64);
  {
    ElementWiseFuser fuser(kUnlimited);  // x.Exp(), then x.Gather(...): x is a normal input
    fuser.Fuse(ir::Unary(OpKind::kExp, Ro(0), Out(1)));
    fuser.Fuse(ir::Indexed(OpKind::kGather, Ro(0), 1, index, Out(2)));
    EXPECT_EQ(fuser.len(), 1u);
    EXPECT_EQ(fuser.status(), FuserStatus::kClosed);
  }
  {
    ElementWiseFuser fuser(kUnlimited);  // y = x * 2, then y.Gather(...): y is produced here
    fuser.Fuse(ir::Scalar(OpKind::kMulScalar, Ro(0), P(0), Out(1)));
    fuser.Fuse(ir::Indexed(OpKind::kGather, Rw(1), 1, index, Out(2)));
    EXPECT_EQ(fuser.len(), 1u);
    EXPECT_EQ(fuser.status(), FuserStatus::kClosed);
  }
}

TEST(IndexedFusion, AnIndexedTensorReadNormallyAfterwardsClosesTheFuser) {
  ElementWiseFuser fuser(kUnlimited);  // x.Gather(...), then x.Exp()
  fuser.Fuse(ir::Indexed(OpKind::kGather, Ro(0), 1, Ro(9, {1, 1}, DType::kI64), Out(2)));
  fuser.Fuse(ir::Unary(OpKind::kExp, Ro(0), Out(3)));
  EXPECT_EQ(fuser.len(), 1u);
  EXPECT_EQ(fuser.status(), FuserStatus::kClosed);
}

TEST(IndexedFusion, BoolAndIntTensorsAreIndexedToo) {
  for (DType dtype : {DType::kBool, DType::kI32}) {
    ElementWiseFuser fuser(kUnlimited);
    fuser.Fuse(ir::Cat({Ro(0, {1, 1}, dtype), Ro(1, {1, 1}, dtype)}, 0, Out(2, {2, 1}, dtype)));
    EXPECT_EQ(fuser.len(), 1u) << DTypeName(dtype);
    EXPECT_EQ(fuser.status(), FuserStatus::kOpen) << DTypeName(dtype);
  }
}

// Note [Indexed inputs]: the indexed op's output is the block's reference for good. burn grows
// the reference past it (and then reads indices past their range); ember closes there.
TEST(IndexedFusion, ABlockWithAnIndexedOpDoesNotGrowPastItsOutput) {
  {
    ElementWiseFuser fuser(kUnlimited);  // select(...) of shape [1, 3], then + [4, 3]
    fuser.Fuse(
        ir::Indexed(OpKind::kSelect, Ro(0, {2, 3}), 0, Ro(1, {0}, DType::kI64), Out(2, {0, 3})));
    fuser.Fuse(ir::Binary(OpKind::kAdd, Rw(2, {0, 3}), Ro(3, {4, 3}), Out(4, {4, 3})));
    EXPECT_EQ(fuser.len(), 1u);
    EXPECT_EQ(fuser.status(), FuserStatus::kClosed);
  }
  {
    ElementWiseFuser fuser(kUnlimited);  // exp of [4, 3], then a select of shape [1, 3]
    fuser.Fuse(ir::Unary(OpKind::kExp, Ro(3, {4, 3}), Out(4, {4, 3})));
    fuser.Fuse(
        ir::Indexed(OpKind::kSelect, Ro(0, {2, 3}), 0, Ro(1, {0}, DType::kI64), Out(2, {0, 3})));
    EXPECT_EQ(fuser.len(), 1u);
    EXPECT_EQ(fuser.status(), FuserStatus::kClosed);
  }
  {
    ElementWiseFuser fuser(kUnlimited);  // + [4, 3] first grows nothing: the same reference
    fuser.Fuse(
        ir::Indexed(OpKind::kSelect, Ro(0, {2, 3}), 0, Ro(1, {4}, DType::kI64), Out(2, {4, 3})));
    fuser.Fuse(ir::Binary(OpKind::kAdd, Rw(2, {4, 3}), Ro(3, {0, 3}), Out(4, {4, 3})));
    EXPECT_EQ(fuser.len(), 2u);
  }
}

// A tensor read by index is not a reduce's input in the same trace (differential seed 266: a
// Select of v, then MinDim(v), once aborted the search). Both reduce fusers close instead.
TEST(IndexedFusion, AReduceOfAnIndexedTensorClosesTheReduceFusers) {
  const std::vector<OperationIr> ops = {
      ir::Indexed(OpKind::kSelect, Ro(0, {1, 2}), 1, Ro(1, {2}, DType::kI32), Out(2, {1, 2})),
      ir::Unary(OpKind::kExp, Rw(2, {1, 2}), Out(3, {1, 2})),
      ir::ReduceDim(OpKind::kMinDim, Ro(0, {1, 2}), 1, Out(4, {1, 0}))};
  ReduceFuser reduce(kUnlimited);
  EXPECT_EQ(FeedAll(reduce, ops), 2u);
  EXPECT_EQ(reduce.status(), FuserStatus::kClosed);
  ReduceBroadcastedFuser broadcasted(kUnlimited);
  FeedAll(broadcasted, ops);
  EXPECT_LE(broadcasted.len(), 2u);
}

}  // namespace
}  // namespace ember

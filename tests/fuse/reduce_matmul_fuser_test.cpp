// The Reduce and Matmul fusers: acceptance, closing, readiness and scores (reduce_fuser.h,
// matmul_fuser.h, docs/FUSERS.md: the reduce and the matmul themselves are never scored).
#include <gtest/gtest.h>

#include "engine/fuse/matmul_fuser.h"
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
using test::T;
constexpr uint32_t kUnlimited = 0xffffffffu;

TEST(ReduceFuser, ExpThenSumScoresZeroAndOneOpAfterItScores210) {
  ReduceFuser fuser(kUnlimited);
  fuser.Fuse(ir::Unary(OpKind::kExp, Ro(0, {1, 2}), Out(1, {1, 2})));
  EXPECT_FALSE(fuser.properties().ready);
  fuser.Fuse(ir::ReduceDim(OpKind::kSumDim, Rw(1, {1, 2}), 1, Out(2, {1, 0})));
  EXPECT_TRUE(fuser.properties().ready);
  EXPECT_EQ(fuser.properties().score, 0u);  // read x, write the sum: nothing saved
  EXPECT_EQ(fuser.len(), 2u);
  fuser.Fuse(ir::Scalar(OpKind::kDivScalar, Rw(2, {1, 0}), P(0), Out(3, {1, 0})));
  EXPECT_EQ(fuser.properties().score, 210u);
  EXPECT_EQ(fuser.len(), 3u);

  auto opt = std::dynamic_pointer_cast<TraceOptimization>(fuser.Finish());
  ASSERT_NE(opt, nullptr);
  EXPECT_EQ(opt->name(), "Reduce");
  const FuseTrace& trace = opt->trace();
  ASSERT_EQ(trace.blocks.size(), 2u);
  EXPECT_EQ(trace.blocks[0].shape_ref, (Shape{1, 2}));
  EXPECT_EQ(trace.blocks[1].shape_ref, (Shape{1, 0}));
  ASSERT_EQ(trace.reduces.size(), 1u);
  EXPECT_EQ(trace.reduces[0].kind, ReduceStage::Kind::kSum);
  EXPECT_EQ(trace.reduces[0].axis, 1);
  EXPECT_EQ(trace.reduces[0].input.kind, FuseArgKind::kMultiBlockLocal);
  EXPECT_EQ(trace.reduces[0].output.kind, FuseArgKind::kLocal);
  ASSERT_EQ(trace.resources.outputs.size(), 1u);  // only t3; t1 and t2 stay inside
  EXPECT_EQ(trace.resources.outputs[0].id, 3u);
}

TEST(ReduceFuser, AReduceWithoutAnElementwiseOpBeforeItCloses) {
  ReduceFuser fuser(kUnlimited);
  fuser.Fuse(ir::ReduceDim(OpKind::kMaxDim, Ro(0, {1, 2}), 1, Out(1, {1, 0})));
  EXPECT_EQ(fuser.status(), FuserStatus::kClosed);
  EXPECT_FALSE(fuser.properties().ready);
}

TEST(ReduceFuser, ReadSideRefusesBroadcastingAndWriteSideRefusesOtherShapes) {
  ReduceFuser read(kUnlimited);
  read.Fuse(ir::Unary(OpKind::kExp, Ro(0, {1, 2}), Out(1, {1, 2})));
  read.Fuse(ir::Unary(OpKind::kExp, Ro(2, {1, 0}), Out(3, {1, 0})));  // smaller output
  EXPECT_EQ(read.status(), FuserStatus::kClosed);

  ReduceFuser write(kUnlimited);
  write.Fuse(ir::Unary(OpKind::kExp, Ro(0, {1, 2}), Out(1, {1, 2})));
  write.Fuse(ir::ReduceDim(OpKind::kSumDim, Rw(1, {1, 2}), 1, Out(2, {1, 0})));
  // Broadcasting the sum back to the rows is ReduceBroadcasted's job.
  write.Fuse(ir::Binary(OpKind::kSub, Ro(0, {1, 2}), Rw(2, {1, 0}), Out(3, {1, 2})));
  EXPECT_EQ(write.status(), FuserStatus::kClosed);
  EXPECT_EQ(write.len(), 2u);
  EXPECT_TRUE(write.properties().ready);
}

TEST(ReduceFuser, HalfSumsAccumulateInF32) {
  ReduceFuser fuser(kUnlimited);
  fuser.Fuse(ir::Unary(OpKind::kExp, Ro(0, {1, 2}, DType::kF16), Out(1, {1, 2}, DType::kF16)));
  fuser.Fuse(
      ir::ReduceDim(OpKind::kMeanDim, Rw(1, {1, 2}, DType::kF16), 0, Out(2, {0, 2}, DType::kF16)));
  ASSERT_TRUE(fuser.reduce().has_value());
  EXPECT_EQ(fuser.reduce()->acc, DType::kF32);
  ReduceFuser max(kUnlimited);
  max.Fuse(ir::Unary(OpKind::kExp, Ro(0, {1, 2}, DType::kF16), Out(1, {1, 2}, DType::kF16)));
  max.Fuse(
      ir::ReduceDim(OpKind::kMaxDim, Rw(1, {1, 2}, DType::kF16), 0, Out(2, {0, 2}, DType::kF16)));
  EXPECT_EQ(max.reduce()->acc, DType::kF16);
}

TEST(ReduceFuser, DropRightAfterTheReduceClosesLikeBurnsWriteFallback) {
  // burn's write-side fallback fuser starts empty, and Drop on an empty fuser closes it.
  ReduceFuser fuser(kUnlimited);
  fuser.Fuse(ir::Unary(OpKind::kExp, Ro(0, {1, 2}), Out(1, {1, 2})));
  fuser.Fuse(ir::ReduceDim(OpKind::kSumDim, Ro(1, {1, 2}), 1, Out(2, {1, 0})));
  fuser.Fuse(ir::Drop(Rw(1, {1, 2})));
  EXPECT_EQ(fuser.status(), FuserStatus::kClosed);
  EXPECT_EQ(fuser.len(), 2u);
}

TEST(MatmulFuser, BiasEpilogueIsReadyAndScoresOneSavedAccess) {
  MatmulFuser fuser(kUnlimited);
  fuser.Fuse(ir::Binary(OpKind::kMatmul, Ro(0, {1, 2}), Ro(1, {2, 3}), Out(2, {1, 3})));
  EXPECT_FALSE(fuser.properties().ready);
  EXPECT_EQ(fuser.len(), 1u);
  fuser.Fuse(ir::Binary(OpKind::kAdd, Rw(2, {1, 3}), Ro(3, {0, 3}), Out(4, {1, 3})));
  EXPECT_TRUE(fuser.properties().ready);
  // Add alone: 2 reads + 1 write unfused; fused: the bias read and the write.
  EXPECT_EQ(fuser.properties().score, 100u);
  fuser.Fuse(ir::Scalar(OpKind::kMulScalar, Rw(4, {1, 3}), P(0), Out(5, {1, 3})));
  EXPECT_EQ(fuser.len(), 3u);
  EXPECT_EQ(fuser.properties().score, 310u);  // (5 - 2) * 100 + 10

  auto opt = std::dynamic_pointer_cast<TraceOptimization>(fuser.Finish());
  ASSERT_NE(opt, nullptr);
  EXPECT_EQ(opt->name(), "Matmul");
  ASSERT_TRUE(opt->trace().matmul.has_value());
  EXPECT_EQ(opt->trace().matmul->lhs, 0u);
  EXPECT_EQ(opt->trace().matmul->rhs, 1u);
  EXPECT_EQ(opt->trace().matmul->output.kind, FuseArgKind::kLocal);
  ASSERT_EQ(opt->trace().resources.outputs.size(), 1u);
  EXPECT_EQ(opt->trace().resources.outputs[0].id, 5u);
}

// burn's MatmulFuser matches Float(_, FloatOperationIr::Matmul) only: an integer matmul with an
// elementwise epilogue is not fused (issue 17).
TEST(MatmulFuser, AnIntegerMatmulIsNotFused) {
  for (const DType dtype : {DType::kI32, DType::kI64}) {
    MatmulFuser fuser(kUnlimited);
    fuser.Fuse(ir::Binary(OpKind::kMatmul, Ro(0, {1, 2}, dtype), Ro(1, {2, 3}, dtype),
                          Out(2, {1, 3}, dtype)));
    EXPECT_EQ(fuser.status(), FuserStatus::kClosed) << DTypeName(dtype);
    fuser.Fuse(ir::Binary(OpKind::kAdd, Rw(2, {1, 3}, dtype), Ro(3, {0, 3}, dtype),
                          Out(4, {1, 3}, dtype)));
    EXPECT_FALSE(fuser.properties().ready) << DTypeName(dtype);
  }
  for (const DType dtype : {DType::kF16, DType::kBF16}) {  // every float precision is burn's
    MatmulFuser fuser(kUnlimited);
    fuser.Fuse(ir::Binary(OpKind::kMatmul, Ro(0, {1, 2}, dtype), Ro(1, {2, 3}, dtype),
                          Out(2, {1, 3}, dtype)));
    fuser.Fuse(ir::Binary(OpKind::kAdd, Rw(2, {1, 3}, dtype), Ro(3, {0, 3}, dtype),
                          Out(4, {1, 3}, dtype)));
    EXPECT_TRUE(fuser.properties().ready) << DTypeName(dtype);
  }
}

TEST(MatmulFuser, OpsBeforeTheMatmulCloseItAndTheEpilogueCannotGrowTheShape) {
  MatmulFuser before(kUnlimited);
  before.Fuse(ir::Unary(OpKind::kExp, Ro(0, {1, 2}), Out(1, {1, 2})));
  EXPECT_EQ(before.status(), FuserStatus::kClosed);

  MatmulFuser grow(kUnlimited);
  grow.Fuse(ir::Binary(OpKind::kMatmul, Ro(0, {1, 2}), Ro(1, {2, 3}), Out(2, {1, 3})));
  grow.Fuse(ir::Binary(OpKind::kAdd, Rw(2, {1, 3}), Ro(3, {4, 1, 3}), Out(4, {4, 1, 3})));
  EXPECT_EQ(grow.status(), FuserStatus::kClosed);
  EXPECT_FALSE(grow.properties().ready);
}

}  // namespace
}  // namespace ember

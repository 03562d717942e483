// The table of built-in fusers (engine/fuse/builtin_fusers.h) and the lists derived from it:
// its order (which breaks score ties), each row's fuser making optimizations of the row's name,
// and the names the plan database rebuilds (engine/fuse/optimization_factory.h).
#include <gtest/gtest.h>

#include <memory>
#include <string_view>
#include <vector>

#include "engine/fuse/builtin_fusers.h"
#include "engine/fuse/elementwise_fuser.h"
#include "engine/fuse/matmul_fuser.h"
#include "engine/fuse/optimization_factory.h"
#include "engine/fuse/reduce_broadcasted_fuser.h"
#include "engine/fuse/reduce_fuser.h"
#include "tests/fuse/fuse_test_util.h"

namespace ember {
namespace {

using namespace fuse_test;
using test::Out;
using test::P;
using test::Ro;
using test::Rw;

// Ops each built-in fuser takes and finishes as one optimization of its own name.
std::vector<OperationIr> ProgramFor(std::string_view name) {
  if (name == MatmulFuser::kName) {
    return {ir::Binary(OpKind::kMatmul, Ro(0, {1, 2}), Ro(1, {2, 3}), Out(2, {1, 3})),
            ir::Binary(OpKind::kAdd, Rw(2, {1, 3}), Ro(3, {0, 3}), Out(4, {1, 3}))};
  }
  if (name == ReduceFuser::kName) {
    return {ir::Unary(OpKind::kExp, Ro(0, {1, 2}), Out(1, {1, 2})),
            ir::ReduceDim(OpKind::kSumDim, Rw(1, {1, 2}), 1, Out(2, {1, 0})),
            ir::Scalar(OpKind::kDivScalar, Rw(2, {1, 0}), P(0), Out(3, {1, 0}))};
  }
  if (name == ReduceBroadcastedFuser::kName) {  // a softmax
    const Shape rows = {1, 2}, row = {1, 0};
    return {ir::Scalar(OpKind::kMulScalar, Ro(0, rows), P(0), Out(1, rows)),
            ir::ReduceDim(OpKind::kMaxDim, Ro(1, rows), 1, Out(2, row)),
            ir::Binary(OpKind::kSub, Rw(1, rows), Rw(2, row), Out(3, rows)),
            ir::Unary(OpKind::kExp, Rw(3, rows), Out(4, rows)),
            ir::ReduceDim(OpKind::kSumDim, Ro(4, rows), 1, Out(5, row)),
            ir::Binary(OpKind::kDiv, Rw(4, rows), Rw(5, row), Out(6, rows))};
  }
  return {ir::Binary(OpKind::kMul, Ro(0, {1, 1}), Ro(1, {1, 1}), Out(2, {1, 1})),
          ir::Unary(OpKind::kExp, Rw(2, {1, 1}), Out(3, {1, 1}))};
}

TEST(BuiltinFusers, TheTableListsTheFourFusersInBurnsOrderWithTheirVersions) {
  const std::span<const BuiltinFuserEntry> table = BuiltinFuserTable();
  ASSERT_EQ(table.size(), 4u);
  EXPECT_EQ(table[0].name, ElementWiseFuser::kName);
  EXPECT_EQ(table[0].version, ElementWiseFuser::kVersion);
  EXPECT_EQ(table[1].name, MatmulFuser::kName);
  EXPECT_EQ(table[1].version, MatmulFuser::kVersion);
  EXPECT_EQ(table[2].name, ReduceFuser::kName);
  EXPECT_EQ(table[2].version, ReduceFuser::kVersion);
  EXPECT_EQ(table[3].name, ReduceBroadcastedFuser::kName);
  EXPECT_EQ(table[3].version, ReduceBroadcastedFuser::kVersion);
}

TEST(BuiltinFusers, EveryRowMakesOptimizationsOfItsNameAndEveryListFollowsTheTable) {
  const std::vector<std::unique_ptr<OperationFuser>> fusers = BuiltinFusers(kCpuMaxBindings);
  const std::span<const BuiltinFuserEntry> table = BuiltinFuserTable();
  ASSERT_EQ(fusers.size(), table.size());
  auto finishes_as = [](OperationFuser& fuser, std::string_view name) {
    const std::vector<OperationIr> ops = ProgramFor(name);
    EXPECT_EQ(FeedAll(fuser, ops), ops.size()) << name;
    ASSERT_TRUE(fuser.properties().ready) << name;
    EXPECT_EQ(fuser.Finish()->name(), name);
  };
  for (size_t i = 0; i < table.size(); ++i) {
    const std::string_view name = table[i].name;
    EXPECT_TRUE(IsKnownOptimization(name)) << name;
    finishes_as(*fusers[i], name);
    const std::unique_ptr<OperationFuser> by_name = BuiltinFuser(name, kCpuMaxBindings);
    ASSERT_NE(by_name, nullptr) << name;
    finishes_as(*by_name, name);
  }
  EXPECT_EQ(BuiltinFuser("NoSuchFuser", kCpuMaxBindings), nullptr);
  EXPECT_FALSE(IsKnownOptimization("NoSuchFuser"));
}

}  // namespace
}  // namespace ember

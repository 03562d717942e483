// Bad input at the reductions and matmul (bad axes, ranks and inner dims that disagree;
// bad_input.h).
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/api/bad_input.h"

namespace ember::bad_input {
namespace {

// clang-format off
std::vector<BadCall> ReduceMatmulCases() {
  const Needs kStale = Needs::kStale;
  const Needs kCuda = Needs::kCuda;
  return {
    // --- Reductions ------------------------------------------------------------------------
    {"SumDim_BadAxis", [](O o) { (void)o.f.SumDim(2); },
     {"SumDim", "[2,3] f32", "dim 2", "rank 2"}},
    {"MeanDim_NegativeAxisBeyondRank", [](O o) { (void)o.f.MeanDim(-3); },
     {"MeanDim", "[2,3] f32", "dim -3"}},
    {"ProdDim_HugeAxis", [](O o) { (void)o.f.ProdDim(kInt64Max); },
     {"ProdDim", "dim 9223372036854775807"}},
    {"MaxDim_WrongRank", [](O o) { (void)o.scalar.MaxDim(0); }, {"MaxDim", "[] f32", "rank 0"}},
    {"MinDim_WrongDtype", [](O o) { (void)o.b.MinDim(0); }, {"MinDim", "[2,3] bool"}},
    {"SumDim_WrongDtype", [](O o) { (void)o.b.SumDim(1); }, {"SumDim", "[2,3] bool"}},
    {"ArgMax_BadAxis", [](O o) { (void)o.i.ArgMax(5); }, {"ArgMax", "[2,3] i32", "dim 5"}},
    {"ArgMin_NegativeAxisBeyondRank", [](O o) { (void)o.f.ArgMin(kInt64Min); },
     {"ArgMin", "dim -9223372036854775808"}},
    {"ArgMax_WrongDtype", [](O o) { (void)o.b.ArgMax(0); }, {"ArgMax", "[2,3] bool"}},
    {"ArgMin_WrongDtypeScalar", [](O o) { (void)o.bool_scalar.ArgMin(0); },
     {"ArgMin", "[] bool"}},
    {"ProdDim_EmptyTensor", [](O o) { (void)o.empty.ProdDim(0); }, {"ProdDim", "empty"}},
    {"ArgMax_ReleasedDevice", [](O o) { (void)o.stale.ArgMax(0); },
     {"ArgMax", "released"}, kStale},
    {"SumDim_ReleasedDevice", [](O o) { (void)std::move(o.stale).SumDim(0); },
     {"SumDim", "released"}, kStale},

    // --- Matmul ----------------------------------------------------------------------------
    {"Matmul_WrongRank", [](O o) { (void)o.f.Matmul(o.v4); },
     {"Matmul", "[2,3] f32", "[4] f32", "rank >= 2"}},
    {"Matmul_WrongRankScalar", [](O o) { (void)o.scalar.Matmul(o.f); },
     {"Matmul", "[] f32", "[2,3] f32", "rank >= 2"}},
    {"Matmul_WrongShape", [](O o) { (void)o.f.Matmul(o.f); },
     {"Matmul", "[2,3] f32 x [2,3] f32", "inner dims 3 and 2"}},
    {"Matmul_WrongBatch",
     [](O o) { (void)o.batch2.Matmul(o.batch3); },
     {"Matmul", "batch dims of [2,2,3] f32 x [3,3,2] f32", "[2] and [3]", "broadcast"}},
    {"Matmul_WrongDtype", [](O o) { (void)o.f.Matmul(o.i32x2); },
     {"Matmul", "[2,3] f32", "[3,2] i32", "same dtype"}},
    {"Matmul_WrongDtypeBool", [](O o) { (void)o.b.Matmul(o.b); }, {"Matmul", "[2,3] bool"}},
    {"Matmul_ShapeOverflow", [](O o) { (void)o.tall.Matmul(o.wide); },
     {"Matmul", "[1048576,1] f32", "[1,2097152] f32", "more than"}},
    {"Matmul_EmptyTensor", [](O o) { (void)o.f.Matmul(o.empty); },
     {"Matmul", "the second operand is empty"}},
    {"Matmul_ReleasedDevice", [](O o) { (void)o.g.Matmul(o.stale); },
     {"Matmul", "released"}, kStale},
    {"Matmul_OtherDevice", [](O o) { (void)o.g.Matmul(o.cuda); },
     {"Matmul", "[3,2] f32 on cpu", "[2,3] f32 on cuda:0", "different devices"}, kCuda},
  };
}
// clang-format on

INSTANTIATE_TEST_SUITE_P(Api, BadInput, ::testing::ValuesIn(ReduceMatmulCases()), BadCallName);

}  // namespace
}  // namespace ember::bad_input

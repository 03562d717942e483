// Bad input at the ops that move or pick elements: reshape, swap_dims and permute, slice, expand,
// gather and select, cat (bad axes, sizes and indices; bad_input.h).
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/api/bad_input.h"

namespace ember::bad_input {
namespace {

// clang-format off
std::vector<BadCall> ShapeCases() {
  const Needs kStale = Needs::kStale;
  const Needs kCuda = Needs::kCuda;
  return {
    // --- Reshape ---------------------------------------------------------------------------
    {"Reshape_WrongShape", [](O o) { (void)o.f.Reshape({4, 2}); },
     {"Reshape", "[2,3] f32", "6 elements", "[4,2]"}},
    {"Reshape_EmptyShapeOfSix", [](O o) { (void)o.f.Reshape({}); },
     {"Reshape", "[2,3] f32", "6 elements", "[]"}},
    {"Reshape_TwoInferred", [](O o) { (void)o.f.Reshape({-1, -1}); },
     {"Reshape", "[2,3] f32", "[-1,-1]", "more than one -1"}},
    {"Reshape_InferredDoesNotDivide", [](O o) { (void)o.f.Reshape({-1, 4}); },
     {"Reshape", "[2,3] f32", "[-1,4]"}},
    {"Reshape_NegativeSize", [](O o) { (void)o.f.Reshape({-2, -3}); },
     {"Reshape", "[2,3] f32", "[-2,-3]", "dim 0 = -2"}},
    {"Reshape_ZeroSize", [](O o) { (void)o.f.Reshape({-1, 0}); },
     {"Reshape", "[2,3] f32", "[-1,0]", "dim 1 = 0"}},
    {"Reshape_HugeSize", [](O o) { (void)o.f.Reshape({kInt64Max}); },
     {"Reshape", "[2,3] f32", "[9223372036854775807]"}},
    {"Reshape_ShapeOverflow", [](O o) { (void)o.f.Reshape({k2e40, k2e40}); },
     {"Reshape", "[2,3] f32", "[1099511627776,1099511627776]", "more than"}},
    {"Reshape_InferredWithOverflow", [](O o) { (void)o.f.Reshape({-1, k2e40, 8}); },
     {"Reshape", "[2,3] f32", "[-1,1099511627776,8]"}},
    {"Reshape_EmptyTensor", [](O o) { (void)o.empty.Reshape({1}); }, {"Reshape", "empty"}},
    {"Reshape_ReleasedDevice", [](O o) { (void)o.stale.Reshape({6}); },
     {"Reshape", "released"}, kStale},

    // --- SwapDims and Permute --------------------------------------------------------------
    {"SwapDims_BadAxis", [](O o) { (void)o.f.SwapDims(0, 2); },
     {"SwapDims", "[2,3] f32", "dim 2", "rank 2"}},
    {"SwapDims_NegativeAxisBeyondRank", [](O o) { (void)o.f.SwapDims(-3, 0); },
     {"SwapDims", "[2,3] f32", "dim -3", "[-2, 2)"}},
    {"SwapDims_HugeAxis", [](O o) { (void)o.f.SwapDims(0, kInt64Min); },
     {"SwapDims", "dim -9223372036854775808"}},
    {"SwapDims_WrongRank", [](O o) { (void)o.scalar.SwapDims(0, 0); },
     {"SwapDims", "[] f32", "rank 0"}},
    {"SwapDims_EmptyTensor", [](O o) { (void)o.empty.SwapDims(0, 1); }, {"SwapDims", "empty"}},
    {"SwapDims_ReleasedDevice", [](O o) { (void)o.stale.SwapDims(0, 1); },
     {"SwapDims", "released"}, kStale},
    {"Permute_WrongRank", [](O o) { (void)o.f.Permute({0}); },
     {"Permute", "axes [0]", "[2,3] f32", "permutation of all 2 dims"}},
    {"Permute_EmptyAxes", [](O o) { (void)o.f.Permute({}); },
     {"Permute", "axes []", "[2,3] f32"}},
    {"Permute_TooManyAxes", [](O o) { (void)o.scalar.Permute({0}); },
     {"Permute", "axes [0]", "[] f32"}},
    {"Permute_DuplicateAxes", [](O o) { (void)o.f.Permute({0, 0}); },
     {"Permute", "[0,0]", "[2,3] f32", "twice"}},
    {"Permute_DuplicateAxesNegative", [](O o) { (void)o.f.Permute({1, -1}); },
     {"Permute", "axes [1,-1]", "[2,3] f32", "twice"}},
    {"Permute_BadAxis", [](O o) { (void)o.f.Permute({0, 2}); },
     {"Permute", "[2,3] f32", "dim 2"}},
    {"Permute_NegativeAxisBeyondRank", [](O o) { (void)o.f.Permute({-3, 0}); },
     {"Permute", "[2,3] f32", "dim -3"}},
    {"Permute_EmptyTensor", [](O o) { (void)o.empty.Permute({}); }, {"Permute", "empty"}},
    {"Permute_ReleasedDevice", [](O o) { (void)o.stale.Permute({1, 0}); },
     {"Permute", "released"}, kStale},

    // --- Slice -----------------------------------------------------------------------------
    {"Slice_WrongRank", [](O o) { (void)o.f.Slice({Slice{}, Slice{}, Slice{}}); },
     {"Slice", "3 ranges", "[2,3] f32", "at most one per dim"}},
    {"Slice_WrongRankScalar", [](O o) { (void)o.scalar.Slice({Slice{}}); },
     {"Slice", "1 ranges", "[] f32"}},
    {"Slice_ZeroStep", [](O o) { (void)o.f.Slice({Slice{0, 2, 0}}); },
     {"Slice", "[2,3] f32", "step 0", "non-zero step"}},
    {"Slice_MinStep", [](O o) { (void)o.f.Slice({Slice{}, Slice{0, {}, kInt64Min}}); },
     {"Slice", "[2,3] f32", "step -9223372036854775808"}},
    {"Slice_SelectsNothing", [](O o) { (void)o.f.Slice({Slice{2, 2, 1}}); },
     {"Slice", "[2,3] f32", "selects no element"}},
    {"Slice_StartBeyondSize", [](O o) { (void)o.f.Slice({Slice{}, Slice{kInt64Max, {}, 1}}); },
     {"Slice", "[2,3] f32", "selects no element of dim 1"}},
    {"Slice_EndBeforeStart", [](O o) { (void)o.f.Slice({Slice{-1, 0, -1}}); },
     {"Slice", "selects no element of dim 0"}},
    {"Slice_EmptyTensor", [](O o) { (void)o.empty.Slice({}); }, {"Slice", "empty"}},
    {"Slice_ReleasedDevice", [](O o) { (void)o.stale.Slice({Slice{0, 1, 1}}); },
     {"Slice", "released"}, kStale},

    // --- Expand ----------------------------------------------------------------------------
    {"Expand_WrongRank", [](O o) { (void)o.f.Expand({3}); },
     {"Expand", "[2,3] f32", "[3]", "fewer dims"}},
    {"Expand_EmptyShape", [](O o) { (void)o.f.Expand({}); },
     {"Expand", "[2,3] f32", "[]", "fewer dims"}},
    {"Expand_WrongShape", [](O o) { (void)o.f.Expand({4, 3}); },
     {"Expand", "[2,3] f32", "[4,3]", "dim 0 has size 2"}},
    {"Expand_NegativeSize", [](O o) { (void)o.f.Expand({2, -5}); },
     {"Expand", "[2,3] f32", "[2,-5]"}},
    {"Expand_NegativeLeadingSize", [](O o) { (void)o.f.Expand({-2, 2, 3}); },
     {"Expand", "[2,3] f32", "[-2,2,3]", "dim 0 = -2"}},
    {"Expand_ZeroLeadingSize", [](O o) { (void)o.f.Expand({4, 0, 2, 3}); },
     {"Expand", "[2,3] f32", "[4,0,2,3]", "dim 1 = 0"}},
    {"Expand_InferredLeading", [](O o) { (void)o.f.Expand({-1, 2, 3}); },
     {"Expand", "[2,3] f32", "[-1,2,3]", "new leading dim 0"}},
    {"Expand_HugeSize", [](O o) { (void)o.f.Expand({kInt64Max, 2, 3}); },
     {"Expand", "[2,3] f32", "[9223372036854775807,2,3]", "more than"}},
    {"Expand_ShapeOverflow", [](O o) { (void)o.f.Expand({k2e40, k2e40, 2, 3}); },
     {"Expand", "[2,3] f32", "[1099511627776,1099511627776,2,3]", "more than"}},
    {"Expand_EmptyTensor", [](O o) { (void)o.empty.Expand({2}); }, {"Expand", "empty"}},
    {"Expand_ReleasedDevice", [](O o) { (void)o.stale.Expand({2, 2, 3}); },
     {"Expand", "released"}, kStale},

    // --- Gather and Select -----------------------------------------------------------------
    {"Gather_WrongDtypeIndices", [](O o) { (void)o.f.Gather(0, o.f); },
     {"Gather", "indices are [2,3] f32", "i32 or i64"}},
    {"Gather_BoolIndices", [](O o) { (void)o.f.Gather(0, o.b); },
     {"Gather", "indices are [2,3] bool"}},
    {"Gather_WrongRank", [](O o) { (void)o.f.Gather(0, o.idx); },
     {"Gather", "[2] i64", "[2,3] f32", "same rank"}},
    {"Gather_WrongShape", [](O o) { (void)o.f.Gather(0, o.idx24); },
     {"Gather", "[2,4] i64", "[2,3] f32", "no larger"}},
    {"Gather_BadAxis", [](O o) { (void)o.f.Gather(2, o.idx23); },
     {"Gather", "[2,3] f32", "dim 2", "rank 2"}},
    {"Gather_NegativeAxisBeyondRank", [](O o) { (void)o.f.Gather(-3, o.idx23); },
     {"Gather", "dim -3"}},
    {"Gather_EmptyIndices", [](O o) { (void)o.f.Gather(0, o.empty); },
     {"Gather", "the indices tensor is empty"}},
    {"Gather_ReleasedDevice", [](O o) { (void)o.stale.Gather(0, o.idx23); },
     {"Gather", "released"}, kStale},
    {"Gather_OtherDevice", [](O o) { (void)o.f.Gather(0, o.cuda_idx); },
     {"Gather", "[2] i64 on cuda:0", "different devices"}, kCuda},
    {"Select_WrongRankIndices", [](O o) { (void)o.f.Select(0, o.idx23); },
     {"Select", "[2,3] i64", "1-D"}},
    {"Select_WrongDtypeIndices", [](O o) { (void)o.f.Select(1, o.v4); },
     {"Select", "indices are [4] f32", "i32 or i64"}},
    {"Select_BadAxis", [](O o) { (void)o.f.Select(2, o.idx); },
     {"Select", "[2,3] f32", "dim 2"}},
    {"Select_WrongRank", [](O o) { (void)o.scalar.Select(0, o.idx); },
     {"Select", "[] f32", "rank 0"}},
    {"Select_ShapeOverflow", [](O o) { (void)o.tall.Select(1, o.long_idx); },
     {"Select", "[1048576,1] f32", "[2097152] i64", "more than"}},
    {"Select_EmptyIndices", [](O o) { (void)o.f.Select(0, o.empty); },
     {"Select", "the indices tensor is empty"}},
    {"Select_ReleasedDevice", [](O o) { (void)o.f.Select(0, o.stale_idx); },
     {"Select", "[2] i64", "released"}, kStale},
    {"Select_OtherDevice", [](O o) { (void)o.f.Select(0, o.cuda_idx); },
     {"Select", "different devices"}, kCuda},

    // --- Cat -------------------------------------------------------------------------------
    {"Cat_NoTensors", [](O) { (void)Cat({}, 0); }, {"Cat", "no tensors", "at least one"}},
    {"Cat_WrongShape", [](O o) { (void)Cat({o.f, o.g}, 1); },
     {"Cat", "tensor 1 is [3,2] f32", "[2,3] f32", "outside dim 1"}},
    {"Cat_WrongRank", [](O o) { (void)Cat({o.f, o.v4}, 0); },
     {"Cat", "tensor 1 is [4] f32", "[2,3] f32"}},
    {"Cat_WrongDtype", [](O o) { (void)Cat({o.f, o.i}, 0); },
     {"Cat", "[2,3] f32", "[2,3] i32", "same dtype"}},
    {"Cat_BadAxis", [](O o) { (void)Cat({o.f, o.f}, 2); }, {"Cat", "[2,3] f32", "dim 2"}},
    {"Cat_NegativeAxisBeyondRank", [](O o) { (void)Cat({o.f, o.f}, -3); },
     {"Cat", "dim -3"}},
    {"Cat_WrongRankScalar", [](O o) { (void)Cat({o.scalar, o.scalar}, 0); },
     {"Cat", "[] f32", "rank 0"}},
    {"Cat_ShapeOverflow", [](O o) { (void)Cat({o.half, o.half}, 0); },
     {"Cat", "[549755813889] f32", "more than"}},
    {"Cat_EmptyTensor", [](O o) { (void)Cat({o.f, o.empty}, 0); }, {"Cat", "tensor 1 is empty"}},
    {"Cat_EmptyFirstTensor", [](O o) { (void)Cat({o.empty, o.f}, 0); },
     {"Cat", "tensor 0 is empty"}},
    {"Cat_ReleasedDevice", [](O o) { (void)Cat({o.f, o.stale}, 0); },
     {"Cat", "released"}, kStale},
    {"Cat_OtherDevice", [](O o) { (void)Cat({o.f, o.cuda}, 0); },
     {"Cat", "different devices"}, kCuda},
  };
}
// clang-format on

INSTANTIATE_TEST_SUITE_P(Api, BadInput, ::testing::ValuesIn(ShapeCases()), BadCallName);

}  // namespace
}  // namespace ember::bad_input

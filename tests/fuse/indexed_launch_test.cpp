// The launch-time rules of an indexed op that the CPU's fused plan and the CUDA code generator
// share (engine/trace/indexed_launch.h): each rule accepted at its edge and refused one step
// past it, with the reason named. The backends' own tests run the same rules through a launch:
// tests/runtime/cpu/fused_indexed_test.cpp (MismatchedOperandsAreRefused) and
// tests/codegen/plan_indexed_test.cpp.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/trace/indexed_launch.h"

namespace ember {
namespace {

struct Bound {
  DType dtype;
  Shape shape;
};

FuseOp Op(FuseOpKind kind, std::vector<DType> dtypes, int64_t dim) {
  FuseOp op;
  op.kind = kind;
  for (size_t k = 0; k < dtypes.size(); ++k) {
    op.indexed.push_back(
        {.kind = FuseArgKind::kInput, .dtype = dtypes[k], .pos = static_cast<uint32_t>(k)});
  }
  op.dim = dim;
  op.out = {.kind = FuseArgKind::kLocal, .dtype = dtypes.empty() ? DType::kF32 : dtypes[0]};
  return op;
}

// The problem with `op` over `block` when input k is bound to inputs[k].
std::optional<std::string> Problem(const FuseOp& op, const Shape& block,
                                   const std::vector<Bound>& inputs) {
  return IndexedLaunchProblem(op, block, [&](uint32_t pos) -> std::optional<IndexedOperand> {
    if (pos >= inputs.size()) return std::nullopt;
    return IndexedOperand{.dtype = inputs[pos].dtype, .shape = &inputs[pos].shape};
  });
}

void ExpectProblem(const std::optional<std::string>& problem, const std::string& words) {
  ASSERT_TRUE(problem.has_value()) << "expected a refusal naming '" << words << "'";
  EXPECT_NE(problem->find(words), std::string::npos) << *problem;
}

constexpr DType kF = DType::kF32, kI = DType::kI64;

TEST(IndexedLaunch, GatherTakesIndicesOfTheBlocksShapeOverATensorOfAnySizes) {
  const FuseOp gather = Op(FuseOpKind::kGather, {kF, kI}, 1);
  // The tensor may be narrower or wider than the block along any dim (past it reads 0).
  EXPECT_EQ(Problem(gather, {4, 3}, {{kF, {4, 9}}, {kI, {4, 3}}}), std::nullopt);
  const FuseOp by_i32 = Op(FuseOpKind::kGather, {kF, DType::kI32}, 1);
  EXPECT_EQ(Problem(by_i32, {4, 3}, {{kF, {2, 1}}, {DType::kI32, {4, 3}}}), std::nullopt);
  ExpectProblem(Problem(gather, {4, 3}, {{kF, {4, 9}}, {kI, {1, 3}}}), "indices of shape");
  const FuseOp by_float = Op(FuseOpKind::kGather, {kF, kF}, 1);
  ExpectProblem(Problem(by_float, {4, 3}, {{kF, {4, 9}}, {kF, {4, 3}}}), "f32 indices");
  ExpectProblem(Problem(gather, {4, 3}, {{kF, {36}}, {kI, {4, 3}}}), "another rank");
}

TEST(IndexedLaunch, SelectTakesOneIndexPerPositionAlongDim) {
  const FuseOp select = Op(FuseOpKind::kSelect, {kF, kI}, 0);
  EXPECT_EQ(Problem(select, {5, 3}, {{kF, {2, 3}}, {kI, {5}}}), std::nullopt);
  ExpectProblem(Problem(select, {5, 3}, {{kF, {2, 3}}, {kI, {3}}}), "indices of shape");
  ExpectProblem(Problem(select, {5, 3}, {{kF, {2, 3}}, {kI, {5, 1}}}), "indices of shape");
  const FuseOp by_bool = Op(FuseOpKind::kSelect, {kF, DType::kBool}, 0);
  ExpectProblem(Problem(by_bool, {5, 3}, {{kF, {2, 3}}, {DType::kBool, {5}}}), "bool indices");
}

TEST(IndexedLaunch, CatInputsFillTheBlockAlongDimAndMatchItElsewhere) {
  const FuseOp cat = Op(FuseOpKind::kCat, {kF, kF, kF}, 1);
  EXPECT_EQ(Problem(cat, {2, 6}, {{kF, {2, 1}}, {kF, {2, 0}}, {kF, {2, 5}}}), std::nullopt);
  ExpectProblem(Problem(cat, {2, 6}, {{kF, {2, 1}}, {kF, {2, 0}}, {kF, {2, 4}}}),
                "5 long along dim 1");
  ExpectProblem(Problem(cat, {2, 6}, {{kF, {2, 1}}, {kF, {3, 0}}, {kF, {2, 5}}}),
                "an input of shape");
  const FuseOp mixed = Op(FuseOpKind::kCat, {kF, DType::kF16}, 0);
  ExpectProblem(Problem(mixed, {2, 2}, {{kF, {1, 2}}, {DType::kF16, {1, 2}}}), "two dtypes");
}

TEST(IndexedLaunch, OperandsMustBeBoundInputsOfTheDtypeRead) {
  const FuseOp gather = Op(FuseOpKind::kGather, {kF, kI}, 0);
  ExpectProblem(Problem(gather, {4}, {{kF, {4}}}), "not an input");  // input 1 unbound
  ExpectProblem(Problem(gather, {4}, {{DType::kF16, {4}}, {kI, {4}}}), "f16 input read as f32");
  FuseOp scalar = gather;
  scalar.indexed[1].kind = FuseArgKind::kScalar;
  ExpectProblem(Problem(scalar, {4}, {{kF, {4}}, {kI, {4}}}), "not an input");
}

TEST(IndexedLaunch, DimAndOperandCountAreChecked) {
  ExpectProblem(Problem(Op(FuseOpKind::kGather, {kF, kI}, 2), {4, 3}, {}), "dim 2 out of range");
  ExpectProblem(Problem(Op(FuseOpKind::kGather, {kF, kI}, -1), {4, 3}, {}), "dim -1");
  ExpectProblem(Problem(Op(FuseOpKind::kSelect, {kF}, 0), {4}, {{kF, {4}}}), "1 operands");
  ExpectProblem(Problem(Op(FuseOpKind::kCat, {}, 0), {4}, {}), "0 operands");
}

}  // namespace
}  // namespace ember

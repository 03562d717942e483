// The op table (engine/ir/op_list.def). The stored numbers of landed op kinds and fused ops
// never change (plan databases and canonical bytes hold them), nor does the fused op each
// landed op becomes, and fused ops line up with the op kinds of their names.
#include <iterator>
#include <optional>
#include <string_view>

#include <gtest/gtest.h>

#include "engine/ir/op_kind.h"
#include "engine/trace/fuse_trace.h"

namespace ember {
namespace {

struct LandedOp {
  std::string_view name;
  std::string_view fused;  // "" when it has no fused op
};

// By stored number, as of schema version 1 (schema/README.md). New kinds are appended after.
// Cat, Gather and Select had no fused op until issue 45 gave them their indexed ones (no stored
// number depends on the Fused column).
// clang-format off
constexpr LandedOp kLandedOps[] = {
    {"Init", ""}, {"Drop", ""}, {"Random", ""}, {"Zeros", "Assign"}, {"Ones", "Assign"},
    {"Full", "Assign"}, {"Add", "Add"}, {"AddScalar", "Add"}, {"Sub", "Sub"}, {"SubScalar", "Sub"},
    {"Mul", "Mul"}, {"MulScalar", "Mul"}, {"Div", "Div"}, {"DivScalar", "Div"}, {"Rem", "Rem"},
    {"RemScalar", "Rem"}, {"Powf", "Powf"}, {"PowfScalar", "Powf"}, {"Abs", "Abs"}, {"Neg", "Neg"},
    {"Exp", "Exp"}, {"Log", "Log"}, {"Log1p", "Log1p"}, {"Sqrt", "Sqrt"}, {"Recip", "Recip"},
    {"Sin", "Sin"}, {"Cos", "Cos"}, {"Tanh", "Tanh"}, {"Erf", "Erf"}, {"Equal", "Equal"},
    {"EqualElem", "Equal"}, {"Lower", "Lower"}, {"LowerElem", "Lower"}, {"Greater", "Greater"},
    {"GreaterElem", "Greater"}, {"LowerEqual", "LowerEqual"}, {"LowerEqualElem", "LowerEqual"},
    {"GreaterEqual", "GreaterEqual"}, {"GreaterEqualElem", "GreaterEqual"}, {"Clamp", "Clamp"},
    {"MaskWhere", "ConditionalAssign"}, {"MaskFill", "ConditionalAssign"}, {"Cast", "Assign"},
    {"Reshape", ""}, {"SwapDims", ""}, {"Permute", ""}, {"Slice", ""}, {"Expand", ""}, {"Cat", "Cat"},
    {"Gather", "Gather"}, {"Select", "Select"}, {"SumDim", ""}, {"MeanDim", ""}, {"ProdDim", ""},
    {"MaxDim", ""}, {"MinDim", ""}, {"ArgMax", ""}, {"ArgMin", ""}, {"Sum", ""}, {"Mean", ""},
    {"Matmul", ""}};
// clang-format on

constexpr std::string_view kLandedFusedOps[] = {
    "Assign",  "Add",        "Sub",          "Mul",   "Div",
    "Rem",     "Powf",       "Abs",          "Neg",   "Exp",
    "Log",     "Log1p",      "Sqrt",         "Recip", "Sin",
    "Cos",     "Tanh",       "Erf",          "Equal", "Lower",
    "Greater", "LowerEqual", "GreaterEqual", "Clamp", "ConditionalAssign",
    "Gather",  "Select",     "Cat"};

std::optional<OpKind> OpNamed(std::string_view name) {
  for (int k = 0; k < kNumOpKinds; ++k) {
    if (OpKindName(static_cast<OpKind>(k)) == name) return static_cast<OpKind>(k);
  }
  return std::nullopt;
}

TEST(OpTable, LandedOpKindsKeepTheirNumbersAndFusedOps) {
  ASSERT_GE(kNumOpKinds, static_cast<int>(std::size(kLandedOps)));
  for (int k = 0; k < static_cast<int>(std::size(kLandedOps)); ++k) {
    const auto kind = static_cast<OpKind>(k);
    const LandedOp& landed = kLandedOps[k];
    EXPECT_EQ(OpKindName(kind), landed.name) << "op number " << k;
    EXPECT_EQ(HasFusedKind(kind), !landed.fused.empty()) << landed.name;
    if (HasFusedKind(kind)) {
      EXPECT_EQ(FuseOpKindName(FusedKindOf(kind)), landed.fused) << landed.name;
    }
  }
}

TEST(OpTable, LandedFusedOpsKeepTheirNumbers) {
  ASSERT_GE(kNumFuseOpKinds, static_cast<int>(std::size(kLandedFusedOps)));
  for (int f = 0; f < static_cast<int>(std::size(kLandedFusedOps)); ++f) {
    EXPECT_EQ(FuseOpKindName(static_cast<FuseOpKind>(f)), kLandedFusedOps[f])
        << "fused op number " << f;
  }
}

// A fused op named like an op kind is that op's (op_list.def).
TEST(OpTable, EveryFusedOpButTheAssignsIsTheFusedOpOfTheOpOfItsName) {
  for (int f = 0; f < kNumFuseOpKinds; ++f) {
    const auto fused = static_cast<FuseOpKind>(f);
    if (fused == FuseOpKind::kAssign || fused == FuseOpKind::kConditionalAssign) continue;
    const std::optional<OpKind> kind = OpNamed(FuseOpKindName(fused));
    ASSERT_TRUE(kind.has_value()) << FuseOpKindName(fused);
    ASSERT_TRUE(HasFusedKind(*kind)) << FuseOpKindName(fused);
    EXPECT_EQ(FusedKindOf(*kind), fused) << FuseOpKindName(fused);
  }
}

TEST(OpTable, ScalarFormsBecomeTheFusedOpOfTheirTensorForm) {
  for (int k = 0; k < kNumOpKinds; ++k) {
    const std::string_view name = OpKindName(static_cast<OpKind>(k));
    for (std::string_view suffix : {"Scalar", "Elem"}) {
      if (!name.ends_with(suffix)) continue;
      const std::optional<OpKind> tensor_form =
          OpNamed(name.substr(0, name.size() - suffix.size()));
      ASSERT_TRUE(tensor_form.has_value()) << name;
      EXPECT_EQ(FusedKindOf(static_cast<OpKind>(k)), FusedKindOf(*tensor_form)) << name;
    }
  }
}

TEST(OpTable, TheFormGivesTheArity) {
  for (int f = 0; f < kNumFuseOpKinds; ++f) {
    const auto fused = static_cast<FuseOpKind>(f);
    switch (FormOf(fused)) {
      case FuseOpForm::kUnary: EXPECT_EQ(FuseOpArity(fused), 1); break;
      case FuseOpForm::kBinary:
      case FuseOpForm::kComparison: EXPECT_EQ(FuseOpArity(fused), 2); break;
      case FuseOpForm::kTernary: EXPECT_EQ(FuseOpArity(fused), 3); break;
      case FuseOpForm::kIndexed: EXPECT_EQ(FuseOpArity(fused), 0); break;  // FuseOp::indexed
    }
  }
  EXPECT_EQ(FormOf(FuseOpKind::kAssign), FuseOpForm::kUnary);
  EXPECT_EQ(FormOf(FuseOpKind::kGather), FuseOpForm::kIndexed);
  EXPECT_EQ(FusedKindOf(OpKind::kCat), FuseOpKind::kCat);
  EXPECT_EQ(FormOf(FuseOpKind::kLower), FuseOpForm::kComparison);
  EXPECT_EQ(FormOf(FuseOpKind::kConditionalAssign), FuseOpForm::kTernary);
}

// A number no build knows (a newer database's) is named "?" and read with one operand; the
// codec refuses it before that matters (Known in store/codec/stored_numbers.cpp).
TEST(OpTable, AnUnknownFusedOpNumberHasNoName) {
  const auto unknown = static_cast<FuseOpKind>(kNumFuseOpKinds);
  EXPECT_EQ(FuseOpKindName(unknown), "?");
  EXPECT_EQ(FuseOpArity(unknown), 1);
  EXPECT_FALSE(HasFusedKind(static_cast<OpKind>(kNumOpKinds)));
}

}  // namespace
}  // namespace ember

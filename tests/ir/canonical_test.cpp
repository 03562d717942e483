// Canonical bytes (Note [Canonical bytes]): pinned golden encodings written out by hand from
// the layout in canonical.h, and "bytes equal exactly when ops equal" field by field.
#include "engine/ir/canonical.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "engine/ir/builders.h"
#include "tests/ir/sample_ops.h"

namespace ember {
namespace {

using test::Out;
using test::T;

std::string Hex(const std::vector<uint8_t>& bytes) {
  std::string out;
  for (uint8_t b : bytes) out += fmt::format("{:02x}", b);
  return out;
}

// Exp(t1:f32[4] ReadOnly) -> t2:f32[4] NotInit.
OperationIr SmallExp() { return ir::Unary(OpKind::kExp, T(1, {4}), Out(2, {4})); }

TEST(CanonicalBytes, GoldenBytesOfExp) {
  // clang-format off
  const std::string expected =
      "1400"                  // kind: Exp = 20, u16
      "00"                    // dtype: f32
      "01000000"              // 1 input
      "0100000000000000"      //   id 1
      "01000000"              //   rank 1
      "0400000000000000"      //   dim 4
      "01" "00"               //   ReadOnly, f32
      "01000000"              // 1 output
      "0200000000000000"      //   id 2
      "01000000"              //   rank 1
      "0400000000000000"      //   dim 4
      "00" "00"               //   NotInit, f32
      "00000000"              // no scalars
      "00000000"              // no ranges
      "00000000"              // no dims
      "00"                    // distribution: uniform
      "0000000000000000"      //   a = 0.0
      "000000000000f03f";     //   b = 1.0
  // clang-format on
  EXPECT_EQ(Hex(CanonicalBytes(SmallExp())), expected);
}

TEST(CanonicalBytes, GoldenBytesOfSliceWithNegativeOpenRange) {
  const OperationIr op = ir::SliceOp(T(1, {8}), {Slice{-1, std::nullopt, -1}}, Out(2, {8}));
  // clang-format off
  const std::string expected =
      "2e00" "00"                                                   // Slice = 46, f32
      "01000000" "0100000000000000" "01000000" "0800000000000000"   // input t1 [8]
      "01" "00"                                                     //   ReadOnly, f32
      "01000000" "0200000000000000" "01000000" "0800000000000000"   // output t2 [8]
      "00" "00"                                                     //   NotInit, f32
      "00000000"                                                    // no scalars
      "01000000"                                                    // 1 range:
      "ffffffffffffffff" "00" "0000000000000000" "ffffffffffffffff" //   -1, open, -1
      "00000000"                                                    // no dims
      "00" "0000000000000000" "000000000000f03f";                   // uniform(0.0, 1.0)
  // clang-format on
  EXPECT_EQ(Hex(CanonicalBytes(op)), expected);
}

TEST(CanonicalBytes, GoldenBytesOfRelativeFullList) {
  // [Full() -> t0:f32[] with placeholder 0]: the relative form of Full(2.5) -> t9:f32[].
  const std::vector<OperationIr> ops = {ir::Full(Out(0, {}), ScalarIr::UInt(0))};
  // clang-format off
  const std::string expected =
      "01"                                                  // format version
      "01000000"                                            // 1 op
      "0500" "00"                                           // Full = 5, f32
      "00000000"                                            // no inputs
      "01000000" "0000000000000000" "00000000" "00" "00"    // t0, rank 0, NotInit, f32
      "01000000" "02" "0000000000000000"                    // 1 scalar: UInt(0)
      "00000000" "00000000"                                 // no ranges, no dims
      "00" "0000000000000000" "000000000000f03f";           // uniform(0.0, 1.0)
  // clang-format on
  EXPECT_EQ(Hex(CanonicalListBytes(ops)), expected);
}

TEST(CanonicalBytes, EmptyListIsVersionAndZeroCount) {
  EXPECT_EQ(Hex(CanonicalListBytes({})), "0100000000");
  EXPECT_EQ(kCanonicalFormatVersion, 1);
}

TEST(CanonicalBytes, ListBytesAreVersionCountAndConcatenatedOps) {
  const std::vector<OperationIr> ops = ir_test::SeedProgram(0, {64, 64}, 2.0);
  std::vector<uint8_t> expected = {kCanonicalFormatVersion, 4, 0, 0, 0};
  for (const OperationIr& op : ops) AppendCanonicalBytes(op, expected);
  EXPECT_EQ(CanonicalListBytes(ops), expected);
}

TEST(CanonicalBytes, WideFieldsAreLittleEndian) {
  OperationIr op = SmallExp();
  op.inputs[0].id = 0x0102030405060708;
  op.inputs[0].shape = {-2};
  const std::vector<uint8_t> bytes = CanonicalBytes(op);
  // Offsets: kind 2 + dtype 1 + input count 4 = 7 -> id; + 8 + rank 4 = 19 -> dim.
  EXPECT_EQ(Hex({bytes.begin() + 7, bytes.begin() + 15}), "0807060504030201");
  EXPECT_EQ(Hex({bytes.begin() + 19, bytes.begin() + 27}), "feffffffffffffff");
}

// Every field takes part: changing any one of them changes the bytes, and the ops compare
// unequal too. Together with "equal ops give equal bytes" this makes the bytes a key.
TEST(CanonicalBytes, EveryFieldChangesTheBytes) {
  const OperationIr base =
      ir::Clamp(T(1, {4, 8}), ScalarIr::Float(-1.0), ScalarIr::Float(1.0), Out(2, {4, 8}));
  const std::vector<std::pair<std::string, std::function<void(OperationIr&)>>> mutations = {
      {"kind", [](OperationIr& op) { op.kind = OpKind::kAbs; }},
      {"dtype", [](OperationIr& op) { op.dtype = DType::kF16; }},
      {"input id", [](OperationIr& op) { op.inputs[0].id = 3; }},
      {"input dim", [](OperationIr& op) { op.inputs[0].shape[1] = 9; }},
      {"input rank", [](OperationIr& op) { op.inputs[0].shape.push_back(1); }},
      {"input status", [](OperationIr& op) { op.inputs[0].status = TensorStatus::kReadWrite; }},
      {"input dtype", [](OperationIr& op) { op.inputs[0].dtype = DType::kBF16; }},
      {"extra input", [](OperationIr& op) { op.inputs.push_back(T(5, {})); }},
      {"output id", [](OperationIr& op) { op.outputs[0].id = 7; }},
      {"no output", [](OperationIr& op) { op.outputs.clear(); }},
      {"scalar kind",
       [](OperationIr& op) {
         op.scalars[0] = ScalarIr::UInt(op.scalars[0].bits);  // same bits, other kind
       }},
      {"scalar bits", [](OperationIr& op) { op.scalars[1] = ScalarIr::Float(2.0); }},
      {"scalar order", [](OperationIr& op) { std::swap(op.scalars[0], op.scalars[1]); }},
      {"range", [](OperationIr& op) { op.ranges.push_back(Slice{}); }},
      {"dims", [](OperationIr& op) { op.dims.push_back(0); }},
      {"distribution kind",
       [](OperationIr& op) { op.distribution.kind = Distribution::Kind::kNormal; }},
      {"distribution a", [](OperationIr& op) { op.distribution.a = 0.5; }},
      {"distribution b", [](OperationIr& op) { op.distribution.b = 2.0; }},
  };
  const std::vector<uint8_t> base_bytes = CanonicalBytes(base);
  EXPECT_EQ(CanonicalBytes(OperationIr(base)), base_bytes);
  for (const auto& [name, mutate] : mutations) {
    SCOPED_TRACE(name);
    OperationIr changed = base;
    mutate(changed);
    EXPECT_NE(changed, base);
    EXPECT_NE(CanonicalBytes(changed), base_bytes);
  }
}

TEST(CanonicalBytes, RangeFieldsAreAllCovered) {
  const auto bytes = [](Slice range) {
    return CanonicalBytes(ir::SliceOp(T(1, {8}), {range}, Out(2, {8})));
  };
  const Slice open{0, std::nullopt, 1};
  EXPECT_NE(bytes(open), bytes(Slice{0, 0, 1}));  // has_end matters
  EXPECT_NE(bytes(open), bytes(Slice{1, std::nullopt, 1}));
  EXPECT_NE(bytes(open), bytes(Slice{0, std::nullopt, 2}));
  EXPECT_NE(bytes(Slice{0, 3, 1}), bytes(Slice{0, 4, 1}));
}

TEST(CanonicalBytes, CountsKeepListBoundaries) {
  // Moving a dim from one tensor to the next keeps the concatenated dims but not the bytes.
  const OperationIr a = ir::Binary(OpKind::kAdd, T(1, {2, 3}), T(2, {4}), Out(3, {}));
  const OperationIr b = ir::Binary(OpKind::kAdd, T(1, {2}), T(2, {3, 4}), Out(3, {}));
  EXPECT_NE(CanonicalBytes(a), CanonicalBytes(b));
}

TEST(CanonicalBytes, FloatsAreEncodedBitwise) {
  const auto add = [](double v) {
    return ir::Scalar(OpKind::kAddScalar, T(1, {4}), ScalarIr::Float(v), Out(2, {4}));
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // A NaN op equals itself, bytes included (burn's f64 PartialEq would say no).
  EXPECT_EQ(add(nan), add(nan));
  EXPECT_EQ(CanonicalBytes(add(nan)), CanonicalBytes(add(nan)));
  // -0.0 == 0.0 as doubles, but not as ops.
  EXPECT_NE(add(-0.0), add(0.0));
  EXPECT_NE(CanonicalBytes(add(-0.0)), CanonicalBytes(add(0.0)));
}

TEST(CanonicalBytes, EveryOpKindEncodesItsKindNumber) {
  for (OpKind kind : ir_test::AllOpKinds()) {
    SCOPED_TRACE(OpKindName(kind));
    const std::vector<uint8_t> bytes = CanonicalBytes(ir_test::SampleOp(kind));
    ASSERT_GE(bytes.size(), 2u);
    EXPECT_EQ(bytes[0] | (bytes[1] << 8), static_cast<int>(kind));
  }
}

}  // namespace
}  // namespace ember

// Elementwise fused traces on the CPU backend: every FuseOpKind in every domain, rounding
// between ops, casts, scalars and literals, each compared byte for byte with the same ops run
// one by one.
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "tests/runtime/fused_test_util.h"

namespace ember::testing {
namespace {

const Shape kShape = {37, 61};  // 2257 positions: two full tiles and a partial one
const int64_t kCount = 37 * 61;

// Reads in0..inN-1 into locals, applies one op to them (then to the scalars), writes out0.
FuseTrace OneOpTrace(FuseOpKind kind, const std::vector<DType>& inputs, DType out,
                     const std::vector<DType>& scalars = {}) {
  FuseBlock block;
  std::vector<FuseArg> args;
  for (uint32_t k = 0; k < inputs.size(); ++k) {
    block.reads.push_back(Assign(Local(k, inputs[k]), InArg(k, inputs[k])));
    args.push_back(Local(k, inputs[k]));
  }
  for (uint32_t k = 0; k < scalars.size(); ++k) args.push_back(ScalarArg(k, scalars[k]));
  args.resize(3);
  const FuseArg result = Local(static_cast<uint32_t>(inputs.size()), out);
  block.ops.push_back(Op(kind, result, args[0], args[1], args[2]));
  block.writes.push_back(Assign(OutArg(0, out), result));
  FuseTrace trace;
  trace.blocks.push_back(block);
  trace.resources = Resources(inputs.size(), 1, scalars);
  return trace;
}

struct OpPair {
  FuseOpKind fused;
  OpKind unfused;
};

// Every fused op of `form` but Assign, paired with the op of its name: the op whose fused op it
// is (engine/ir/op_list.def; the OpTable tests check the pairing).
std::vector<OpPair> PairsOf(FuseOpForm form) {
  std::vector<OpPair> pairs;
  for (int f = 0; f < kNumFuseOpKinds; ++f) {
    const auto fused = static_cast<FuseOpKind>(f);
    if (fused == FuseOpKind::kAssign || FormOf(fused) != form) continue;
    for (int k = 0; k < kNumOpKinds; ++k) {
      const auto kind = static_cast<OpKind>(k);
      if (OpKindName(kind) == FuseOpKindName(fused)) pairs.push_back({fused, kind});
    }
  }
  EXPECT_FALSE(pairs.empty());
  return pairs;
}

// Runs every op kind over a, b (and the mask) fused and unfused and compares.
void ExpectEveryOpMatches(Harness& h, DType dtype, TensorIr a, TensorIr b, TensorIr mask,
                          ScalarIr lo, ScalarIr hi) {
  const std::string name(DTypeName(dtype));
  auto compare = [&](const FuseTrace& trace, std::vector<TensorIr> in, const OperationIr& op,
                     std::vector<ScalarIr> scalars, const std::string& what) {
    const TensorIr out = h.Exec(op);
    const auto fused = RunFused(h, trace, in, {OutIr(kShape, out.dtype)}, {kShape}, scalars);
    ExpectSameBytes(h.backend(), fused[0], h.Handle(out), (what + " " + name).c_str());
  };
  for (const OpPair& p : PairsOf(FuseOpForm::kUnary)) {
    compare(OneOpTrace(p.fused, {dtype}, dtype), {a},
            ir::Unary(p.unfused, a, h.Output(kShape, dtype)), {},
            std::string(FuseOpKindName(p.fused)));
  }
  for (const OpPair& p : PairsOf(FuseOpForm::kBinary)) {
    compare(OneOpTrace(p.fused, {dtype, dtype}, dtype), {a, b},
            ir::Binary(p.unfused, a, b, h.Output(kShape, dtype)), {},
            std::string(FuseOpKindName(p.fused)));
  }
  for (const OpPair& p : PairsOf(FuseOpForm::kComparison)) {
    compare(OneOpTrace(p.fused, {dtype, dtype}, DType::kBool), {a, b},
            ir::Binary(p.unfused, a, b, h.Output(kShape, DType::kBool)), {},
            std::string(FuseOpKindName(p.fused)));
  }
  compare(OneOpTrace(FuseOpKind::kClamp, {dtype}, dtype, {dtype, dtype}), {a},
          ir::Clamp(a, lo, hi, h.Output(kShape, dtype)), {lo, hi}, "Clamp");
  // ConditionalAssign(cond, lhs, rhs) = MaskWhere(tensor = rhs, mask = cond, value = lhs).
  compare(OneOpTrace(FuseOpKind::kConditionalAssign, {DType::kBool, dtype, dtype}, dtype),
          {mask, a, b}, ir::MaskWhere(b, mask, a, h.Output(kShape, dtype)), {},
          "ConditionalAssign");
}

TEST(FusedElementwise, EveryOpMatchesUnfusedInTheFloatDomain) {
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
    Harness h(2);
    std::vector<double> x = AwkwardData(kCount, -4, 4, 1);
    std::vector<double> y = AwkwardData(kCount, -4, 4, 2);
    for (int64_t i = 0; i < kCount; i += 3) y[i] = x[i];  // equal pairs for the comparisons
    const TensorIr a = h.Input(kShape, dtype, x);
    const TensorIr b = h.Input(kShape, dtype, y);
    const TensorIr mask = h.Input(kShape, DType::kBool, TestData(kCount, -1, 1, 3));
    ExpectEveryOpMatches(h, dtype, a, b, mask, ScalarIr::Float(-1.5), ScalarIr::Float(2.25));
  }
}

std::vector<int64_t> IntData(DType dtype, uint64_t seed) {
  std::vector<int64_t> values(kCount);
  const std::vector<double> random = TestData(kCount, -40, 40, seed);
  for (int64_t i = 0; i < kCount; ++i) values[i] = static_cast<int64_t>(random[i]);
  const int64_t lo = dtype == DType::kI32 ? std::numeric_limits<int32_t>::min() : INT64_MIN;
  const int64_t hi = dtype == DType::kI32 ? std::numeric_limits<int32_t>::max() : INT64_MAX;
  const int64_t specials[] = {0, -1, 1, lo, hi, lo + 1, hi - 1, 7, -7};
  for (size_t k = 0; k < std::size(specials); ++k) values[(k * 11 + seed) % kCount] = specials[k];
  return values;
}

TEST(FusedElementwise, EveryOpMatchesUnfusedInTheIntDomain) {
  for (DType dtype : {DType::kI32, DType::kI64, DType::kBool}) {
    Harness h(2);
    std::vector<int64_t> x = IntData(dtype, 1);
    std::vector<int64_t> y = IntData(dtype, 2);
    for (int64_t i = 0; i < kCount; i += 3) y[i] = x[i];
    const TensorIr a = h.InputInts(kShape, dtype, x);
    const TensorIr b = h.InputInts(kShape, dtype, y);
    const TensorIr mask = h.InputInts(kShape, DType::kBool, IntData(DType::kBool, 3));
    ExpectEveryOpMatches(h, dtype, a, b, mask, ScalarIr::Int(-5), ScalarIr::Int(9));
  }
}

// Ops whose operands live in different domains convert them as an unfused kernel's load does.
TEST(FusedElementwise, MixedDtypesComputeInTheDomainOfTheirOp) {
  Harness h(1);
  const TensorIr f = h.Input(kShape, DType::kF32, AwkwardData(kCount, -1e10, 1e10, 4));
  const TensorIr i = h.InputInts(kShape, DType::kI32, IntData(DType::kI32, 5));
  const TensorIr hf = h.Input(kShape, DType::kF16, AwkwardData(kCount, -9, 9, 6));
  auto check = [&](FuseOpKind fk, OpKind k, TensorIr lhs, TensorIr rhs, DType out) {
    const TensorIr unfused = h.Exec(ir::Binary(k, lhs, rhs, h.Output(kShape, out)));
    const auto fused = RunFused(h, OneOpTrace(fk, {lhs.dtype, rhs.dtype}, out), {lhs, rhs},
                                {OutIr(kShape, out)}, {kShape});
    ExpectSameBytes(h.backend(), fused[0], h.Handle(unfused), FuseOpKindName(fk).data());
  };
  check(FuseOpKind::kAdd, OpKind::kAdd, i, f, DType::kI32);  // f32 saturates into i64
  check(FuseOpKind::kMul, OpKind::kMul, f, i, DType::kF32);  // i32 widens to f32
  check(FuseOpKind::kSub, OpKind::kSub, hf, i, DType::kF16);
  check(FuseOpKind::kLower, OpKind::kLower, i, hf, DType::kBool);
  check(FuseOpKind::kDiv, OpKind::kDiv, f, hf, DType::kBF16);  // computed in f32, stored as bf16
}

// A chain in f16 or bf16 rounds after every op, as the unfused ops store and reload.
TEST(FusedElementwise, HalfPrecisionChainsRoundAfterEveryOp) {
  for (DType dtype : {DType::kF16, DType::kBF16}) {
    Harness h(2);
    const TensorIr x = h.Input(kShape, dtype, AwkwardData(kCount, -3, 3, 7, false));
    const TensorIr w = h.Input(kShape, dtype, AwkwardData(kCount, -3, 3, 8, false));
    const TensorIr b = h.Input(kShape, dtype, AwkwardData(kCount, -1, 1, 9, false));
    const TensorIr t1 = h.Exec(ir::Binary(OpKind::kMul, x, w, h.Output(kShape, dtype)));
    const TensorIr t2 = h.Exec(ir::Binary(OpKind::kAdd, t1, b, h.Output(kShape, dtype)));
    const TensorIr t3 = h.Exec(ir::Unary(OpKind::kExp, t2, h.Output(kShape, dtype)));
    const TensorIr t4 = h.Exec(ir::Binary(OpKind::kDiv, t3, t2, h.Output(kShape, dtype)));

    // locals: 0 x, 1 w, 2 b, 3 x*w, 4 +b, 5 exp, 6 ratio; `chain` is their dtype.
    auto trace = [&](DType chain) {
      FuseTrace t;
      FuseBlock block;
      for (uint32_t k = 0; k < 3; ++k)
        block.reads.push_back(Assign(Local(k, dtype), InArg(k, dtype)));
      for (uint32_t k = 0; k < 3; ++k)
        block.reads.push_back(Assign(Local(10 + k, chain), Local(k, dtype)));
      block.ops = {Op(FuseOpKind::kMul, Local(3, chain), Local(10, chain), Local(11, chain)),
                   Op(FuseOpKind::kAdd, Local(4, chain), Local(3, chain), Local(12, chain)),
                   Op(FuseOpKind::kExp, Local(5, chain), Local(4, chain)),
                   Op(FuseOpKind::kDiv, Local(6, chain), Local(5, chain), Local(4, chain))};
      block.writes = {Assign(OutArg(0, dtype), Local(6, chain))};
      t.blocks.push_back(block);
      t.resources = Resources(3, 1);
      return t;
    };
    const auto fused = RunFused(h, trace(dtype), {x, w, b}, {OutIr(kShape, dtype)}, {kShape});
    ExpectSameBytes(h.backend(), fused[0], h.Handle(t4), DTypeName(dtype).data());
    // The same chain kept in f32 rounds only once: the test above would see the difference.
    const auto wide = RunFused(h, trace(DType::kF32), {x, w, b}, {OutIr(kShape, dtype)}, {kShape});
    EXPECT_NE(ReadBytes(h.backend(), wide[0]), ReadBytes(h.backend(), fused[0]));
  }
}

// An i32 product wraps before it is divided, and a bool sum is 1 before it is doubled, as the
// unfused ops store and reload them.
TEST(FusedElementwise, IntChainsWrapAfterEveryOp) {
  Harness h(2);
  const TensorIr x = h.InputInts(kShape, DType::kI32, IntData(DType::kI32, 9));
  const TensorIr y = h.InputInts(kShape, DType::kI32, IntData(DType::kI32, 10));
  const TensorIr m = h.InputInts(kShape, DType::kBool, IntData(DType::kBool, 11));
  const TensorIr p = h.Exec(ir::Binary(OpKind::kMul, x, y, h.Output(kShape, DType::kI32)));
  const TensorIr q = h.Exec(ir::Binary(OpKind::kDiv, p, x, h.Output(kShape, DType::kI32)));
  const TensorIr s = h.Exec(ir::Binary(OpKind::kAdd, m, m, h.Output(kShape, DType::kBool)));
  const TensorIr d = h.Exec(ir::Binary(OpKind::kAdd, s, s, h.Output(kShape, DType::kI64)));
  const TensorIr out = h.Exec(ir::Binary(OpKind::kMul, q, d, h.Output(kShape, DType::kI64)));
  const DType i32 = DType::kI32, b = DType::kBool, i64 = DType::kI64;
  FuseTrace trace;
  trace.blocks.push_back(
      {.reads = {Assign(Local(0, i32), InArg(0, i32)), Assign(Local(1, i32), InArg(1, i32)),
                 Assign(Local(2, b), InArg(2, b))},
       .ops = {Op(FuseOpKind::kMul, Local(3, i32), Local(0, i32), Local(1, i32)),
               Op(FuseOpKind::kDiv, Local(4, i32), Local(3, i32), Local(0, i32)),
               Op(FuseOpKind::kAdd, Local(5, b), Local(2, b), Local(2, b)),
               Op(FuseOpKind::kAdd, Local(6, i64), Local(5, b), Local(5, b)),
               Op(FuseOpKind::kMul, Local(7, i64), Local(4, i32), Local(6, i64))},
       .writes = {Assign(OutArg(0, i64), Local(7, i64))}});
  trace.resources = Resources(3, 1);
  const auto fused = RunFused(h, trace, {x, y, m}, {OutIr(kShape, i64)}, {kShape});
  ExpectSameBytes(h.backend(), fused[0], h.Handle(out));
}

}  // namespace
}  // namespace ember::testing

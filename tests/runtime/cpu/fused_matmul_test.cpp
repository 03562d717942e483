// Fused matmul traces on the CPU backend: the matmul feeds block 0, whose bias and activation
// epilogue runs fused; compared byte for byte with Matmul and the epilogue ops run unfused.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/runtime/cpu/fused_outputs.h"
#include "engine/runtime/cpu/fused_plan.h"
#include "tests/runtime/fused_test_util.h"

namespace ember::testing {
namespace {

// out0 = relu(in0 @ in1 + in2) with relu(a) = (a <= 0) ? 0 : a; out1 = clamp(in0 @ in1, s0, s1).
FuseTrace BiasReluTrace(DType dtype) {
  FuseTrace t;
  t.blocks.push_back(
      {.reads = {Assign(Local(1, dtype), InArg(2, dtype))},
       .ops = {Op(FuseOpKind::kAdd, Local(2, dtype), Local(0, dtype), Local(1, dtype)),
               Op(FuseOpKind::kLowerEqual, Local(3, DType::kBool), Local(2, dtype),
                  Literal(0, dtype)),
               Op(FuseOpKind::kConditionalAssign, Local(4, dtype), Local(3, DType::kBool),
                  Literal(0, dtype), Local(2, dtype)),
               Op(FuseOpKind::kClamp, Local(5, dtype), Local(0, dtype), ScalarArg(0, dtype),
                  ScalarArg(1, dtype))},
       .writes = {Assign(OutArg(0, dtype), Local(4, dtype)),
                  Assign(OutArg(1, dtype), Local(5, dtype))}});
  t.matmul = MatmulStage{.lhs = 0, .rhs = 1, .output = Local(0, dtype)};
  t.resources = Resources(3, 2, {dtype, dtype});
  return t;
}

TEST(FusedMatmul, BiasReluAndClampEpilogues) {
  struct Case {
    Shape lhs, rhs, out;
  };
  const Case cases[] = {{{2, 33, 70}, {70, 45}, {2, 33, 45}},
                        {{33, 70}, {3, 70, 45}, {3, 33, 45}},
                        {{1, 129, 64}, {1, 64, 300}, {1, 129, 300}},
                        {{5, 0}, {0, 7}, {5, 7}}};
  for (const Case& c : cases) {
    for (DType dtype : {DType::kF32, DType::kF16, DType::kI32}) {
      for (int threads : {1, 2}) {
        Harness h(threads);
        const bool is_float = IsFloat(dtype);
        const double range = is_float ? 2 : 50;
        const Shape bias_shape = {1, c.out.back()};
        const TensorIr a =
            h.Input(c.lhs, dtype, AwkwardData(NumElements(c.lhs), -range, range, 1, false));
        const TensorIr b =
            h.Input(c.rhs, dtype, AwkwardData(NumElements(c.rhs), -range, range, 2, false));
        const TensorIr bias =
            h.Input(bias_shape, dtype, AwkwardData(c.out.back(), -range, range, 3, false));
        const ScalarIr lo = is_float ? ScalarIr::Float(-1.5) : ScalarIr::Int(-300);
        const ScalarIr hi = is_float ? ScalarIr::Float(2.5) : ScalarIr::Int(2000);

        const TensorIr mm = h.Exec(ir::Binary(OpKind::kMatmul, a, b, h.Output(c.out, dtype)));
        const TensorIr sum = h.Exec(ir::Binary(OpKind::kAdd, mm, bias, h.Output(c.out, dtype)));
        const TensorIr le = h.Exec(ir::Scalar(OpKind::kLowerEqualElem, sum, ScalarIr::Int(0),
                                              h.Output(c.out, DType::kBool)));
        const TensorIr relu =
            h.Exec(ir::MaskFill(sum, le, ScalarIr::Int(0), h.Output(c.out, dtype)));
        const TensorIr clamped = h.Exec(ir::Clamp(mm, lo, hi, h.Output(c.out, dtype)));

        const FuseTrace trace = BiasReluTrace(dtype);
        const auto fused = RunFused(h, trace, {a, b, bias},
                                    {OutIr(c.out, dtype), OutIr(c.out, dtype)}, {c.out}, {lo, hi});
        const std::string what = std::string(DTypeName(dtype)) + " " + std::to_string(c.out[1]);
        ExpectSameBytes(h.backend(), fused[0], h.Handle(relu), ("relu " + what).c_str());
        ExpectSameBytes(h.backend(), fused[1], h.Handle(clamped), ("clamp " + what).c_str());
      }
    }
  }
}

// A transposed (strided) lhs is read as Matmul reads it.
TEST(FusedMatmul, StridedOperand) {
  Harness h(2);
  const TensorIr at = h.Input({70, 33}, DType::kF32, AwkwardData(70 * 33, -2, 2, 4, false));
  const TensorIr a = h.Exec(ir::SwapDims(at, 0, 1, h.Output({33, 70})));
  const TensorIr b = h.Input({70, 45}, DType::kF32, AwkwardData(70 * 45, -2, 2, 5, false));
  const TensorIr bias = h.Input({1, 45}, DType::kF32, AwkwardData(45, -2, 2, 6, false));
  const TensorIr mm = h.Exec(ir::Binary(OpKind::kMatmul, a, b, h.Output({33, 45})));
  const TensorIr sum = h.Exec(ir::Binary(OpKind::kAdd, mm, bias, h.Output({33, 45})));
  FuseTrace t;
  t.blocks.push_back({.reads = {Assign(Local(1), InArg(2))},
                      .ops = {Op(FuseOpKind::kAdd, Local(2), Local(0), Local(1))},
                      .writes = {Assign(OutArg(0), Local(2))}});
  t.matmul = MatmulStage{.lhs = 0, .rhs = 1, .output = Local(0)};
  t.resources = Resources(3, 1);
  const auto fused = RunFused(h, t, {a, b, bias}, {OutIr({33, 45})}, {{33, 45}});
  ExpectSameBytes(h.backend(), fused[0], h.Handle(sum));
}

// out0 takes the buffer of the matmul's result; out1, written after it, is the raw product,
// which must still be read from before out0 overwrote it.
TEST(FusedMatmul, EpilogueWritesIntoTheMatmulResult) {
  Harness h(2);
  const Shape out = {130, 90};
  const TensorIr a = h.Input({130, 40}, DType::kF32, AwkwardData(130 * 40, -2, 2, 7, false));
  const TensorIr b = h.Input({40, 90}, DType::kF32, AwkwardData(40 * 90, -2, 2, 8, false));
  const TensorIr bias = h.Input({1, 90}, DType::kF32, AwkwardData(90, -2, 2, 9, false));
  const TensorIr mm = h.Exec(ir::Binary(OpKind::kMatmul, a, b, h.Output(out)));
  const TensorIr sum = h.Exec(ir::Binary(OpKind::kAdd, mm, bias, h.Output(out)));
  FuseTrace t;
  t.blocks.push_back({.reads = {Assign(Local(1), InArg(2))},
                      .ops = {Op(FuseOpKind::kAdd, Local(2), Local(0), Local(1))},
                      .writes = {Assign(OutArg(0), Local(2)), Assign(OutArg(1), Local(0))}});
  t.matmul = MatmulStage{.lhs = 0, .rhs = 1, .output = Local(0)};
  t.resources = Resources(3, 2);
  const FusedLaunch launch =
      Launch(t, {h.Handle(a), h.Handle(b), h.Handle(bias)}, {OutIr(out), OutIr(out)}, {out});
  EXPECT_NO_THROW(cpu::PlanFused(launch));
  EXPECT_EQ(cpu::ChooseMatmulOutput(launch, cpu::ChooseInPlace(launch)), 0);
  const std::vector<TensorHandle> fused = h.backend().ExecuteFused(launch);
  ExpectSameBytes(h.backend(), fused[0], h.Handle(sum), "bias");
  ExpectSameBytes(h.backend(), fused[1], h.Handle(mm), "product");
}

}  // namespace
}  // namespace ember::testing

// The CPU Backend as the engine drives it: host transfers, handle statuses (ReadWrite removal,
// Drop, Init), in-place reuse, thread-count independence, and one hand-computed example for
// every op kind.
#include "engine/runtime/cpu/cpu_backend.h"

#include <cmath>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "engine/runtime/cpu/cpu_buffer.h"
#include "tests/runtime/cpu/cpu_test_util.h"

namespace ember {
namespace {

using testing::ExpectWithinOneUlp;
using testing::Harness;
using testing::TestData;
using testing::WithStatus;
using V = std::vector<double>;

constexpr DType kAllTypes[] = {DType::kF32, DType::kF16, DType::kBF16,
                               DType::kI32, DType::kI64, DType::kBool};

TEST(CpuBackend, NameIsCpuAndSynchronizeIsANoOp) {
  auto backend = cpu::MakeCpuBackend(2);
  EXPECT_EQ(backend->name(), "cpu");
  backend->Synchronize();
}

TEST(CpuBackend, FromHostToHostRoundTripsEveryDtype) {
  auto backend = cpu::MakeCpuBackend(2);
  for (DType dtype : kAllTypes) {
    const V values = dtype == DType::kBool ? V{1, 0, 1, 1, 0, 0} : V{1, -2, 3, 0, 5, 6};
    const std::vector<std::byte> bytes = testing::Encode(values, dtype);
    const TensorHandle handle = backend->FromHost(bytes, {2, 3}, dtype);
    EXPECT_TRUE(handle.IsContiguous());
    EXPECT_EQ(handle.buffer->backend(), "cpu");
    EXPECT_EQ(reinterpret_cast<uintptr_t>(cpu::ElementData(handle)) % 64, 0u);
    EXPECT_EQ(testing::ReadBytes(*backend, handle), bytes) << DTypeName(dtype);
  }
}

TEST(CpuBackend, ToHostCopiesStridedHandlesInRowMajorOrder) {
  auto backend = cpu::MakeCpuBackend(2);
  TensorHandle h = testing::MakeHandle(*backend, {2, 3}, DType::kI32, {0, 1, 2, 3, 4, 5});
  // Transposed, reversed along the last dim, and a broadcast dim.
  TensorHandle view = h;
  view.shape = {3, 2, 2};
  view.strides = {-1, 3, 0};
  view.offset = 2;
  EXPECT_EQ(testing::ReadValues(*backend, view), (V{2, 2, 5, 5, 1, 1, 4, 4, 0, 0, 3, 3}));
}

TEST(CpuBackend, ReadWriteInputIsRemovedAndReadOnlyStays) {
  Harness h;
  const TensorIr a = h.Input({2}, DType::kF32, {1, 2});
  const TensorIr b = h.Input({2}, DType::kF32, {3, 4});
  const TensorIr out = h.Output({2});
  h.Exec(ir::Binary(OpKind::kAdd, a, WithStatus(b, TensorStatus::kReadWrite), out));
  EXPECT_TRUE(h.handles().Has(a.id));
  EXPECT_FALSE(h.handles().Has(b.id));
  EXPECT_EQ(h.Values(out), (V{4, 6}));
}

TEST(CpuBackend, TensorReadTwiceByOneOpIsRemovedAtItsLastUse) {
  Harness h;
  const TensorIr x = h.Input({3}, DType::kI32, {1, -2, 3});
  const TensorIr rw = WithStatus(x, TensorStatus::kReadWrite);
  const TensorIr sq = h.Exec(ir::Binary(OpKind::kMul, x, rw, h.Output({3}, DType::kI32)));
  EXPECT_FALSE(h.handles().Has(x.id));
  EXPECT_EQ(h.Values(sq), (V{1, 4, 9}));
  const TensorIr y = h.Input({2}, DType::kF32, {2, 3});
  const TensorIr y_rw = WithStatus(y, TensorStatus::kReadWrite);
  const TensorIr p = h.Exec(ir::Binary(OpKind::kPowf, y_rw, y_rw, h.Output({2})));
  EXPECT_FALSE(h.handles().Has(y.id));
  EXPECT_EQ(h.Values(p), (V{4, 27}));
}

TEST(CpuBackend, DropFreesOnlyALastUse) {
  Harness h;
  const TensorIr a = h.Input({2}, DType::kF32, {1, 2});
  h.backend().Execute(ir::Drop(WithStatus(a, TensorStatus::kReadWrite)), h.handles());
  EXPECT_FALSE(h.handles().Has(a.id));
  const TensorIr b = h.Input({2}, DType::kF32, {1, 2});
  h.backend().Execute(ir::Drop(b), h.handles());  // ReadOnly: burn's free keeps it
  EXPECT_TRUE(h.handles().Has(b.id));
}

TEST(CpuBackend, DropReleasesTheBufferWhenNoViewRemains) {
  Harness h;
  const TensorIr a = h.Input({4}, DType::kF32, {1, 2, 3, 4});
  std::weak_ptr<Buffer> weak = h.Handle(a).buffer;
  const TensorIr v = h.Exec(ir::Unary(OpKind::kReshape, a, h.Output({2, 2})));
  h.backend().Execute(ir::Drop(WithStatus(a, TensorStatus::kReadWrite)), h.handles());
  EXPECT_FALSE(weak.expired());  // the view still holds it
  h.backend().Execute(ir::Drop(WithStatus(v, TensorStatus::kReadWrite)), h.handles());
  EXPECT_TRUE(weak.expired());
}

TEST(CpuBackend, InitIsANoOp) {
  Harness h;
  const TensorIr a = h.Input({2}, DType::kF32, {1, 2});
  const size_t before = h.handles().size();
  h.backend().Execute(ir::Init(WithStatus(a, TensorStatus::kNotInit)), h.handles());
  EXPECT_EQ(h.handles().size(), before);
  EXPECT_EQ(h.Values(a), (V{1, 2}));
}

TEST(CpuBackend, LastUseInputBufferIsReusedInPlace) {
  Harness h;
  const TensorIr a = h.Input({3}, DType::kF32, {0, 1, 2});
  const Buffer* buffer = h.Handle(a).buffer.get();
  const TensorIr out =
      h.Exec(ir::Unary(OpKind::kExp, WithStatus(a, TensorStatus::kReadWrite), h.Output({3})));
  EXPECT_EQ(h.Handle(out).buffer.get(), buffer);
  EXPECT_EQ(h.Values(out), (V{1, std::exp(1.0f), std::exp(2.0f)}));
  // The second operand may be the reused one, and half types reuse too.
  const TensorIr x = h.Input({2, 2}, DType::kF16, {1, 2, 3, 4});
  const TensorIr y = h.Input({2, 2}, DType::kF16, {1, 1, 1, 1});
  const Buffer* y_buffer = h.Handle(y).buffer.get();
  const TensorIr sum = h.Exec(ir::Binary(OpKind::kAdd, x, WithStatus(y, TensorStatus::kReadWrite),
                                         h.Output({2, 2}, DType::kF16)));
  EXPECT_EQ(h.Handle(sum).buffer.get(), y_buffer);
  EXPECT_EQ(h.Values(sum), (V{2, 3, 4, 5}));
  EXPECT_EQ(h.Values(x), (V{1, 2, 3, 4}));
}

TEST(CpuBackend, NoReuseWhenTheBufferIsSharedReadOnlyOrMismatched) {
  Harness h;
  // ReadOnly input: untouched, new buffer.
  const TensorIr a = h.Input({3}, DType::kF32, {1, 2, 3});
  const TensorIr neg = h.Exec(ir::Unary(OpKind::kNeg, a, h.Output({3})));
  EXPECT_NE(h.Handle(neg).buffer, h.Handle(a).buffer);
  EXPECT_EQ(h.Values(a), (V{1, 2, 3}));
  // A view shares the buffer: a last use of `a` must not overwrite what the view shows.
  const TensorIr view = h.Exec(ir::Unary(OpKind::kReshape, a, h.Output({3, 1})));
  const TensorIr twice =
      h.Exec(ir::Scalar(OpKind::kMulScalar, WithStatus(a, TensorStatus::kReadWrite),
                        ScalarIr::Float(2), h.Output({3})));
  EXPECT_EQ(h.Values(twice), (V{2, 4, 6}));
  EXPECT_EQ(h.Values(view), (V{1, 2, 3}));
  EXPECT_NE(h.Handle(twice).buffer, h.Handle(view).buffer);
  // Broadcast input (shape differs from the output) and dtype change: no reuse.
  const TensorIr row = h.Input({2}, DType::kF32, {1, 2});
  const Buffer* row_buffer = h.Handle(row).buffer.get();
  const TensorIr m = h.Input({2, 2}, DType::kF32, {1, 1, 1, 1});
  const TensorIr s = h.Exec(
      ir::Binary(OpKind::kAdd, WithStatus(row, TensorStatus::kReadWrite), m, h.Output({2, 2})));
  EXPECT_NE(h.Handle(s).buffer.get(), row_buffer);
  EXPECT_EQ(h.Values(s), (V{2, 3, 2, 3}));
  const TensorIr c = h.Input({2}, DType::kF32, {1, 2});
  const Buffer* c_buffer = h.Handle(c).buffer.get();
  const TensorIr cmp =
      h.Exec(ir::Scalar(OpKind::kGreaterElem, WithStatus(c, TensorStatus::kReadWrite),
                        ScalarIr::Float(1.5), h.Output({2}, DType::kBool)));
  EXPECT_NE(h.Handle(cmp).buffer.get(), c_buffer);
  EXPECT_EQ(h.Values(cmp), (V{0, 1}));
}

// A mixed program on tensors big enough to split across threads must give bit-identical
// results with 1 and 4 threads.
TEST(CpuBackend, ResultsDoNotDependOnTheThreadCount) {
  auto run = [](int threads) {
    Harness h(threads);
    const V data = TestData(64 * 300 * 5, -3, 3, 61);
    const TensorIr x = h.Input({64, 300, 5}, DType::kF32, data);
    const TensorIr row = h.Input({5}, DType::kF32, TestData(5, -1, 1, 62));
    const TensorIr xt = h.Exec(ir::Permute(x, {2, 0, 1}, h.Output({5, 64, 300})));
    std::vector<V> results;
    const TensorIr y = h.Exec(ir::Binary(OpKind::kMul, x, row, h.Output({64, 300, 5})));
    results.push_back(h.Values(y));
    results.push_back(h.Run(ir::Unary(OpKind::kTanh, xt, h.Output({5, 64, 300}, DType::kF16))));
    for (int64_t axis = 0; axis < 3; ++axis) {
      Shape s = {5, 64, 300};
      s[axis] = 1;
      results.push_back(h.Run(ir::ReduceDim(OpKind::kSumDim, xt, axis, h.Output(s))));
      results.push_back(h.Run(ir::ReduceDim(OpKind::kArgMax, xt, axis, h.Output(s, DType::kI64))));
    }
    results.push_back(h.Run(ir::Reduce(OpKind::kSum, y, h.Output({1}))));
    results.push_back(h.Run(ir::Reduce(OpKind::kMean, xt, h.Output({1}))));
    return results;
  };
  EXPECT_EQ(run(1), run(4));
}

// One hand-computed example per op kind. The switch has no default, so adding an op kind
// fails to build until it has an example here.
struct Example {
  OperationIr op;
  V expected;
};

Example ExampleFor(OpKind kind, Harness& h) {
  const TensorIr a = h.Input({2, 2}, DType::kF32, {1, 4, 9, 16});
  const TensorIr b = h.Input({2}, DType::kF32, {1, 2});  // broadcasts as a row
  const TensorIr z = h.Input({2}, DType::kF32, {0, 1});
  const TensorIr m = h.Input({2, 2}, DType::kBool, {1, 0, 0, 1});
  const TensorIr idx = h.Input({2, 2}, DType::kI64, {1, 0, 0, 0});
  const TensorIr sel = h.Input({1}, DType::kI64, {1});
  const ScalarIr two = ScalarIr::Float(2);
  auto o = [&](Shape s, DType d = DType::kF32) { return h.Output(s, d); };
  auto bl = [&](Shape s) { return h.Output(s, DType::kBool); };
  const TensorIr ia = h.Input({2, 2}, DType::kI32, {12, -1, 5, -8});
  const TensorIr ib = h.Input({2}, DType::kI32, {10, 3});
  const TensorIr amounts = h.Input({2}, DType::kI32, {1, 2});
  const ScalarIr six = ScalarIr::Int(6);
  auto i32 = [&](Shape s) { return h.Output(s, DType::kI32); };
  switch (kind) {
    case OpKind::kInit: return {ir::Init(WithStatus(a, TensorStatus::kNotInit)), {1, 4, 9, 16}};
    case OpKind::kDrop: return {ir::Drop(WithStatus(a, TensorStatus::kReadWrite)), {}};
    case OpKind::kRandom:
      return {ir::Random(o({3}), {Distribution::Kind::kUniform, 5, 5}), {5, 5, 5}};
    case OpKind::kZeros: return {ir::Creation(kind, o({2})), {0, 0}};
    case OpKind::kOnes: return {ir::Creation(kind, o({2}, DType::kI32)), {1, 1}};
    case OpKind::kFull: return {ir::Full(o({2}, DType::kF16), ScalarIr::Float(1.5)), {1.5, 1.5}};
    case OpKind::kAdd: return {ir::Binary(kind, a, b, o({2, 2})), {2, 6, 10, 18}};
    case OpKind::kAddScalar: return {ir::Scalar(kind, a, two, o({2, 2})), {3, 6, 11, 18}};
    case OpKind::kSub: return {ir::Binary(kind, a, b, o({2, 2})), {0, 2, 8, 14}};
    case OpKind::kSubScalar: return {ir::Scalar(kind, a, two, o({2, 2})), {-1, 2, 7, 14}};
    case OpKind::kMul: return {ir::Binary(kind, a, b, o({2, 2})), {1, 8, 9, 32}};
    case OpKind::kMulScalar: return {ir::Scalar(kind, a, two, o({2, 2})), {2, 8, 18, 32}};
    case OpKind::kDiv: return {ir::Binary(kind, a, b, o({2, 2})), {1, 2, 9, 8}};
    case OpKind::kDivScalar: return {ir::Scalar(kind, a, two, o({2, 2})), {0.5, 2, 4.5, 8}};
    case OpKind::kRem: return {ir::Binary(kind, a, b, o({2, 2})), {0, 0, 0, 0}};
    case OpKind::kRemScalar:
      return {ir::Scalar(kind, a, ScalarIr::Float(-3), o({2, 2})), {-2, -2, 0, -2}};
    case OpKind::kPowf: return {ir::Binary(kind, a, b, o({2, 2})), {1, 16, 9, 256}};
    case OpKind::kPowfScalar:
      return {ir::Scalar(kind, a, ScalarIr::Float(0.5), o({2, 2})), {1, 2, 3, 4}};
    case OpKind::kAbs: return {ir::Unary(kind, h.Input({2}, DType::kF32, {-1, 2}), o({2})), {1, 2}};
    case OpKind::kNeg: return {ir::Unary(kind, b, o({2})), {-1, -2}};
    case OpKind::kExp: return {ir::Unary(kind, z, o({2})), {1, std::exp(1.0f)}};
    case OpKind::kLog: return {ir::Unary(kind, b, o({2})), {0, std::log(2.0f)}};
    case OpKind::kLog1p: return {ir::Unary(kind, z, o({2})), {0, std::log1p(1.0f)}};
    case OpKind::kSqrt: return {ir::Unary(kind, a, o({2, 2})), {1, 2, 3, 4}};
    case OpKind::kRecip: return {ir::Unary(kind, a, o({2, 2})), {1, 0.25, 1.0f / 9, 0.0625}};
    case OpKind::kSin: return {ir::Unary(kind, z, o({2})), {0, std::sin(1.0f)}};
    case OpKind::kCos: return {ir::Unary(kind, z, o({2})), {1, std::cos(1.0f)}};
    case OpKind::kTanh: return {ir::Unary(kind, z, o({2})), {0, std::tanh(1.0f)}};
    case OpKind::kErf: return {ir::Unary(kind, z, o({2})), {0, std::erf(1.0f)}};
    case OpKind::kEqual: return {ir::Binary(kind, a, b, bl({2, 2})), {1, 0, 0, 0}};
    case OpKind::kEqualElem:
      return {ir::Scalar(kind, a, ScalarIr::Float(4), bl({2, 2})), {0, 1, 0, 0}};
    case OpKind::kLower: return {ir::Binary(kind, a, b, bl({2, 2})), {0, 0, 0, 0}};
    case OpKind::kLowerElem:
      return {ir::Scalar(kind, a, ScalarIr::Float(9), bl({2, 2})), {1, 1, 0, 0}};
    case OpKind::kGreater: return {ir::Binary(kind, a, b, bl({2, 2})), {0, 1, 1, 1}};
    case OpKind::kGreaterElem:
      return {ir::Scalar(kind, a, ScalarIr::Float(9), bl({2, 2})), {0, 0, 0, 1}};
    case OpKind::kLowerEqual: return {ir::Binary(kind, a, b, bl({2, 2})), {1, 0, 0, 0}};
    case OpKind::kLowerEqualElem:
      return {ir::Scalar(kind, a, ScalarIr::Float(9), bl({2, 2})), {1, 1, 1, 0}};
    case OpKind::kGreaterEqual: return {ir::Binary(kind, a, b, bl({2, 2})), {1, 1, 1, 1}};
    case OpKind::kGreaterEqualElem:
      return {ir::Scalar(kind, a, ScalarIr::Float(9), bl({2, 2})), {0, 0, 1, 1}};
    case OpKind::kClamp:
      return {ir::Clamp(a, ScalarIr::Float(2), ScalarIr::Float(10), o({2, 2})), {2, 4, 9, 10}};
    case OpKind::kMaskWhere: return {ir::MaskWhere(a, m, b, o({2, 2})), {1, 4, 9, 2}};
    case OpKind::kMaskFill:
      return {ir::MaskFill(a, m, ScalarIr::Float(0), o({2, 2})), {0, 4, 9, 0}};
    case OpKind::kCast: return {ir::Unary(kind, a, o({2, 2}, DType::kI32)), {1, 4, 9, 16}};
    case OpKind::kReshape: return {ir::Unary(kind, a, o({4})), {1, 4, 9, 16}};
    case OpKind::kSwapDims: return {ir::SwapDims(a, 0, 1, o({2, 2})), {1, 9, 4, 16}};
    case OpKind::kPermute: return {ir::Permute(a, {1, 0}, o({2, 2})), {1, 9, 4, 16}};
    case OpKind::kSlice:
      return {ir::SliceOp(a, {Slice{1, 2, 1}, Slice{0, std::nullopt, -1}}, o({1, 2})), {16, 9}};
    case OpKind::kExpand: return {ir::Unary(kind, b, o({2, 2})), {1, 2, 1, 2}};
    case OpKind::kCat:
      return {ir::Cat({a, h.Input({1, 2}, DType::kF32, {7, 8})}, 0, o({3, 2})),
              {1, 4, 9, 16, 7, 8}};
    case OpKind::kGather: return {ir::Indexed(kind, a, 1, idx, o({2, 2})), {4, 1, 9, 9}};
    case OpKind::kSelect: return {ir::Indexed(kind, a, 0, sel, o({1, 2})), {9, 16}};
    case OpKind::kSumDim: return {ir::ReduceDim(kind, a, 0, o({1, 2})), {10, 20}};
    case OpKind::kMeanDim: return {ir::ReduceDim(kind, a, 1, o({2, 1})), {2.5, 12.5}};
    case OpKind::kProdDim: return {ir::ReduceDim(kind, a, 1, o({2, 1})), {4, 144}};
    case OpKind::kMaxDim: return {ir::ReduceDim(kind, a, 0, o({1, 2})), {9, 16}};
    case OpKind::kMinDim: return {ir::ReduceDim(kind, a, 1, o({2, 1})), {1, 9}};
    case OpKind::kArgMax: return {ir::ReduceDim(kind, a, 1, o({2, 1}, DType::kI64)), {1, 1}};
    case OpKind::kArgMin: return {ir::ReduceDim(kind, a, 0, o({1, 2}, DType::kI64)), {0, 0}};
    case OpKind::kSum: return {ir::Reduce(kind, a, o({1})), {30}};
    case OpKind::kMean: return {ir::Reduce(kind, a, o({1})), {7.5}};
    case OpKind::kMatmul:
      return {ir::Binary(kind, a, h.Input({2, 1}, DType::kF32, {1, -1}), o({2, 1})), {-3, -7}};
    // Bitwise ops on i32, a broadcast row of amounts {1, 2} for the tensor shifts.
    case OpKind::kBitwiseAnd: return {ir::Binary(kind, ia, ib, i32({2, 2})), {8, 3, 0, 0}};
    case OpKind::kBitwiseAndScalar: return {ir::Scalar(kind, ia, six, i32({2, 2})), {4, 6, 4, 0}};
    case OpKind::kBitwiseOr: return {ir::Binary(kind, ia, ib, i32({2, 2})), {14, -1, 15, -5}};
    case OpKind::kBitwiseOrScalar:
      return {ir::Scalar(kind, ia, ScalarIr::Int(1), i32({2, 2})), {13, -1, 5, -7}};
    case OpKind::kBitwiseXor: return {ir::Binary(kind, ia, ib, i32({2, 2})), {6, -4, 15, -5}};
    case OpKind::kBitwiseXorScalar:
      return {ir::Scalar(kind, ia, ScalarIr::Int(-1), i32({2, 2})), {-13, 0, -6, 7}};
    case OpKind::kBitwiseLeftShift:
      return {ir::Binary(kind, ia, amounts, i32({2, 2})), {24, -4, 10, -32}};
    case OpKind::kBitwiseLeftShiftScalar:
      return {ir::Scalar(kind, ia, ScalarIr::Int(3), i32({2, 2})), {96, -8, 40, -64}};
    case OpKind::kBitwiseRightShift:
      return {ir::Binary(kind, ia, amounts, i32({2, 2})), {6, -1, 2, -2}};
    case OpKind::kBitwiseRightShiftScalar:
      return {ir::Scalar(kind, ia, ScalarIr::Int(2), i32({2, 2})), {3, -1, 1, -2}};
    case OpKind::kBitwiseNot: return {ir::Unary(kind, ia, i32({2, 2})), {-13, 0, -6, 7}};
  }
  return {};
}

bool IsVectorMath(OpKind kind) {
  switch (kind) {
    case OpKind::kExp:
    case OpKind::kLog:
    case OpKind::kLog1p:
    case OpKind::kSin:
    case OpKind::kCos:
    case OpKind::kTanh:
    case OpKind::kErf: return true;
    default: return false;
  }
}

TEST(CpuBackend, EveryOpKindHasAHandComputedExample) {
  for (int k = 0; k < kNumOpKinds; ++k) {
    const OpKind kind = static_cast<OpKind>(k);
    Harness h;
    const Example example = ExampleFor(kind, h);
    ASSERT_EQ(example.op.kind, kind);
    h.backend().Execute(example.op, h.handles());
    if (kind == OpKind::kDrop) {
      EXPECT_FALSE(h.handles().Has(example.op.inputs[0].id));
      continue;
    }
    if (IsVectorMath(kind)) {
      // SLEEF's functions (vector_math.h) are within 1 ULP of the exact value, not equal to
      // glibc's.
      ExpectWithinOneUlp(h.Values(example.op.outputs[0]), example.expected, OpKindName(kind));
    } else {
      EXPECT_EQ(h.Values(example.op.outputs[0]), example.expected) << OpKindName(kind);
    }
    EXPECT_EQ(h.Handle(example.op.outputs[0]).shape, example.op.outputs[0].shape);
    EXPECT_EQ(h.Handle(example.op.outputs[0]).dtype, example.op.outputs[0].dtype);
  }
}

}  // namespace
}  // namespace ember

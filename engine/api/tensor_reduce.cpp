// ember::Tensor reductions and matmul.
#include <fmt/format.h>

#include "engine/api/tensor_ops.h"

namespace ember {

using detail::Emit;
using detail::IntoIr;
using detail::LiveServer;
using detail::NewOutputIr;

namespace {

Tensor ReduceDimImpl(const char* op, OpKind kind, Tensor x, int64_t dim) {
  auto s = LiveServer(x, op);
  checks::RequireNumeric(op, x);
  const int64_t d = checks::NormalizeDim(op, dim, x);
  Dims shape = x.Shape();
  shape[static_cast<size_t>(d)] = 1;
  const bool arg = kind == OpKind::kArgMax || kind == OpKind::kArgMin;
  TensorIr out = NewOutputIr(std::move(shape), arg ? DType::kI64 : x.Dtype());
  TensorIr in = IntoIr(x);
  return Emit(s, ir::ReduceDim(kind, in, d, out), {&x});
}

Tensor ReduceImpl(const char* op, OpKind kind, Tensor x) {
  auto s = LiveServer(x, op);
  checks::RequireNumeric(op, x);
  TensorIr out = NewOutputIr(Dims{1}, x.Dtype());
  TensorIr in = IntoIr(x);
  return Emit(s, ir::Reduce(kind, in, out), {&x});
}

#define EMBER_REDUCE_DIM(Name)                                       \
  Tensor Name##Impl(Tensor x, int64_t dim) {                         \
    return ReduceDimImpl(#Name, OpKind::k##Name, std::move(x), dim); \
  }
EMBER_REDUCE_DIM(SumDim)
EMBER_REDUCE_DIM(MeanDim)
EMBER_REDUCE_DIM(ProdDim)
EMBER_REDUCE_DIM(MaxDim)
EMBER_REDUCE_DIM(MinDim)
EMBER_REDUCE_DIM(ArgMax)
EMBER_REDUCE_DIM(ArgMin)
#undef EMBER_REDUCE_DIM

Tensor SumImpl(Tensor x) { return ReduceImpl("Sum", OpKind::kSum, std::move(x)); }
Tensor MeanImpl(Tensor x) { return ReduceImpl("Mean", OpKind::kMean, std::move(x)); }

Tensor MatmulImpl(Tensor lhs, Tensor rhs) {
  const char* op = "Matmul";
  auto s = LiveServer(lhs, op);
  checks::RequireDefined(op, rhs, "the second operand");
  checks::RequireSameDevice(op, lhs, rhs);
  checks::RequireSameDtype(op, lhs, rhs);
  checks::RequireNumeric(op, lhs);
  const Dims& a = lhs.Shape();
  const Dims& b = rhs.Shape();
  if (a.size() < 2 || b.size() < 2) {
    checks::Fail(op, fmt::format("{} x {}; expected both operands of rank >= 2",
                                 checks::Describe(lhs), checks::Describe(rhs)));
  }
  if (a[a.size() - 1] != b[b.size() - 2]) {
    checks::Fail(op, fmt::format("{} x {}: inner dims {} and {} differ; expected [..., m, k] x "
                                 "[..., k, n]",
                                 checks::Describe(lhs), checks::Describe(rhs), a[a.size() - 1],
                                 b[b.size() - 2]));
  }
  Dims batch = checks::Broadcast(
      op, Dims(a.begin(), a.end() - 2), Dims(b.begin(), b.end() - 2),
      fmt::format("batch dims of {} x {}", checks::Describe(lhs), checks::Describe(rhs)));
  batch.push_back(a[a.size() - 2]);
  batch.push_back(b[b.size() - 1]);
  checks::RequireResultFits(op, batch,
                            fmt::format("{} x {}", checks::Describe(lhs), checks::Describe(rhs)));
  TensorIr out = NewOutputIr(std::move(batch), lhs.Dtype());
  TensorIr l = IntoIr(lhs);
  TensorIr r = IntoIr(rhs);
  return Emit(s, ir::Binary(OpKind::kMatmul, l, r, out), {&lhs, &rhs});
}

}  // namespace

EMBER_DEFINE_METHOD(SumDim, SumDimImpl, (int64_t dim), dim)
EMBER_DEFINE_METHOD(MeanDim, MeanDimImpl, (int64_t dim), dim)
EMBER_DEFINE_METHOD(ProdDim, ProdDimImpl, (int64_t dim), dim)
EMBER_DEFINE_METHOD(MaxDim, MaxDimImpl, (int64_t dim), dim)
EMBER_DEFINE_METHOD(MinDim, MinDimImpl, (int64_t dim), dim)
EMBER_DEFINE_METHOD(ArgMax, ArgMaxImpl, (int64_t dim), dim)
EMBER_DEFINE_METHOD(ArgMin, ArgMinImpl, (int64_t dim), dim)
EMBER_DEFINE_METHOD(Sum, SumImpl, ())
EMBER_DEFINE_METHOD(Mean, MeanImpl, ())
EMBER_DEFINE_METHOD(Matmul, MatmulImpl, (Tensor other), std::move(other))

}  // namespace ember

#include "engine/runtime/cuda/backend/cuda_ops.h"

#include <algorithm>
#include <bit>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <ember/error.h>

#include "codegen/special_kernels.h"
#include "engine/core/check.h"
#include "engine/runtime/cpu/kernels.h"

namespace ember::cuda {
namespace {

int64_t Normalize(int64_t dim, size_t rank) {
  return dim < 0 ? dim + static_cast<int64_t>(rank) : dim;
}

TensorHandle Reshaped(TensorHandle x, const Shape& shape) {
  x.shape = shape;
  x.strides = TensorHandle::ContiguousStrides(shape);
  return x;
}

}  // namespace

TensorHandle CudaOps::Elementwise(const OperationIr& op, std::span<const TensorHandle> inputs) {
  const TensorIr& out = op.outputs.at(0);
  const KeyedTrace& trace = traces_.Elementwise(op);
  TensorHandle result = ctx_.NewHandle(out.shape, out.dtype);
  launcher_.Run(trace.trace, {.inputs = inputs,
                              .outputs = std::span(&result, 1),
                              .scalars = op.scalars,
                              .block_shapes = std::span(&out.shape, 1),
                              .serial = trace.serial});
  return result;
}

void CudaOps::CopyInto(const TensorHandle& x, const TensorHandle& dst) {
  const KeyedTrace& trace = traces_.Copy(x.dtype, dst.shape.size());
  launcher_.Run(trace.trace, {.inputs = std::span(&x, 1),
                              .outputs = std::span(&dst, 1),
                              .block_shapes = std::span(&dst.shape, 1),
                              .serial = trace.serial});
}

TensorHandle CudaOps::Contiguous(const TensorHandle& x) {
  if (x.IsContiguous()) return x;
  TensorHandle copy = ctx_.NewHandle(x.shape, x.dtype);
  CopyInto(x, copy);
  return copy;
}

TensorHandle CudaOps::Reshape(const TensorHandle& x, const Shape& shape) {
  if (NumElements(shape) != x.NumElements()) {
    throw Error(fmt::format("reshape of {} elements to {}", x.NumElements(), shape));
  }
  return Reshaped(Contiguous(x), shape);
}

TensorHandle CudaOps::ReduceDim(ReduceStage::Kind kind, const TensorHandle& x, int64_t axis,
                                const TensorIr& out) {
  const int64_t a = Normalize(axis, x.shape.size());
  const KeyedTrace& trace = traces_.Reduce(kind, x.dtype, out.dtype, a, x.shape.size());
  TensorHandle result = ctx_.NewHandle(out.shape, out.dtype);
  const Shape blocks[] = {x.shape, out.shape};
  launcher_.Run(trace.trace, {.inputs = std::span(&x, 1),
                              .outputs = std::span(&result, 1),
                              .block_shapes = blocks,
                              .serial = trace.serial});
  return result;
}

TensorHandle CudaOps::ReduceAll(ReduceStage::Kind kind, const TensorHandle& x,
                                const TensorIr& out) {
  // All elements as one row of a [1, n] tensor, reduced along its last axis. The planner runs
  // a long row as partials of many blocks and a combine (Note [Split rows],
  // codegen/plan_trace.cpp), so the whole device takes part.
  const TensorHandle row = Reshape(x, {1, x.NumElements()});
  TensorHandle result = ctx_.NewHandle(out.shape, out.dtype);
  const TensorHandle as_row = Reshaped(result, {1, 1});
  const KeyedTrace& trace = traces_.Reduce(kind, x.dtype, out.dtype, 1, 2);
  const Shape blocks[] = {row.shape, as_row.shape};
  launcher_.Run(trace.trace, {.inputs = std::span(&row, 1),
                              .outputs = std::span(&as_row, 1),
                              .block_shapes = blocks,
                              .serial = trace.serial});
  return result;
}

CudaOps::MatrixOperand CudaOps::Operand(const TensorHandle& x, const Shape& shape) {
  TensorHandle e = cpu::Expand(x, shape);
  const size_t r = shape.size();
  // Batch dims collapse into one stride when they are all broadcast or nested row-major.
  bool usable = e.strides[r - 1] == 1 || shape[r - 1] == 1;
  const int64_t row = shape[r - 1] == 1 && shape[r - 2] == 1 ? 1 : e.strides[r - 2];
  usable = usable && (shape[r - 2] == 1 || row >= shape[r - 1]);
  int64_t batch_stride = -1;
  int64_t expected = -1;
  for (size_t d = r - 2; d-- > 0;) {
    if (shape[d] == 1) continue;
    if (batch_stride < 0) {
      batch_stride = e.strides[d];
      expected = e.strides[d] * shape[d];
      continue;
    }
    const bool nested = batch_stride == 0 ? e.strides[d] == 0 : e.strides[d] == expected;
    usable = usable && nested;
    expected = e.strides[d] * shape[d];
  }
  if (usable) return {e, std::max<int64_t>(batch_stride, 0), std::max<int64_t>(row, shape[r - 1])};
  TensorHandle copy = ctx_.NewHandle(shape, x.dtype);
  CopyInto(e, copy);
  return {copy, shape[r - 2] * shape[r - 1], shape[r - 1]};
}

TensorHandle CudaOps::Matmul(const TensorHandle& lhs, const TensorHandle& rhs, const TensorIr& out,
                             const TensorHandle* into, const BlasEpilogue& epilogue) {
  const Shape& o = out.shape;
  const size_t r = o.size();
  const int64_t m = o[r - 2], n = o[r - 1], k = lhs.shape[lhs.shape.size() - 1];
  int64_t batch = 1;
  for (size_t d = 0; d + 2 < r; ++d) batch *= o[d];
  TensorHandle result = into != nullptr ? *into : ctx_.NewHandle(o, out.dtype);
  EMBER_CHECK(epilogue.kind == MatmulEpilogue::kNone || (IsFloat(out.dtype) && k >= 1),
              "a cuBLASLt epilogue on a {} matmul with k={}", DTypeName(out.dtype), k);
  if (NumElements(o) == 0) return result;
  Shape lhs_shape(o.begin(), o.end() - 2), rhs_shape = lhs_shape;
  lhs_shape.insert(lhs_shape.end(), {m, k});
  rhs_shape.insert(rhs_shape.end(), {k, n});
  if (k == 0) {
    // An empty inner dim sums nothing: zeros, as the CPU's loop leaves them.
    OperationIr zeros{.kind = OpKind::kZeros, .dtype = out.dtype, .outputs = {out}};
    TensorHandle z = Elementwise(zeros, {});
    CopyInto(z, result);
    return result;
  }
  if (!IsFloat(out.dtype)) {
    const TensorHandle a = Contiguous(cpu::Expand(lhs, lhs_shape));
    const TensorHandle b = Contiguous(cpu::Expand(rhs, rhs_shape));
    launcher_.RunSpecial(
        codegen::IntMatmulKernel(out.dtype),
        {AddressOf(result), AddressOf(a), AddressOf(b), static_cast<uint64_t>(batch),
         static_cast<uint64_t>(m), static_cast<uint64_t>(n), static_cast<uint64_t>(k)},
        batch * m * n);
    return result;
  }
  const MatrixOperand a = Operand(lhs, lhs_shape);
  const MatrixOperand b = Operand(rhs, rhs_shape);
  ctx_.Blas().Matmul({.dtype = out.dtype,
                      .m = m,
                      .n = n,
                      .k = k,
                      .batch = batch,
                      .a = AddressOf(a.handle),
                      .lda = a.row_stride,
                      .batch_stride_a = a.batch_stride,
                      .b = AddressOf(b.handle),
                      .ldb = b.row_stride,
                      .batch_stride_b = b.batch_stride,
                      .c = AddressOf(result),
                      .ldc = n,
                      .batch_stride_c = m * n,
                      .epilogue = epilogue.kind,
                      .bias = epilogue.bias,
                      .alpha = epilogue.alpha},
                     ctx_.stream->get(StreamWork::kMatmul));
  return result;
}

TensorHandle CudaOps::Index(bool select, const TensorHandle& x, int64_t dim,
                            const TensorHandle& indices, const TensorIr& out) {
  const size_t rank = x.shape.size();
  if (rank > static_cast<size_t>(codegen::kMaxSpecialRank)) {
    throw Error(fmt::format("{} of a rank-{} tensor: the CUDA backend takes ranks up to {}",
                            select ? "Select" : "Gather", rank, codegen::kMaxSpecialRank));
  }
  const int64_t d = Normalize(dim, rank);
  TensorHandle result = ctx_.NewHandle(out.shape, out.dtype);
  std::vector<uint64_t> args(7 + 3 * codegen::kMaxSpecialRank, 0);
  args[0] = AddressOf(result);
  args[1] = AddressOf(x);
  args[2] = AddressOf(indices);
  args[3] = static_cast<uint64_t>(result.NumElements());
  args[4] = rank;
  args[5] = static_cast<uint64_t>(d);
  args[6] = static_cast<uint64_t>(x.shape[d]);
  const int r = codegen::kMaxSpecialRank;
  for (size_t i = 0; i < rank; ++i) {
    args[7 + i] = static_cast<uint64_t>(out.shape[i]);
    args[7 + r + i] = static_cast<uint64_t>(x.strides[i]);
    if (!select) args[7 + 2 * r + i] = static_cast<uint64_t>(indices.strides[i]);
  }
  if (select) args[7 + 2 * r] = static_cast<uint64_t>(indices.strides.at(0));
  launcher_.RunSpecial(codegen::IndexKernel(select, x.dtype, indices.dtype), std::move(args),
                       result.NumElements());
  return result;
}

TensorHandle CudaOps::Cat(std::span<const TensorHandle> inputs, int64_t dim, const TensorIr& out) {
  TensorHandle result = ctx_.NewHandle(out.shape, out.dtype);
  const int64_t d = Normalize(dim, out.shape.size());
  int64_t at = 0;
  for (const TensorHandle& in : inputs) {
    TensorHandle dst = result;
    dst.shape = in.shape;
    dst.offset = result.offset + at * result.strides[d];
    at += in.shape[d];
    if (in.NumElements() > 0) CopyInto(in, dst);
  }
  return result;
}

TensorHandle CudaOps::Random(const Distribution& distribution, const TensorIr& out) {
  TensorHandle result = ctx_.NewHandle(out.shape, out.dtype);
  const int64_t n = result.NumElements();
  const bool uniform = distribution.kind == Distribution::Kind::kUniform;
  // The CPU's reservation (random.cpp): normal draws come in pairs.
  const uint64_t first = generator_.Reserve(uniform ? n : 2 * ((n + 1) / 2));
  launcher_.RunSpecial(
      codegen::RandomKernel(distribution.kind, out.dtype),
      {AddressOf(result), static_cast<uint64_t>(n), generator_.key(), first,
       std::bit_cast<uint64_t>(distribution.a), std::bit_cast<uint64_t>(distribution.b)},
      n);
  return result;
}

}  // namespace ember::cuda

// Fused traces with indexed reads (Gather, Select, Cat: Note [Indexed inputs],
// engine/trace/fuse_trace.h) on the CPU backend: each op feeds elementwise ops and an input
// broadcast onto the block, and the result must be the bytes of the same ops run one by one,
// out-of-range and negative indices (which read 0) included. The fusers do not emit these ops
// yet, so the traces are built by hand, and CheckFuseTrace must accept every one of them.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <ember/error.h>

#include "engine/runtime/cpu/fused_outputs.h"
#include "engine/trace/trace_state.h"
#include "tests/runtime/fused_test_util.h"

namespace ember::testing {
namespace {

// Indices in [-2, size + 2): some negative, some past the end, most in range.
std::vector<int64_t> Indices(int64_t n, int64_t size, uint64_t seed) {
  std::vector<int64_t> values;
  uint64_t state = seed * 0x9e3779b97f4a7c15ull + 7;
  for (int64_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    values.push_back(static_cast<int64_t>((state >> 33) % static_cast<uint64_t>(size + 4)) - 2);
  }
  return values;
}

ScalarIr ScaleFor(DType dtype) {
  return IsFloat(dtype) ? ScalarIr::Float(1.0 / 3) : ScalarIr::Int(3);
}

TensorIr DataInput(Harness& h, const Shape& shape, DType dtype, uint64_t seed) {
  return h.Input(shape, dtype,
                 AwkwardData(NumElements(shape), -70000, 70000, seed, IsFloat(dtype)));
}

// The trace  l0 = <kind>(indexed...; dim);  l2 = l0 * s0;  l3 = l2 + in[k] (read as l1, an
// input of shape 1 x ... x last that broadcasts onto the block);  out0 = l3, out1 = l0.
// `indexed`: positions of resources.inputs; the addend is input `addend`.
FuseTrace IndexedChain(FuseOpKind kind, int64_t dim, const std::vector<uint32_t>& indexed,
                       const std::vector<DType>& dtypes, uint32_t addend, DType dtype,
                       size_t rank) {
  FuseOp op{.kind = kind, .out = Local(0, dtype), .dim = dim};
  for (uint32_t pos : indexed) op.indexed.push_back(InArg(pos, dtypes[pos]));
  FuseTrace trace;
  trace.blocks.push_back(
      {.reads = {Assign(Local(1, dtype), InArg(addend, dtype))},
       .ops = {op, Op(FuseOpKind::kMul, Local(2, dtype), Local(0, dtype), ScalarArg(0, dtype)),
               Op(FuseOpKind::kAdd, Local(3, dtype), Local(2, dtype), Local(1, dtype))},
       .writes = {Assign(OutArg(0, dtype), Local(3, dtype)),
                  Assign(OutArg(1, dtype), Local(0, dtype))}});
  trace.blocks[0].num_locals = 4;
  for (size_t d = 0; d < rank; ++d) trace.blocks[0].shape_ref.push_back(static_cast<int64_t>(d));
  trace.resources = Resources(dtypes.size(), 2, {dtype});
  for (size_t k = 0; k < dtypes.size(); ++k) trace.resources.inputs[k].dtype = dtypes[k];
  return trace;
}

// Runs the chain fused and unfused and compares both outputs byte for byte. `inputs`: the
// trace's inputs, the addend last; `unfused_op`: the indexed op as an OperationIr.
void ExpectChainMatches(Harness& h, FuseOpKind kind, int64_t dim,
                        const std::vector<uint32_t>& indexed, const std::vector<TensorIr>& inputs,
                        const OperationIr& unfused_op, const std::string& what) {
  const TensorIr out = unfused_op.outputs.at(0);
  const Shape& shape = out.shape;
  const DType dtype = out.dtype;
  std::vector<DType> dtypes;
  for (const TensorIr& in : inputs) dtypes.push_back(in.dtype);
  const auto addend = static_cast<uint32_t>(inputs.size() - 1);
  const FuseTrace trace = IndexedChain(kind, dim, indexed, dtypes, addend, dtype, shape.size());
  const Status checked = CheckFuseTrace(trace);
  ASSERT_TRUE(checked.ok()) << what << ": " << checked.ToString();

  const TensorIr read = h.Exec(unfused_op);
  const TensorIr scaled =
      h.Exec(ir::Scalar(OpKind::kMulScalar, read, ScaleFor(dtype), h.Output(shape, dtype)));
  const TensorIr sum =
      h.Exec(ir::Binary(OpKind::kAdd, scaled, inputs.back(), h.Output(shape, dtype)));
  const auto fused = RunFused(h, trace, inputs, {OutIr(shape, dtype), OutIr(shape, dtype)}, {shape},
                              {ScaleFor(dtype)});
  ExpectSameBytes(h.backend(), fused[1], h.Handle(read), (what + " (read)").c_str());
  ExpectSameBytes(h.backend(), fused[0], h.Handle(sum), (what + " (chain)").c_str());
}

// The addend: 1 x ... x 1 x last, broadcast onto the block.
TensorIr Addend(Harness& h, const Shape& shape, DType dtype) {
  Shape row(shape.size(), 1);
  row.back() = shape.back();
  return DataInput(h, row, dtype, 99);
}

// Gather or Select of a `dtype` tensor by `index_dtype` indices along `dim` of `out_shape`;
// the tensor is `size` long along dim and `wider` longer than the output in the other dims.
void ExpectIndexAlongMatches(Harness& h, FuseOpKind kind, const Shape& out_shape, int64_t dim,
                             int64_t size, DType dtype, DType index_dtype, int64_t wider = 0) {
  Shape tensor_shape = out_shape;
  for (size_t d = 0; d < out_shape.size(); ++d) tensor_shape[d] += wider;
  tensor_shape[dim] = size;
  const TensorIr tensor = DataInput(h, tensor_shape, dtype, 5);
  const bool gather = kind == FuseOpKind::kGather;
  const Shape index_shape = gather ? out_shape : Shape{out_shape[dim]};
  const TensorIr indices =
      h.InputInts(index_shape, index_dtype, Indices(NumElements(index_shape), size, 11));
  const TensorIr addend = Addend(h, out_shape, dtype);
  const OperationIr op = ir::Indexed(gather ? OpKind::kGather : OpKind::kSelect, tensor, dim,
                                     indices, h.Output(out_shape, dtype));
  const std::string what = fmt::format("{} of {} {} by {} along {}", FuseOpKindName(kind),
                                       DTypeName(dtype), tensor_shape, DTypeName(index_dtype), dim);
  ExpectChainMatches(h, kind, dim, {0, 1}, {tensor, indices, addend}, op, what);
}

const Shape kShapes[] = {{3001}, {37, 61}, {5, 17, 29}};  // 2 or 3 tiles, one partial

TEST(FusedIndexed, GatherAlongFirstAndLastDimMatchesUnfused) {
  for (const Shape& shape : kShapes) {
    for (int64_t dim : {int64_t{0}, static_cast<int64_t>(shape.size()) - 1}) {
      for (DType dtype : {DType::kF32, DType::kF16, DType::kI64}) {
        for (DType index_dtype : {DType::kI32, DType::kI64}) {
          Harness h(2);
          ExpectIndexAlongMatches(h, FuseOpKind::kGather, shape, dim, 7, dtype, index_dtype);
        }
      }
    }
  }
}

TEST(FusedIndexed, SelectAlongFirstAndLastDimMatchesUnfused) {
  for (const Shape& shape : kShapes) {
    for (int64_t dim : {int64_t{0}, static_cast<int64_t>(shape.size()) - 1}) {
      for (DType dtype : {DType::kF32, DType::kF16, DType::kI64}) {
        for (DType index_dtype : {DType::kI32, DType::kI64}) {
          Harness h(2);
          ExpectIndexAlongMatches(h, FuseOpKind::kSelect, shape, dim, 13, dtype, index_dtype);
        }
      }
    }
  }
}

// The tensor may be larger than the output outside dim (the API allows it for Gather); the
// strides then skip its extra elements.
TEST(FusedIndexed, IndexAlongATensorWiderThanTheOutput) {
  for (FuseOpKind kind : {FuseOpKind::kGather, FuseOpKind::kSelect}) {
    Harness h(2);
    ExpectIndexAlongMatches(h, kind, {37, 61}, 1, 9, DType::kF32, DType::kI64, /*wider=*/3);
    ExpectIndexAlongMatches(h, kind, {5, 17, 29}, 0, 4, DType::kF16, DType::kI32, /*wider=*/2);
  }
}

// Large enough for the pool to split the block over its threads.
TEST(FusedIndexed, ManyThreadsMatchUnfused) {
  Harness h(4);
  ExpectIndexAlongMatches(h, FuseOpKind::kGather, {300, 257}, 1, 300, DType::kF32, DType::kI64);
  ExpectIndexAlongMatches(h, FuseOpKind::kSelect, {300, 257}, 0, 280, DType::kF16, DType::kI32);
}

// Strided operands (a swapped tensor, swapped indices, a swapped Cat input) are read through
// their strides, as the unfused kernels read them.
TEST(FusedIndexed, StridedOperandsMatchUnfused) {
  Harness h(2);
  const TensorIr t = DataInput(h, {61, 37}, DType::kF32, 4);
  const TensorIr tt = h.Exec(ir::SwapDims(t, 0, 1, h.Output({37, 61})));
  const TensorIr i = h.InputInts({61, 37}, DType::kI32, Indices(61 * 37, 61, 3));
  const TensorIr it = h.Exec(ir::SwapDims(i, 0, 1, h.Output({37, 61}, DType::kI32)));
  const TensorIr addend = Addend(h, {37, 61}, DType::kF32);
  for (int64_t dim : {0, 1}) {
    ExpectChainMatches(h, FuseOpKind::kGather, dim, {0, 1}, {tt, it, addend},
                       ir::Indexed(OpKind::kGather, tt, dim, it, h.Output({37, 61})),
                       fmt::format("strided gather along {}", dim));
  }
  const TensorIr u = DataInput(h, {37, 5}, DType::kF32, 6);
  const Shape wide = {37, 66};
  ExpectChainMatches(h, FuseOpKind::kCat, 1, {0, 1}, {tt, u, Addend(h, wide, DType::kF32)},
                     ir::Cat({tt, u}, 1, h.Output(wide)), "strided cat");
}

// A kept plan (the second launch of one trace) reads the second launch's tensors.
TEST(FusedIndexed, AKeptPlanReadsEachLaunchsTensors) {
  Harness h(1);
  const Shape shape = {37, 61};
  const FuseTrace trace = IndexedChain(FuseOpKind::kSelect, 1, {0, 1},
                                       {DType::kF32, DType::kI64, DType::kF32}, 2, DType::kF32, 2);
  for (uint64_t seed : {1, 2}) {
    const TensorIr t = DataInput(h, {37, 20}, DType::kF32, seed);
    const TensorIr i = h.InputInts({61}, DType::kI64, Indices(61, 20, seed));
    const TensorIr addend = Addend(h, shape, DType::kF32);
    const TensorIr read = h.Exec(ir::Indexed(OpKind::kSelect, t, 1, i, h.Output(shape)));
    const auto fused = RunFused(h, trace, {t, i, addend}, {OutIr(shape), OutIr(shape)}, {shape},
                                {ScaleFor(DType::kF32)});
    ExpectSameBytes(h.backend(), fused[1], h.Handle(read), "launch");
  }
}

// Cat of inputs whose sizes along dim are `sizes` (the others are `shape`'s).
void ExpectCatMatches(Harness& h, const Shape& shape, int64_t dim,
                      const std::vector<int64_t>& sizes, DType dtype) {
  std::vector<TensorIr> inputs;
  Shape out_shape = shape;
  out_shape[dim] = 0;
  for (size_t t = 0; t < sizes.size(); ++t) {
    Shape in_shape = shape;
    in_shape[dim] = sizes[t];
    out_shape[dim] += sizes[t];
    inputs.push_back(DataInput(h, in_shape, dtype, 20 + t));
  }
  const OperationIr op = ir::Cat(inputs, dim, h.Output(out_shape, dtype));
  std::vector<uint32_t> indexed;
  for (uint32_t t = 0; t < sizes.size(); ++t) indexed.push_back(t);
  inputs.push_back(Addend(h, out_shape, dtype));
  const std::string what = fmt::format("Cat of {} along {} of {} ({})", fmt::join(sizes, "+"), dim,
                                       shape, DTypeName(dtype));
  ExpectChainMatches(h, FuseOpKind::kCat, dim, indexed, inputs, op, what);
}

TEST(FusedIndexed, CatAlongFirstAndLastDimMatchesUnfused) {
  for (const Shape& shape : kShapes) {
    for (int64_t dim : {int64_t{0}, static_cast<int64_t>(shape.size()) - 1}) {
      for (DType dtype : {DType::kF32, DType::kF16, DType::kI64}) {
        Harness h(2);
        ExpectCatMatches(h, shape, dim, {3, 8}, dtype);
        ExpectCatMatches(h, shape, dim, {5, 1, 11}, dtype);
      }
    }
  }
}

TEST(FusedIndexed, CatSkipsEmptyInputs) {
  Harness h(2);
  ExpectCatMatches(h, {37, 61}, 1, {0, 4, 0, 9, 0}, DType::kF32);
  ExpectCatMatches(h, {37, 61}, 0, {0, 6}, DType::kI64);
}

// cat([x, x]): one input, indexed twice by the same op.
TEST(FusedIndexed, CatOfOneInputTwice) {
  for (int64_t dim : {0, 1}) {
    Harness h(2);
    const TensorIr x = DataInput(h, {37, 61}, DType::kF32, 3);
    Shape out_shape = {37, 61};
    out_shape[dim] *= 2;
    const OperationIr op = ir::Cat({x, x}, dim, h.Output(out_shape));
    const TensorIr addend = Addend(h, out_shape, DType::kF32);
    ExpectChainMatches(h, FuseOpKind::kCat, dim, {0, 0}, {x, addend}, op,
                       fmt::format("cat([x, x]) along {}", dim));
  }
}

// Host values, for what an out-of-range index means: 0, whatever the dtype.
TEST(FusedIndexed, OutOfRangeIndicesReadZero) {
  Harness h(1);
  const TensorIr t = h.Input({2, 3}, DType::kF32, {1, 2, 3, 4, 5, 6});
  const TensorIr idx = h.InputInts({2, 3}, DType::kI32, {2, -1, 3, 0, 1, -7});
  const TensorIr zero = h.Input({1, 3}, DType::kF32, {0, 0, 0});
  FuseTrace trace = IndexedChain(FuseOpKind::kGather, 1, {0, 1},
                                 {DType::kF32, DType::kI32, DType::kF32}, 2, DType::kF32, 2);
  ASSERT_TRUE(CheckFuseTrace(trace).ok());
  const auto fused = RunFused(h, trace, {t, idx, zero}, {OutIr({2, 3}), OutIr({2, 3})}, {{2, 3}},
                              {ScalarIr::Float(2)});
  EXPECT_EQ(ReadValues(h.backend(), fused[1]), (std::vector<double>{3, 0, 0, 4, 5, 0}));
  EXPECT_EQ(ReadValues(h.backend(), fused[0]), (std::vector<double>{6, 0, 0, 8, 10, 0}));
}

// An indexed input is read at other positions than the output's: never reused in place, even
// when it alone satisfies every other condition. A plainly read input that does is.
TEST(FusedIndexed, IndexedInputsAreNeverReusedInPlace) {
  const Shape shape = {37, 61};
  std::unique_ptr<Backend> backend = cpu::MakeCpuBackend(1);
  const FuseTrace trace = IndexedChain(FuseOpKind::kGather, 0, {0, 1},
                                       {DType::kF32, DType::kI64, DType::kF32}, 2, DType::kF32, 2);
  const auto make = [&] {
    FusedLaunch launch =
        Launch(trace,
               {MakeHandle(*backend, shape, DType::kF32, TestData(NumElements(shape), -1, 1)),
                backend->FromHost(EncodeInts(Indices(NumElements(shape), 37, 1), DType::kI64),
                                  shape, DType::kI64),
                MakeHandle(*backend, shape, DType::kF32, TestData(NumElements(shape), -1, 1))},
               {OutIr(shape), OutIr(shape)}, {shape}, {ScalarIr::Float(2)});
    launch.reusable = {true, false, false};
    return launch;
  };
  EXPECT_EQ(cpu::ChooseInPlace(make()), (std::vector<int>{-1, -1}));
  FusedLaunch launch = make();
  launch.reusable = {true, false, true};
  EXPECT_EQ(cpu::ChooseInPlace(launch), (std::vector<int>{2, -1}));
}

// Operands the unfused kernels would refuse make the plan throw, so the ops run one by one.
TEST(FusedIndexed, MismatchedOperandsAreRefused) {
  Harness h(1);
  const TensorIr t = DataInput(h, {4, 5}, DType::kF32, 1);
  const TensorIr addend = DataInput(h, {1, 5}, DType::kF32, 2);
  // Cat of 4 + 4 rows into an output of 9.
  const FuseTrace cat =
      IndexedChain(FuseOpKind::kCat, 0, {0, 0}, {DType::kF32, DType::kF32}, 1, DType::kF32, 2);
  EXPECT_THROW(
      RunFused(h, cat, {t, addend}, {OutIr({9, 5}), OutIr({9, 5})}, {{9, 5}}, {ScalarIr::Float(1)}),
      Error);
  // Select with 3 indices for an output 4 long along dim 0.
  const TensorIr idx = h.InputInts({3}, DType::kI64, {0, 1, 2});
  const FuseTrace select = IndexedChain(FuseOpKind::kSelect, 0, {0, 1},
                                        {DType::kF32, DType::kI64, DType::kF32}, 2, DType::kF32, 2);
  EXPECT_THROW(RunFused(h, select, {t, idx, addend}, {OutIr({4, 5}), OutIr({4, 5})}, {{4, 5}},
                        {ScalarIr::Float(1)}),
               Error);
  // Float indices.
  const TensorIr fidx = h.Input({4, 5}, DType::kF32, TestData(20, 0, 3));
  const FuseTrace gather = IndexedChain(FuseOpKind::kGather, 0, {0, 1},
                                        {DType::kF32, DType::kF32, DType::kF32}, 2, DType::kF32, 2);
  EXPECT_THROW(RunFused(h, gather, {t, fidx, addend}, {OutIr({4, 5}), OutIr({4, 5})}, {{4, 5}},
                        {ScalarIr::Float(1)}),
               Error);
}

}  // namespace
}  // namespace ember::testing

// The traces of the golden and NVRTC tests: each built by a real fuser from the ops a user
// program queues, then launched over real shapes (codegen_test_util.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "codegen/kernel_source.h"
#include "codegen/plan_trace.h"
#include "codegen/prelude.h"
#include "engine/fuse/elementwise_fuser.h"
#include "engine/fuse/matmul_fuser.h"
#include "engine/fuse/reduce_broadcasted_fuser.h"
#include "engine/fuse/reduce_fuser.h"
#include "engine/ir/builders.h"
#include "tests/codegen/chain_traces.h"
#include "tests/codegen/codegen_test_util.h"
#include "tests/codegen/indexed_traces.h"

namespace ember::codegen_test {

struct GoldenCase {
  std::string name;
  std::function<FuseTrace()> trace;
  std::map<int64_t, int64_t> dims;  // relative shape id -> real dim
  bool in_place = false;            // output 0 takes input 0's buffer
};

struct Generated {
  std::string text;                  // the plan and every kernel, prelude left out
  std::vector<std::string> sources;  // complete sources, for NVRTC
};

inline Generated Generate(const GoldenCase& c) {
  const FuseTrace trace = c.trace();
  LaunchMaker maker(c.dims);
  TraceLaunch launch = maker.Make(trace);
  if (c.in_place) launch.outputs.at(0).address = launch.inputs.at(0).address;
  const TracePlan plan = PlanTrace(launch);
  Generated g;
  g.text = "// trace:\n";
  std::string listing = FormatFuseTrace(trace);
  for (size_t start = 0; start < listing.size();) {
    const size_t end = listing.find('\n', start);
    g.text += "//   " + listing.substr(start, end - start) + "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    const KernelSpec& spec = plan.kernels[k];
    const GeneratedKernel kernel = GenerateKernel(trace, spec);
    g.sources.push_back(kernel.source);
    std::string source = kernel.source;
    const std::string prelude(CudaPrelude());
    if (source.compare(0, prelude.size(), prelude) == 0) {
      source = "// <prelude: codegen/prelude.cpp>\n" + source.substr(prelude.size());
    }
    g.text += fmt::format("// kernel {}: grid {} x {} threads, {} bytes of shared memory\n", k,
                          spec.grid, spec.threads, spec.shared_bytes);
    g.text += source;
  }
  return g;
}

namespace ops {
using test::Out;
using test::P;
using test::Ro;
using test::Rw;
constexpr uint32_t kUnlimited = 0xffffffffu;
const Shape kRows = {1, 2};
const Shape kRow = {1, 0};

// (a * b + c * 2.0).exp(), the seed's expression.
inline FuseTrace Seed(DType dtype) {
  ElementWiseFuser f(kUnlimited);
  const Shape s = {1, 2};
  return TraceOf(f, {ir::Binary(OpKind::kMul, Ro(0, s, dtype), Ro(1, s, dtype), Out(3, s, dtype)),
                     ir::Scalar(OpKind::kMulScalar, Ro(2, s, dtype), P(0), Out(4, s, dtype)),
                     ir::Binary(OpKind::kAdd, Rw(3, s, dtype), Rw(4, s, dtype), Out(5, s, dtype)),
                     ir::Unary(OpKind::kExp, Rw(5, s, dtype), Out(6, s, dtype))});
}

// x*2 + 1, then relu by MaskFill, tanh, a bias row broadcast over the rows, and a cast to i32.
inline FuseTrace BroadcastChain() {
  ElementWiseFuser f(kUnlimited);
  const Shape s = {1, 2}, bias = {0, 2};
  return TraceOf(f, {ir::Scalar(OpKind::kMulScalar, Ro(0, s), P(0), Out(2, s)),
                     ir::Scalar(OpKind::kAddScalar, Rw(2, s), P(1), Out(3, s)),
                     ir::Scalar(OpKind::kLowerElem, Ro(3, s), P(2), Out(4, s, DType::kBool)),
                     ir::MaskFill(Rw(3, s), Rw(4, s, DType::kBool), P(3), Out(5, s)),
                     ir::Unary(OpKind::kTanh, Rw(5, s), Out(6, s)),
                     ir::Binary(OpKind::kAdd, Rw(6, s), Ro(1, bias), Out(7, s)),
                     // A float precision cast fuses (BaseFloat::Cast); to i32 it would not
                     // (burn's Float::IntoInt, issue 17).
                     ir::Unary(OpKind::kCast, Rw(7, s), Out(8, s, DType::kBF16))});
}

// Integer math with the CPU's division rules, a column broadcast ([rows, 1]), and the
// conversion to float that fuses (burn's Int::IntoFloat).
inline FuseTrace IntChain() {
  ElementWiseFuser f(kUnlimited);
  const Shape s = {1, 2}, col = {1, 0};
  const DType i = DType::kI64;
  return TraceOf(f, {ir::Binary(OpKind::kDiv, Ro(0, s, i), Ro(1, col, i), Out(2, s, i)),
                     ir::Binary(OpKind::kRem, Rw(2, s, i), Ro(1, col, i), Out(3, s, i)),
                     ir::Unary(OpKind::kAbs, Rw(3, s, i), Out(4, s, i)),
                     ir::Unary(OpKind::kCast, Rw(4, s, i), Out(5, s, DType::kF32))});
}

// Every bitwise op on i32 (Note [Bitwise ops], engine/runtime/cpu/elementwise.cpp), tensor and
// scalar forms, a broadcast column among the operands: one kernel computing in i64.
inline FuseTrace BitwiseChain() {
  ElementWiseFuser f(kUnlimited);
  const Shape s = {1, 2}, col = {1, 0};
  const DType i = DType::kI32;
  return TraceOf(f,
                 {ir::Binary(OpKind::kBitwiseAnd, Ro(0, s, i), Ro(1, col, i), Out(2, s, i)),
                  ir::Scalar(OpKind::kBitwiseXorScalar, Rw(2, s, i), P(0), Out(3, s, i)),
                  ir::Binary(OpKind::kBitwiseLeftShift, Rw(3, s, i), Ro(1, col, i), Out(4, s, i)),
                  ir::Scalar(OpKind::kBitwiseRightShiftScalar, Rw(4, s, i), P(1), Out(5, s, i)),
                  ir::Binary(OpKind::kBitwiseOr, Rw(5, s, i), Ro(0, s, i), Out(6, s, i)),
                  ir::Unary(OpKind::kBitwiseNot, Rw(6, s, i), Out(7, s, i))});
}

// Five independent chains x_k * 2 + 1 -> exp (ember-lab's "chains" scenario): one kernel of
// five inputs and five outputs.
inline FuseTrace FiveChains() {
  ElementWiseFuser f(kUnlimited);
  std::vector<OperationIr> ops;
  for (TensorId k = 0; k < 5; ++k) {
    const TensorId t = 10 + 3 * k;
    ops.push_back(ir::Scalar(OpKind::kMulScalar, Ro(k, {1, 2}), P(2 * k), Out(t, {1, 2})));
    ops.push_back(ir::Scalar(OpKind::kAddScalar, Rw(t, {1, 2}), P(2 * k + 1), Out(t + 1, {1, 2})));
    ops.push_back(ir::Unary(OpKind::kExp, Rw(t + 1, {1, 2}), Out(t + 2, {1, 2})));
  }
  return TraceOf(f, ops);
}

// A swap-dims view read inside the kernel (fused only for an input the block already reads):
// exp(x) + x^T.
inline FuseTrace SwapDimsView() {
  ElementWiseFuser f(kUnlimited);
  return TraceOf(f, {ir::Unary(OpKind::kExp, Ro(0, {1, 1}), Out(1, {1, 1})),
                     ir::SwapDims(Ro(0, {1, 1}), 0, 1, Out(2, {1, 1})),
                     ir::Binary(OpKind::kAdd, Rw(1), Rw(2), Out(3))});
}

// A mask, a clamp, a cast to f16 and a fused Full (scalars assigned to locals).
inline FuseTrace MaskClampCastFull() {
  ElementWiseFuser f(kUnlimited);
  return TraceOf(f, {ir::Scalar(OpKind::kGreaterElem, Ro(0), P(0), Out(1, {1, 1}, DType::kBool)),
                     ir::MaskFill(Ro(0), Rw(1, {1, 1}, DType::kBool), P(1), Out(2)),
                     ir::Clamp(Rw(2), P(2), P(3), Out(3)),
                     ir::Unary(OpKind::kCast, Rw(3), Out(4, {1, 1}, DType::kF16)),
                     ir::Full(Out(5, {1, 1}, DType::kI32), P(4))});
}

inline FuseTrace Softmax() {
  ReduceBroadcastedFuser f(kUnlimited);
  return TraceOf(f, {ir::Scalar(OpKind::kMulScalar, Ro(0, kRows), P(0), Out(1, kRows)),
                     ir::ReduceDim(OpKind::kMaxDim, Ro(1, kRows), 1, Out(2, kRow)),
                     ir::Binary(OpKind::kSub, Rw(1, kRows), Rw(2, kRow), Out(3, kRows)),
                     ir::Unary(OpKind::kExp, Rw(3, kRows), Out(4, kRows)),
                     ir::ReduceDim(OpKind::kSumDim, Ro(4, kRows), 1, Out(5, kRow)),
                     ir::Binary(OpKind::kDiv, Rw(4, kRows), Rw(5, kRow), Out(6, kRows))});
}

// Two independent softmaxes queued back to back (inputs 0 and 10): one ReduceBroadcasted
// trace, as the search builds it, run as a kernel per chain (Note [Trace chains],
// engine/trace/trace_chains.h); as one kernel, where a chain writes what the other reads, the
// second chain reuses the first's shared slots (Note [Shared handover slots], handover.h).
inline FuseTrace TwoSoftmaxes() {
  ReduceBroadcastedFuser f(kUnlimited);
  std::vector<OperationIr> ops;
  for (uint32_t base : {0u, 10u}) {
    ops.push_back(ir::Scalar(OpKind::kMulScalar, Ro(base, kRows), P(0), Out(base + 1, kRows)));
    ops.push_back(ir::ReduceDim(OpKind::kMaxDim, Ro(base + 1, kRows), 1, Out(base + 2, kRow)));
    ops.push_back(
        ir::Binary(OpKind::kSub, Rw(base + 1, kRows), Rw(base + 2, kRow), Out(base + 3, kRows)));
    ops.push_back(ir::Unary(OpKind::kExp, Rw(base + 3, kRows), Out(base + 4, kRows)));
    ops.push_back(ir::ReduceDim(OpKind::kSumDim, Ro(base + 4, kRows), 1, Out(base + 5, kRow)));
    ops.push_back(
        ir::Binary(OpKind::kDiv, Rw(base + 4, kRows), Rw(base + 5, kRow), Out(base + 6, kRows)));
  }
  return TraceOf(f, ops);
}

inline FuseTrace LayerNorm() {
  ReduceBroadcastedFuser f(kUnlimited);
  const Shape r = kRows, p = kRow;
  return TraceOf(f, {ir::Binary(OpKind::kAdd, Ro(0, r), Ro(1, r), Out(2, r)),
                     ir::ReduceDim(OpKind::kMeanDim, Ro(2, r), 1, Out(3, p)),
                     ir::Binary(OpKind::kSub, Rw(2, r), Rw(3, p), Out(4, r)),
                     ir::Binary(OpKind::kMul, Ro(4, r), Ro(4, r), Out(5, r)),
                     ir::ReduceDim(OpKind::kMeanDim, Rw(5, r), 1, Out(6, p)),
                     ir::Scalar(OpKind::kAddScalar, Rw(6, p), P(0), Out(7, p)),
                     ir::Unary(OpKind::kSqrt, Rw(7, p), Out(8, p)),
                     ir::Binary(OpKind::kDiv, Rw(4, r), Rw(8, p), Out(9, r))});
}

// exp then a sum along axis 0 (a column reduce), then the result scaled.
inline FuseTrace SumAxis0() {
  ReduceFuser f(kUnlimited);
  return TraceOf(f, {ir::Unary(OpKind::kExp, Ro(0, {1, 2}), Out(1, {1, 2})),
                     ir::ReduceDim(OpKind::kSumDim, Rw(1, {1, 2}), 0, Out(2, {0, 2})),
                     ir::Scalar(OpKind::kMulScalar, Rw(2, {0, 2}), P(0), Out(3, {0, 2}))});
}

// ArgMax along the last axis of a*2.
inline FuseTrace ArgMaxRows() {
  ReduceFuser f(kUnlimited);
  return TraceOf(f, {ir::Scalar(OpKind::kMulScalar, Ro(0, kRows), P(0), Out(1, kRows)),
                     ir::ReduceDim(OpKind::kArgMax, Rw(1, kRows), 1, Out(2, kRow, DType::kI64))});
}

// x * s reduced along the last axis: a fused prologue and one reduce stage (the shape of
// CudaOps::ReduceDim's and ReduceAll's traces, with one op before the stage).
inline FuseTrace ReduceRows(OpKind kind, DType in, DType out) {
  ReduceFuser f(kUnlimited);
  return TraceOf(f, {ir::Scalar(OpKind::kMulScalar, Ro(0, kRows, in), P(0), Out(1, kRows, in)),
                     ir::ReduceDim(kind, Rw(1, kRows, in), 1, Out(2, kRow, out))});
}

// a x b + bias, then gelu by erf.
inline FuseTrace MatmulBiasGelu() {
  MatmulFuser f(kUnlimited);
  const Shape out = {1, 3};
  return TraceOf(f, {ir::Binary(OpKind::kMatmul, Ro(0, {1, 2}), Ro(1, {2, 3}), Out(3, out)),
                     ir::Binary(OpKind::kAdd, Rw(3, out), Ro(2, {0, 3}), Out(4, out)),
                     ir::Scalar(OpKind::kMulScalar, Ro(4, out), P(0), Out(5, out)),
                     ir::Unary(OpKind::kErf, Rw(5, out), Out(6, out)),
                     ir::Scalar(OpKind::kAddScalar, Rw(6, out), P(1), Out(7, out)),
                     ir::Binary(OpKind::kMul, Rw(4, out), Rw(7, out), Out(8, out)),
                     ir::Scalar(OpKind::kMulScalar, Rw(8, out), P(2), Out(9, out))});
}
}  // namespace ops

inline std::vector<GoldenCase> GoldenCases() {
  using namespace ops;
  return {
      {"seed_f32", [] { return Seed(DType::kF32); }, {{1, 64}, {2, 64}}},
      {"seed_f16", [] { return Seed(DType::kF16); }, {{1, 64}, {2, 64}}},
      {"seed_odd_size", [] { return Seed(DType::kF32); }, {{1, 7}, {2, 13}}},
      {"seed_in_place", [] { return Seed(DType::kF32); }, {{1, 64}, {2, 64}}, true},
      {"broadcast_chain", BroadcastChain, {{1, 128}, {2, 256}}},
      {"five_chains", FiveChains, {{1, 256}, {2, 1024}}},
      {"int_chain", IntChain, {{1, 32}, {2, 48}}},
      {"bitwise_chain", BitwiseChain, {{1, 32}, {2, 48}}},
      {"swap_dims_view", SwapDimsView, {{1, 96}}},
      {"mask_clamp_cast_full", MaskClampCastFull, {{1, 40}}},
      {"softmax", Softmax, {{1, 512}, {2, 4096}}},
      {"softmax_long_rows", Softmax, {{1, 4}, {2, 1 << 20}}},
      {"two_softmaxes", TwoSoftmaxes, {{1, 512}, {2, 4096}}},
      // Two chains over one read (Note [Trace chains]), hand-built: one without a stage.
      {"one_read_two_chains", OneReadForTwoChains, {{1, 300}, {2, 1000}}},
      {"layernorm", LayerNorm, {{1, 512}, {2, 1024}}},
      {"sum_axis0", SumAxis0, {{1, 300}, {2, 500}}},
      {"argmax_rows", ArgMaxRows, {{1, 100}, {2, 33}}},
      {"matmul_bias_gelu", MatmulBiasGelu, {{1, 256}, {2, 128}, {3, 512}}},
      // Note [Split rows]: one row (ReduceAll's [1, n]) and a few long ones.
      {"sum_all_split",
       [] { return ReduceRows(OpKind::kSumDim, DType::kF32, DType::kF32); },
       {{1, 1}, {2, 1 << 22}}},
      {"mean_all_f16_split",
       [] { return ReduceRows(OpKind::kMeanDim, DType::kF16, DType::kF16); },
       {{1, 1}, {2, 3 << 20}}},
      {"argmax_long_rows_split",
       [] { return ReduceRows(OpKind::kArgMax, DType::kF32, DType::kI64); },
       {{1, 4}, {2, 1 << 18}}},
      {"sum_i32_split",
       [] { return ReduceRows(OpKind::kSumDim, DType::kI32, DType::kI32); },
       {{1, 2}, {2, 100000}}},
      // Positions past 2^31: 64-bit indices and positions in the accumulator.
      {"argmax_rows_index64", ArgMaxRows, {{1, 1 << 12}, {2, 1 << 20}}},
      {"max_i64_rows",
       [] { return ReduceRows(OpKind::kMaxDim, DType::kI64, DType::kI64); },
       {{1, 300}, {2, 1000}}},
      // Short rows: a warp's lanes split into row groups of 4.
      {"max_short_rows",
       [] { return ReduceRows(OpKind::kMaxDim, DType::kF32, DType::kF32); },
       {{1, 1000}, {2, 64}}},
      // Indexed reads (Note [Indexed inputs]), hand-built: * s0 + in2 after each.
      {"gather_last_mul_add",
       [] { return GatherMulAdd(1, DType::kF32, DType::kI64); },
       {{1, 64}, {2, 48}, {3, 100}}},
      {"select_dim0_f16_mul_add",
       [] { return SelectMulAdd(0, DType::kF16, DType::kI32); },
       {{1, 40}, {2, 64}, {3, 50}}},
      {"cat_last_mul_add",
       [] {
         return CatMulAdd(1, {3, 4}, 5, DType::kF32);
       },
       {{1, 32}, {3, 24}, {4, 40}, {5, 64}}},
      {"cat3_dim0_mul_add",
       [] {
         return CatMulAdd(0, {3, 4, 5}, 6, DType::kF32);
       },
       {{2, 128}, {3, 8}, {4, 16}, {5, 8}, {6, 32}}},
  };
}

}  // namespace ember::codegen_test

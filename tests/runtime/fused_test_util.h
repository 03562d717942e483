// Helpers for the fused-trace tests of the CPU backend: build traces by hand (Note [Fused
// trace], engine/trace/fuse_trace.h), bind them to real handles, and compare the fused result
// byte for byte with the same ops run one by one through Backend::Execute.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "engine/runtime/fused_launch.h"
#include "engine/trace/fuse_trace.h"
#include "tests/runtime/cpu/cpu_test_util.h"

namespace ember::testing {

inline FuseArg InArg(uint32_t pos, DType dtype = DType::kF32) {
  return {FuseArgKind::kInput, dtype, pos};
}
inline FuseArg OutArg(uint32_t pos, DType dtype = DType::kF32) {
  return {FuseArgKind::kOutput, dtype, pos};
}
inline FuseArg Local(uint32_t pos, DType dtype = DType::kF32) {
  return {FuseArgKind::kLocal, dtype, pos};
}
inline FuseArg ScalarArg(uint32_t pos, DType dtype = DType::kF32) {
  return {FuseArgKind::kScalar, dtype, pos};
}
inline FuseArg Literal(uint32_t value, DType dtype = DType::kF32) {
  return {FuseArgKind::kLiteral, dtype, value};
}
inline FuseArg ViewArg(uint32_t pos, DType dtype = DType::kF32) {
  return {FuseArgKind::kInputView, dtype, pos};
}
// Value `pos` handed over by block `block`.
inline FuseArg Handed(uint32_t block, uint32_t pos, DType dtype = DType::kF32) {
  return {FuseArgKind::kMultiBlockLocal, dtype, pos, block};
}

inline FuseOp Op(FuseOpKind kind, FuseArg out, FuseArg a, FuseArg b = {}, FuseArg c = {}) {
  return {kind, {a, b, c}, out};
}
inline FuseOp Assign(FuseArg out, FuseArg in) { return Op(FuseOpKind::kAssign, out, in); }

// `inputs` and `outputs` placeholder TensorIrs (a launch binds real ones; only the counts
// matter to the CPU backend) and the read types of the scalars.
inline FuseResources Resources(size_t inputs, size_t outputs, std::vector<DType> scalars = {},
                               std::vector<FuseView> views = {}) {
  FuseResources r;
  r.inputs.resize(inputs);
  r.outputs.resize(outputs);
  for (uint32_t k = 0; k < scalars.size(); ++k) r.scalars.push_back({scalars[k], k});
  r.views = std::move(views);
  return r;
}

// A launch of `trace` (kept by pointer: it must outlive the launch). Nothing is reusable
// unless a test says so.
inline FusedLaunch Launch(const FuseTrace& trace, std::vector<TensorHandle> inputs,
                          std::vector<TensorIr> outputs, std::vector<Shape> block_shapes,
                          std::vector<ScalarIr> scalars = {}, std::vector<Shape> view_shapes = {}) {
  FusedLaunch launch;
  launch.trace = &trace;
  launch.reusable.assign(inputs.size(), false);
  launch.inputs = std::move(inputs);
  launch.outputs = std::move(outputs);
  launch.block_shapes = std::move(block_shapes);
  launch.scalars = std::move(scalars);
  launch.view_shapes = std::move(view_shapes);
  return launch;
}

// Runs `trace` on the harness's backend over the handles of `inputs`.
inline std::vector<TensorHandle> RunFused(Harness& h, const FuseTrace& trace,
                                          const std::vector<TensorIr>& inputs,
                                          std::vector<TensorIr> outputs,
                                          std::vector<Shape> block_shapes,
                                          std::vector<ScalarIr> scalars = {},
                                          std::vector<Shape> view_shapes = {}) {
  std::vector<TensorHandle> handles;
  for (const TensorIr& t : inputs) handles.push_back(h.Handle(t));
  const FusedLaunch launch =
      Launch(trace, std::move(handles), std::move(outputs), std::move(block_shapes),
             std::move(scalars), std::move(view_shapes));
  return h.backend().ExecuteFused(launch);
}

// out0 = in0 * scalar0 + in1, one block. `rank`: the rank its block is launched at, as relative
// shape ids 0, 1, ... (the CPU reads ranks from the launch; the CUDA code generator indexes with
// the trace's, so a CUDA test passes the rank it launches).
inline FuseTrace MulAddTrace(size_t rank = 0) {
  FuseTrace t;
  t.blocks.push_back({.reads = {Assign(Local(0), InArg(0)), Assign(Local(1), InArg(1))},
                      .ops = {Op(FuseOpKind::kMul, Local(2), Local(0), ScalarArg(0)),
                              Op(FuseOpKind::kAdd, Local(3), Local(2), Local(1))},
                      .writes = {Assign(OutArg(0), Local(3))}});
  for (size_t d = 0; d < rank; ++d) t.blocks[0].shape_ref.push_back(static_cast<int64_t>(d));
  t.resources = Resources(2, 1, {DType::kF32});
  return t;
}

// An output of a launch (ids do not matter to the backend).
inline TensorIr OutIr(const Shape& shape, DType dtype = DType::kF32) {
  return TensorIr{0, shape, TensorStatus::kNotInit, dtype};
}

// Same shape, dtype and bytes (so NaNs, signed zeros and roundings all count).
inline void ExpectSameBytes(Backend& backend, const TensorHandle& fused,
                            const TensorHandle& unfused, const char* what = "") {
  ASSERT_EQ(fused.shape, unfused.shape) << what;
  ASSERT_EQ(fused.dtype, unfused.dtype) << what;
  const std::vector<std::byte> a = ReadBytes(backend, fused);
  const std::vector<std::byte> b = ReadBytes(backend, unfused);
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;
    const size_t element = i / DTypeSize(fused.dtype);
    FAIL() << what << ": element " << element << " differs: fused "
           << ReadValues(backend, fused)[element] << ", unfused "
           << ReadValues(backend, unfused)[element];
  }
}

// Test data with awkward values mixed in: zeros of both signs, ties for rounding, the f16
// limit; with `ieee`, NaN and infinities too (float dtypes only).
inline std::vector<double> AwkwardData(size_t n, double lo, double hi, uint64_t seed,
                                       bool ieee = true) {
  std::vector<double> values = TestData(n, lo, hi, seed);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> specials =
      ieee ? std::vector<double>{0.0, -0.0, 0.5, -2.5, 1.0, nan, inf, -inf, 65504.0, 1e-8}
           : std::vector<double>{0.0, 0.5, -2.5, 1.0, -1.0};
  for (size_t i = 0; i < specials.size() && i < n; ++i) values[(i * 7 + seed) % n] = specials[i];
  return values;
}

}  // namespace ember::testing

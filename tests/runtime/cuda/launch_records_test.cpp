// Launch records kept by LaunchRecords (engine/runtime/cuda/backend/launch_records.h): found
// only by their serial and whole binding, least recently used out first, counted; and the
// one-op traces of unfused ops kept by structure (op_trace_cache.h). No GPU needed: records
// are plain data here (the GPU tests replay them: launch_records_gpu_test.cpp).
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "engine/ir/builders.h"
#include "engine/runtime/cuda/backend/launch_records.h"
#include "engine/runtime/cuda/backend/op_trace_cache.h"

namespace ember::cuda {
namespace {

codegen::LaunchBinding Binding(int64_t n) {
  codegen::LaunchBinding b;
  const std::vector<int64_t> shape = {n}, strides = {1};
  b.AddTensor(DType::kF32, shape, strides, 0x10000);
  b.AddBlockShape(shape);
  return b;
}

LaunchRecord Record(int64_t grid) {
  LaunchRecord r;
  r.kernels.push_back({.grid = grid});
  return r;
}

TEST(LaunchRecords, AHitNeedsTheSerialAndTheWholeBinding) {
  LaunchRecords records(8);
  EXPECT_EQ(records.Find(1, Binding(10)), nullptr);
  records.Add(1, Binding(10), Record(7));
  const LaunchRecord* hit = records.Find(1, Binding(10));
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->kernels.at(0).grid, 7);
  EXPECT_EQ(records.Find(2, Binding(10)), nullptr) << "another trace";
  EXPECT_EQ(records.Find(1, Binding(11)), nullptr) << "another binding";
  const LaunchRecords::Counters c = records.counters();
  EXPECT_EQ(c.hits, 1u);
  EXPECT_EQ(c.misses, 3u);
  EXPECT_EQ(c.evictions, 0u);
}

TEST(LaunchRecords, TheLeastRecentlyUsedGoesFirst) {
  LaunchRecords records(2);
  records.Add(1, Binding(1), Record(1));
  records.Add(1, Binding(2), Record(2));
  ASSERT_NE(records.Find(1, Binding(1)), nullptr);  // 1 is now the most recent
  records.Add(1, Binding(3), Record(3));            // evicts 2
  EXPECT_EQ(records.size(), 2u);
  EXPECT_EQ(records.counters().evictions, 1u);
  EXPECT_NE(records.Find(1, Binding(1)), nullptr);
  EXPECT_EQ(records.Find(1, Binding(2)), nullptr);
  EXPECT_NE(records.Find(1, Binding(3)), nullptr);
}

TEST(LaunchRecords, CapacityZeroIsOff) {
  EXPECT_FALSE(LaunchRecords(0).enabled());
  EXPECT_TRUE(LaunchRecords(1).enabled());
}

TEST(OpTraceCache, OneTracePerStructureWhateverTheIdsAndDims) {
  OpTraceCache cache;
  const TensorIr a{.id = 3, .shape = {4, 5}, .dtype = DType::kF32};
  const TensorIr b{.id = 9, .shape = {4, 5}, .dtype = DType::kF32};
  const TensorIr out{.id = 12, .shape = {4, 5}, .dtype = DType::kF32};
  const OperationIr first = ir::Binary(OpKind::kAdd, a, b, out);
  const KeyedTrace& kept = cache.Elementwise(first);
  const uint64_t serial = kept.serial;
  EXPECT_NE(serial, 0u);
  // Other ids and other dims of the same ranks: the same trace.
  const TensorIr c{.id = 40, .shape = {7, 1}, .dtype = DType::kF32};
  const TensorIr d{.id = 41, .shape = {7, 2}, .dtype = DType::kF32};
  const TensorIr o{.id = 42, .shape = {7, 2}, .dtype = DType::kF32};
  EXPECT_EQ(cache.Elementwise(ir::Binary(OpKind::kAdd, c, d, o)).serial, serial);
  EXPECT_EQ(cache.size(), 1u);
  // Another kind, dtype or rank: another trace.
  EXPECT_NE(cache.Elementwise(ir::Binary(OpKind::kMul, a, b, out)).serial, serial);
  const TensorIr h{.id = 3, .shape = {4, 5}, .dtype = DType::kF16};
  const TensorIr ho{.id = 12, .shape = {4, 5}, .dtype = DType::kF16};
  EXPECT_NE(cache.Elementwise(ir::Binary(OpKind::kAdd, h, h, ho)).serial, serial);
  const TensorIr r3{.id = 3, .shape = {1, 4, 5}, .dtype = DType::kF32};
  const TensorIr o3{.id = 12, .shape = {1, 4, 5}, .dtype = DType::kF32};
  EXPECT_NE(cache.Elementwise(ir::Binary(OpKind::kAdd, r3, b, o3)).serial, serial);
  EXPECT_EQ(cache.size(), 4u);
  // The trace itself names positions, not the op's ids.
  const FuseTrace& trace = cache.Elementwise(first).trace;
  ASSERT_EQ(trace.resources.inputs.size(), 2u);
  EXPECT_EQ(trace.resources.inputs[0].id, 0u);
  EXPECT_EQ(trace.resources.inputs[1].id, 1u);
}

TEST(OpTraceCache, CopiesAndReductionsByStructure) {
  OpTraceCache cache;
  const uint64_t copy = cache.Copy(DType::kF32, 2).serial;
  EXPECT_EQ(cache.Copy(DType::kF32, 2).serial, copy);
  EXPECT_NE(cache.Copy(DType::kF32, 3).serial, copy);
  const uint64_t sum = cache.Reduce(ReduceStage::Kind::kSum, DType::kF32, DType::kF32, 1, 2).serial;
  EXPECT_EQ(cache.Reduce(ReduceStage::Kind::kSum, DType::kF32, DType::kF32, 1, 2).serial, sum);
  EXPECT_NE(cache.Reduce(ReduceStage::Kind::kSum, DType::kF32, DType::kF32, 0, 2).serial, sum);
  EXPECT_NE(cache.Reduce(ReduceStage::Kind::kMax, DType::kF32, DType::kF32, 1, 2).serial, sum);
}

}  // namespace
}  // namespace ember::cuda

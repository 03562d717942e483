// Launch records on the GPU (engine/runtime/cuda/backend/launch_records.h), through the CUDA
// backend's ExecuteFused: the second launch of a trace with the same binding replays the record
// (with its own scalar and addresses), and each part of the binding that changes (a stride, the
// alignment, an alias between inputs, an in-place output) misses and records anew. Every result
// is checked against the host's arithmetic. Skipped without a GPU.
#include <cstdint>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "engine/runtime/cpu/kernels.h"
#include "engine/runtime/cuda/backend/cuda_backend.h"
#include "engine/runtime/cuda/cuda_device.h"
#include "engine/trace/trace_serial.h"
#include "tests/runtime/fused_test_util.h"

namespace ember::cuda {
namespace {

using ember::testing::OutIr;

class LaunchRecordsGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = CudaDevice::Probe(0);
    if (!why.empty()) GTEST_SKIP() << "needs a CUDA device: " << why;
    backend_ = MakeCudaBackend(0);
  }

  TensorHandle Upload(const std::vector<float>& values, const Shape& shape) {
    return backend_->FromHost(std::as_bytes(std::span(values)), shape, DType::kF32);
  }
  std::vector<float> Download(const TensorHandle& h) {
    std::vector<float> out(static_cast<size_t>(h.NumElements()));
    backend_->ToHost(h, std::as_writable_bytes(std::span(out)));
    return out;
  }
  // Element i (row-major over h's shape) of h's values as the host reads them.
  static float At(const std::vector<float>& base, const TensorHandle& h, int64_t i) {
    int64_t offset = h.offset;
    for (size_t d = h.shape.size(); d-- > 0;) {
      offset += (i % h.shape[d]) * h.strides[d];
      i /= h.shape[d];
    }
    return base[static_cast<size_t>(offset)];
  }

  // Runs the trace over x (values xs) and y (values ys), checks x * s + y, and returns the
  // output handle.
  TensorHandle RunChecked(const TensorHandle& x, const std::vector<float>& xs,
                          const TensorHandle& y, const std::vector<float>& ys, float s,
                          std::vector<bool> reusable = {false, false}) {
    FusedLaunch launch =
        ember::testing::Launch(trace_, {x, y}, {OutIr(x.shape)}, {x.shape}, {ScalarIr::Float(s)});
    launch.trace_serial = serial_;
    launch.reusable = std::move(reusable);
    std::vector<TensorHandle> out = backend_->ExecuteFused(launch);
    const std::vector<float> got = Download(out.at(0));
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      const float want = At(xs, x, i) * s + At(ys, y, i);
      EXPECT_NEAR(got[static_cast<size_t>(i)], want, 1e-5f * (1 + std::abs(want))) << "at " << i;
      if (HasFailure()) break;
    }
    return out.at(0);
  }

  KernelCounters Counters() const { return backend_->kernel_counters(); }

  std::unique_ptr<Backend> backend_;
  const FuseTrace trace_ = ember::testing::MulAddTrace(2);  // every launch here is rank 2
  const uint64_t serial_ = NewTraceSerial();
};

std::vector<float> Values(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(static_cast<int>(i % 97) - 48);
  return v;
}

TEST_F(LaunchRecordsGpuTest, TheSecondLaunchReplaysWithItsOwnScalarAndAddresses) {
  const Shape shape = {64, 48};
  const std::vector<float> xs = Values(64 * 48, 0.5f), ys = Values(64 * 48, -0.25f);
  const TensorHandle x = Upload(xs, shape), y = Upload(ys, shape);
  RunChecked(x, xs, y, ys, 2.0f);
  EXPECT_EQ(Counters().record_misses, 1u);
  EXPECT_EQ(Counters().record_hits, 0u);
  // Other buffers of the same layout, another scalar: a hit that computes the new values.
  const std::vector<float> xs2 = Values(64 * 48, 1.5f), ys2 = Values(64 * 48, 3.0f);
  RunChecked(Upload(xs2, shape), xs2, Upload(ys2, shape), ys2, -0.75f);
  EXPECT_EQ(Counters().record_misses, 1u);
  EXPECT_EQ(Counters().record_hits, 1u);
}

TEST_F(LaunchRecordsGpuTest, EachChangedPartOfTheBindingMissesAndStillComputesRight) {
  const std::vector<float> xs = Values(64 * 64, 0.5f), ys = Values(64 * 64, -0.25f);
  const TensorHandle x = Upload(xs, {64, 64}), y = Upload(ys, {64, 64});
  RunChecked(x, xs, y, ys, 2.0f);
  uint64_t misses = Counters().record_misses;
  auto expect_miss = [&](const char* what) {
    EXPECT_EQ(Counters().record_misses, misses + 1) << what;
    misses = Counters().record_misses;
  };
  // A stride: x transposed (a view), the same shape.
  RunChecked(cpu::SwapDims(x, 0, 1), xs, y, ys, 2.0f);
  expect_miss("a changed stride");
  // The alignment: both read one element on, over one element fewer per row.
  const std::vector<Slice> shifted = {{0, 64}, {1, 64}};
  const TensorHandle x1 = cpu::SliceView(x, shifted), y1 = cpu::SliceView(y, shifted);
  RunChecked(x1, xs, y1, ys, 2.0f);
  expect_miss("a changed alignment");
  // An alias: x * s + x.
  RunChecked(x, xs, x, xs, 2.0f);
  expect_miss("an alias between inputs");
  // In place: a last use nobody else holds is written over.
  {
    TensorHandle fresh = Upload(xs, {64, 64});
    const Buffer* buffer = fresh.buffer.get();
    FusedLaunch launch = ember::testing::Launch(trace_, {std::move(fresh), y}, {OutIr({64, 64})},
                                                {Shape{64, 64}}, {ScalarIr::Float(2.0f)});
    launch.trace_serial = serial_;
    launch.reusable = {true, false};
    const std::vector<TensorHandle> out = backend_->ExecuteFused(launch);
    launch.inputs.clear();
    EXPECT_EQ(out.at(0).buffer.get(), buffer) << "not in place";
    const std::vector<float> got = Download(out[0]);
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_NEAR(got[i], xs[i] * 2.0f + ys[i], 1e-4f) << "at " << i;
      if (HasFailure()) break;
    }
    expect_miss("an in-place output");
  }
  // And each of them again: hits now.
  const uint64_t hits = Counters().record_hits;
  RunChecked(cpu::SwapDims(x, 0, 1), xs, y, ys, 3.0f);
  RunChecked(x1, xs, y1, ys, 3.0f);
  RunChecked(x, xs, x, xs, 3.0f);
  EXPECT_EQ(Counters().record_hits, hits + 3);
  EXPECT_EQ(Counters().record_misses, misses);
}

}  // namespace
}  // namespace ember::cuda

// cuBLASLt matrix products on a GPU, row-major as ember stores them, against a float64
// reference: f32 to 1e-5 (pure FP32, no TF32), f16 and bf16 with epilogues to their precision.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/core/half.h"
#include "engine/runtime/cuda/cublaslt_api.h"
#include "engine/runtime/cuda/pinned_staging.h"
#include "tests/runtime/cuda/cuda_test_util.h"

namespace ember::cuda {
namespace {

// A matrix batch on the host as float64, with the layout it has on the device.
struct HostOperand {
  std::vector<double> values;  // Already rounded to the dtype.
  CUdeviceptr device = 0;
};

double RoundTo(DType dtype, double value) {
  switch (dtype) {
    case DType::kF16: return HalfToFloat(FloatToHalf(static_cast<float>(value)));
    case DType::kBF16: return BFloat16ToFloat(FloatToBFloat16(static_cast<float>(value)));
    default: return static_cast<float>(value);
  }
}

double Gelu(double x) {
  return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}

class BlasLtTest : public testing::CudaTest {
 protected:
  void SetUp() override {
    testing::CudaTest::SetUp();
    if (IsSkipped()) return;
    try {
      CublasLt();
    } catch (const Error& error) {
      GTEST_SKIP() << "needs cuBLASLt: " << error.what();
    }
    staging_ = std::make_unique<PinnedStaging>(device_);
    blas_ = std::make_unique<BlasLt>(allocator_);
  }
  void TearDown() override {
    for (const DeviceBlock& block : blocks_) allocator_->Free(block);
  }

  // `count` random elements in [-1, 1] of `dtype`, uploaded.
  HostOperand Random(DType dtype, int64_t count, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    HostOperand operand;
    for (int64_t i = 0; i < count; ++i) operand.values.push_back(RoundTo(dtype, uniform(rng)));
    operand.device = Upload(dtype, operand.values);
    return operand;
  }

  CUdeviceptr Upload(DType dtype, const std::vector<double>& values) {
    const size_t size = values.size() * DTypeSize(dtype);
    std::vector<std::byte> bytes(size);
    for (size_t i = 0; i < values.size(); ++i) {
      const float f = static_cast<float>(values[i]);
      if (dtype == DType::kF32) {
        std::memcpy(&bytes[i * 4], &f, 4);
      } else {
        const uint16_t h = dtype == DType::kF16 ? FloatToHalf(f) : FloatToBFloat16(f);
        std::memcpy(&bytes[i * 2], &h, 2);
      }
    }
    blocks_.push_back(allocator_->Allocate(size, stream_->get()));
    staging_->Upload(bytes, blocks_.back().ptr, stream_->get());
    return blocks_.back().ptr;
  }

  CUdeviceptr Output(DType dtype, int64_t count) {
    blocks_.push_back(allocator_->Allocate(count * DTypeSize(dtype), stream_->get()));
    return blocks_.back().ptr;
  }

  std::vector<double> Download(DType dtype, CUdeviceptr ptr, int64_t count) {
    std::vector<std::byte> bytes(count * DTypeSize(dtype));
    staging_->Download(ptr, bytes, stream_->get());
    std::vector<double> values(count);
    for (int64_t i = 0; i < count; ++i) {
      if (dtype == DType::kF32) {
        float f;
        std::memcpy(&f, &bytes[i * 4], 4);
        values[i] = f;
      } else {
        uint16_t h;
        std::memcpy(&h, &bytes[i * 2], 2);
        values[i] = dtype == DType::kF16 ? HalfToFloat(h) : BFloat16ToFloat(h);
      }
    }
    return values;
  }

  // Runs `args` on operands it makes and returns max |C - reference| / max |reference|, with
  // the reference in float64 from the same (rounded) inputs.
  double RunAndCompare(MatmulArgs args) {
    const int64_t a_count = (args.batch - 1) * args.batch_stride_a + args.m * args.lda;
    const int64_t b_count = (args.batch - 1) * args.batch_stride_b + args.k * args.ldb;
    const int64_t c_count = (args.batch - 1) * args.batch_stride_c + args.m * args.ldc;
    const HostOperand a = Random(args.dtype, a_count, 1);
    const HostOperand b = Random(args.dtype, b_count, 2);
    const HostOperand bias = Random(args.dtype, args.n, 3);
    args.a = a.device;
    args.b = b.device;
    args.c = Output(args.dtype, c_count);
    args.bias = bias.device;
    blas_->Matmul(args, stream_->get());
    const std::vector<double> c = Download(args.dtype, args.c, c_count);

    const bool has_bias = args.epilogue == MatmulEpilogue::kBias ||
                          args.epilogue == MatmulEpilogue::kBiasRelu ||
                          args.epilogue == MatmulEpilogue::kBiasGelu;
    double max_error = 0;
    double max_reference = 0;
    for (int64_t batch = 0; batch < args.batch; ++batch) {
      for (int64_t i = 0; i < args.m; ++i) {
        for (int64_t j = 0; j < args.n; ++j) {
          double sum = 0;
          for (int64_t p = 0; p < args.k; ++p) {
            sum += a.values[batch * args.batch_stride_a + i * args.lda + p] *
                   b.values[batch * args.batch_stride_b + p * args.ldb + j];
          }
          if (has_bias) sum += bias.values[j];
          if (args.epilogue == MatmulEpilogue::kRelu ||
              args.epilogue == MatmulEpilogue::kBiasRelu) {
            sum = std::max(sum, 0.0);
          }
          if (args.epilogue == MatmulEpilogue::kGelu ||
              args.epilogue == MatmulEpilogue::kBiasGelu) {
            sum = Gelu(sum);
          }
          const double got = c[batch * args.batch_stride_c + i * args.ldc + j];
          max_error = std::max(max_error, std::abs(got - sum));
          max_reference = std::max(max_reference, std::abs(sum));
        }
      }
    }
    return max_error / max_reference;
  }

  std::unique_ptr<PinnedStaging> staging_;
  std::unique_ptr<BlasLt> blas_;
  std::vector<DeviceBlock> blocks_;
};

TEST_F(BlasLtTest, F32SmallMatchesFloat64) {
  EXPECT_LT(RunAndCompare({.m = 7, .n = 5, .k = 3, .lda = 3, .ldb = 5, .ldc = 5}), 1e-5);
}

TEST_F(BlasLtTest, F32PaddedLeadingDimensionsMatchFloat64) {
  EXPECT_LT(RunAndCompare({.m = 64, .n = 48, .k = 300, .lda = 303, .ldb = 49, .ldc = 50}), 1e-5);
}

TEST_F(BlasLtTest, F32BatchedWithBroadcastMatchesFloat64) {
  // A shared by every batch (stride 0), B per batch.
  EXPECT_LT(RunAndCompare({.m = 33,
                           .n = 17,
                           .k = 129,
                           .batch = 4,
                           .lda = 129,
                           .batch_stride_a = 0,
                           .ldb = 17,
                           .batch_stride_b = 129 * 17,
                           .ldc = 17,
                           .batch_stride_c = 33 * 17}),
            1e-5);
  // B shared, A per batch.
  EXPECT_LT(RunAndCompare({.m = 20,
                           .n = 31,
                           .k = 64,
                           .batch = 3,
                           .lda = 64,
                           .batch_stride_a = 20 * 64,
                           .ldb = 31,
                           .batch_stride_b = 0,
                           .ldc = 31,
                           .batch_stride_c = 20 * 31}),
            1e-5);
}

TEST_F(BlasLtTest, F32BiasEpilogueMatchesFloat64) {
  EXPECT_LT(RunAndCompare({.m = 16,
                           .n = 24,
                           .k = 40,
                           .lda = 40,
                           .ldb = 24,
                           .ldc = 24,
                           .epilogue = MatmulEpilogue::kBias}),
            1e-5);
}

TEST_F(BlasLtTest, F16BiasGeluMatchesFloat64ToHalfPrecision) {
  EXPECT_LT(RunAndCompare({.dtype = DType::kF16,
                           .m = 64,
                           .n = 128,
                           .k = 256,
                           .lda = 256,
                           .ldb = 128,
                           .ldc = 128,
                           .epilogue = MatmulEpilogue::kBiasGelu}),
            2e-3);
}

TEST_F(BlasLtTest, F16PlainAndBf16BiasReluMatch) {
  EXPECT_LT(RunAndCompare(
                {.dtype = DType::kF16, .m = 40, .n = 24, .k = 72, .lda = 72, .ldb = 24, .ldc = 24}),
            2e-3);
  EXPECT_LT(RunAndCompare({.dtype = DType::kBF16,
                           .m = 40,
                           .n = 24,
                           .k = 72,
                           .batch = 2,
                           .lda = 72,
                           .batch_stride_a = 40 * 72,
                           .ldb = 24,
                           .batch_stride_b = 72 * 24,
                           .ldc = 24,
                           .batch_stride_c = 40 * 24,
                           .epilogue = MatmulEpilogue::kBiasRelu}),
            1.6e-2);
}

TEST_F(BlasLtTest, AlgorithmIsChosenOncePerShape) {
  const MatmulArgs args = {.m = 8, .n = 8, .k = 8, .lda = 8, .ldb = 8, .ldc = 8};
  RunAndCompare(args);
  RunAndCompare(args);
  EXPECT_EQ(blas_->cached_plans(), 1u);
  RunAndCompare({.m = 8, .n = 8, .k = 16, .lda = 16, .ldb = 8, .ldc = 8});
  EXPECT_EQ(blas_->cached_plans(), 2u);
}

TEST_F(BlasLtTest, IntegerDtypeIsRefused) {
  const CUdeviceptr buffer = Output(DType::kF32, 64);
  try {
    blas_->Matmul({.dtype = DType::kI32,
                   .m = 2,
                   .n = 2,
                   .k = 2,
                   .a = buffer,
                   .lda = 2,
                   .b = buffer,
                   .ldb = 2,
                   .c = buffer,
                   .ldc = 2},
                  stream_->get());
    FAIL() << "an i32 matmul ran";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "cuBLASLt matmul supports f32, f16 and bf16, not i32");
  }
}

}  // namespace
}  // namespace ember::cuda

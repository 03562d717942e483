// ExportMemory and FromBytes (ember/memory.h, Tensor::FromBytes): the zero-copy export hands
// out the computed buffer, keeps it alive and unchanged while its owner is held, and syncs as
// ToVector does; FromBytes takes stored elements of every dtype and refuses a wrong size.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "tests/api/api_test_util.h"

namespace ember {
namespace {

using testing::OnFreshStream;

std::vector<float> ReadF32(const TensorMemory& m, size_t n) {
  std::vector<float> out(n);
  std::memcpy(out.data(), m.data, n * sizeof(float));
  return out;
}

TEST(ExportMemory, SyncsAndHandsOutTheComputedBuffer) {
  OnFreshStream([] {
    Tensor a = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
    Tensor y = a * 2.0 + 1.0;  // queued: the export must run it
    TensorMemory m = ExportMemory(y);
    EXPECT_EQ(m.shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(m.strides, (std::vector<int64_t>{3, 1}));
    EXPECT_EQ(m.dtype, DType::kF32);
    EXPECT_EQ(m.device, Device::Cpu());
    EXPECT_EQ(ReadF32(m, 6), (std::vector<float>{3, 5, 7, 9, 11, 13}));
    // The same buffer again: no copy was made.
    EXPECT_EQ(ExportMemory(y).data, m.data);
  });
}

TEST(ExportMemory, AViewKeepsItsStrides) {
  OnFreshStream([] {
    Tensor a = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
    Tensor t = a.Permute({1, 0});
    TensorMemory m = ExportMemory(t);
    ASSERT_EQ(m.shape, (std::vector<int64_t>{3, 2}));
    const float* p = static_cast<const float*>(m.data);
    // Element [i][j] of the transpose is a[j][i].
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t j = 0; j < 2; ++j) {
        EXPECT_EQ(p[i * m.strides[0] + j * m.strides[1]], static_cast<float>(j * 3 + i + 1));
      }
    }
  });
}

TEST(ExportMemory, HeldBufferIsNeverReusedInPlace) {
  OnFreshStream([] {
    Tensor a = Tensor::FromVector<float>({1, 2, 3, 4}, {4});
    TensorMemory m = ExportMemory(a);
    // The last use of `a`: without the export its buffer would take the result in place.
    Tensor b = (std::move(a) + 10.0).Exp();
    EXPECT_NEAR(b.ToVector<float>()[0], std::exp(11.0f), 1e-2);
    EXPECT_EQ(ReadF32(m, 4), (std::vector<float>{1, 2, 3, 4}));
  });
}

TEST(ExportMemory, OwnerOutlivesTheTensor) {
  OnFreshStream([] {
    TensorMemory m;
    {
      Tensor a = Tensor::Full({64}, 3.0, DType::kF32);
      m = ExportMemory(a);
    }  // a's Drop is queued: the buffer must stay with the owner
    Sync();
    // New buffers of the same size must not land on the exported one.
    Tensor c = Tensor::Full({64}, 9.0, DType::kF32) + 1.0;
    EXPECT_EQ(c.ToVector<float>()[0], 10.0f);
    EXPECT_EQ(ReadF32(m, 64), std::vector<float>(64, 3.0f));
    m.owner.reset();
  });
}

TEST(ExportMemory, FromAnotherThreadSharesTheTensor) {
  Tensor y;
  OnFreshStream([&] { y = Tensor::FromVector<float>({1, 2}, {2}) * 3.0; });
  OnFreshStream([&] {
    TensorMemory m = ExportMemory(y);
    EXPECT_EQ(ReadF32(m, 2), (std::vector<float>{3, 6}));
  });
}

TEST(ExportMemory, EmptyTensorIsAnError) { EXPECT_THROW(ExportMemory(Tensor()), Error); }

TEST(FromBytes, TakesStoredElementsOfEveryDtype) {
  OnFreshStream([] {
    const std::vector<int64_t> i64 = {1, -2, 1LL << 40};
    EXPECT_EQ(
        Tensor::FromBytes(std::as_bytes(std::span(i64)), {3}, DType::kI64).ToVector<int64_t>(),
        i64);
    const std::vector<uint16_t> f16 = {0x3C00, 0xC000};  // 1.0, -2.0
    EXPECT_EQ(Tensor::FromBytes(std::as_bytes(std::span(f16)), {2}, DType::kF16).ToVector<float>(),
              (std::vector<float>{1.0f, -2.0f}));
    const std::vector<uint16_t> bf16 = {0x3F80, 0x4040};  // 1.0, 3.0
    EXPECT_EQ(
        Tensor::FromBytes(std::as_bytes(std::span(bf16)), {2, 1}, DType::kBF16).ToVector<float>(),
        (std::vector<float>{1.0f, 3.0f}));
    const std::vector<std::byte> b = {std::byte{1}, std::byte{0}};
    EXPECT_EQ(Tensor::FromBytes(b, {2}, DType::kBool).ToVector<bool>(),
              (std::vector<bool>{true, false}));
  });
}

TEST(FromBytes, RefusesAWrongSizeABadBoolAndAnUnknownDtype) {
  OnFreshStream([] {
    const std::vector<float> f = {1, 2, 3};
    try {
      Tensor::FromBytes(std::as_bytes(std::span(f)), {2, 2}, DType::kF32);
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), "ember: FromBytes: 12 bytes for shape [2,2] of f32; expected 16");
    }
    const std::vector<std::byte> b = {std::byte{2}};
    EXPECT_THROW(Tensor::FromBytes(b, {1}, DType::kBool), Error);
    EXPECT_THROW(Tensor::FromBytes(b, {1}, static_cast<DType>(17)), Error);
    EXPECT_TRUE(testing::CurrentQueue().global.empty());  // nothing was queued
  });
}

}  // namespace
}  // namespace ember

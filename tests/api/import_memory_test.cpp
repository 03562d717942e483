// ImportMemory (ember/memory.h): host memory is borrowed without a copy where ember can read
// it as it is (the tensor's memory is the producer's: ExportMemory hands out the same address,
// and a write by the producer is seen by later reads), ember never writes it, the owner goes
// when the last tensor does, and memory that cannot be borrowed is copied.
#include <cmath>
#include <cstring>
#include <thread>

#include <gtest/gtest.h>

#include "tests/api/api_test_util.h"

namespace ember {
namespace {

using testing::OnFreshStream;

// Host memory lent to ember through an owner that counts its releases.
// The tensors a test makes are dropped lazily: the lender syncs the calling thread's stream
// before its memory and counter go, so that their Drops have run.
struct Lender {
  explicit Lender(std::vector<float> v) : values(std::move(v)) {}
  ~Lender() { Sync(); }

  // `shape` and `strides` over values[first...].
  TensorMemory Lend(std::vector<int64_t> shape, std::vector<int64_t> strides = {},
                    size_t first = 0) {
    TensorMemory m;
    m.data = values.data() + first;
    m.shape = std::move(shape);
    m.strides = std::move(strides);
    m.dtype = DType::kF32;
    m.owner = std::shared_ptr<const void>(values.data(), [this](const void*) { ++releases; });
    return m;
  }

  std::vector<float> values;
  std::atomic<int> releases{0};
};

TEST(ImportMemory, BorrowsHostMemoryWithoutACopy) {
  OnFreshStream([] {
    Lender lender({1, 2, 3, 4, 5, 6});
    const TensorMemory memory = lender.Lend({2, 3});
    EXPECT_EQ(ImportCopyReason(memory), "");
    Tensor t = ImportMemory(memory);
    EXPECT_EQ(ExportMemory(t).data, lender.values.data());
    EXPECT_EQ(t.ToVector<float>(), lender.values);
    // An alias: the producer's write is seen by a read that runs after it.
    lender.values[0] = 10;
    EXPECT_EQ((t * 2.0).ToVector<float>()[0], 20.0f);
  });
}

TEST(ImportMemory, LastUseNeverWritesTheProducersMemory) {
  OnFreshStream([] {
    Lender lender(std::vector<float>(4096, 1.0f));
    Tensor t = ImportMemory(lender.Lend({4096}));
    // The last use of `t`: an owned buffer would take the result in place (fused or not).
    Tensor y = (std::move(t) + 1.0).Exp();
    Tensor z = ImportMemory(lender.Lend({4096})).Neg();
    EXPECT_NEAR(y.ToVector<float>()[7], std::exp(2.0f), 1e-4);
    EXPECT_EQ(z.ToVector<float>()[7], -1.0f);
    EXPECT_EQ(lender.values, std::vector<float>(4096, 1.0f));
  });
}

TEST(ImportMemory, ReleasesTheOwnerWhenTheLastTensorGoes) {
  OnFreshStream([] {
    Lender lender({1, 2, 3, 4});
    Tensor t = ImportMemory(lender.Lend({4}));
    Tensor view = t.Reshape({2, 2});
    t = Tensor();
    Sync();
    EXPECT_EQ(lender.releases, 0);  // the view still reads it
    TensorMemory exported = ExportMemory(view);
    view = Tensor();
    Sync();
    EXPECT_EQ(lender.releases, 0);  // and so does the export
    exported.owner.reset();
    EXPECT_EQ(lender.releases, 1);
  });
}

TEST(ImportMemory, BorrowsATransposeWithItsStrides) {
  OnFreshStream([] {
    Lender lender({0, 1, 2, 3, 4, 5});
    // The transpose of a [2,3] row-major matrix.
    Tensor t = ImportMemory(lender.Lend({3, 2}, {1, 3}));
    EXPECT_EQ(ExportMemory(t).data, lender.values.data());
    EXPECT_EQ(t.ToVector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  });
}

TEST(ImportMemory, BorrowsNegativeStrides) {
  OnFreshStream([] {
    Lender lender({0, 1, 2, 3, 4, 5});
    // Rows reversed (data at the last row, a negative stride), every other column.
    Tensor reversed = ImportMemory(lender.Lend({2, 2}, {-3, 2}, 3));
    EXPECT_EQ(ExportMemory(reversed).data, lender.values.data() + 3);
    EXPECT_EQ(reversed.ToVector<float>(), (std::vector<float>{3, 5, 0, 2}));
    EXPECT_EQ((reversed * 2.0).ToVector<float>(), (std::vector<float>{6, 10, 0, 4}));
  });
}

TEST(ImportMemory, BorrowsABroadcastStride) {
  OnFreshStream([] {
    Lender lender({0, 1, 2, 3, 4, 5});
    // A broadcast row (stride 0) through a reduction and a matmul.
    Tensor rows = ImportMemory(lender.Lend({4, 3}, {0, 1}));
    EXPECT_EQ(rows.SumDim(0).ToVector<float>(), (std::vector<float>{0, 4, 8}));
    Tensor ones = Tensor::Ones({3, 1}, DType::kF32);
    EXPECT_EQ(rows.Matmul(ones).ToVector<float>(), (std::vector<float>{3, 3, 3, 3}));
    EXPECT_EQ(lender.values, (std::vector<float>{0, 1, 2, 3, 4, 5}));
  });
}

// The kernels need only element alignment (cpu_buffer.h): memory 4 bytes past a cache line is
// borrowed, and every kind of kernel reads it right.
TEST(ImportMemory, KernelsReadMemoryAlignedToTheElementOnly) {
  OnFreshStream([] {
    std::vector<float> values(1 + 64 * 33);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 7) - 3.0f;
    Lender lender(values);
    size_t first = 0;
    while (reinterpret_cast<uintptr_t>(lender.values.data() + first) % 64 != 4) ++first;
    const std::vector<float> expected(values.begin() + first, values.begin() + first + 64 * 32);
    Tensor copy = Tensor::FromVector(expected, {64, 32});
    Tensor t = ImportMemory(lender.Lend({64, 32}, {}, first));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(ExportMemory(t).data) % 64, 4u);
    auto same = [](Tensor a, Tensor b) { EXPECT_EQ(a.ToVector<float>(), b.ToVector<float>()); };
    same((t.Exp() * 2.0 + t).SumDim(1), (copy.Exp() * 2.0 + copy).SumDim(1));
    same(t.Matmul(t.Permute({1, 0})), copy.Matmul(copy.Permute({1, 0})));
    same(t.MaxDim(0), copy.MaxDim(0));
    same(t.Cast(DType::kF16).Cast(DType::kF32), copy.Cast(DType::kF16).Cast(DType::kF32));
  });
}

TEST(ImportMemory, CopiesWhatCannotBeBorrowed) {
  OnFreshStream([] {
    Lender lender({1, 2, 3, 4, 5});
    TensorMemory misaligned = lender.Lend({4});
    misaligned.data = reinterpret_cast<std::byte*>(lender.values.data()) + 2;
    EXPECT_NE(ImportCopyReason(misaligned).find("not aligned"), std::string::npos);
    float expected[4];
    std::memcpy(expected, misaligned.data, sizeof(expected));
    const void* data = misaligned.data;
    Tensor t = ImportMemory(std::move(misaligned));
    EXPECT_EQ(lender.releases, 1);  // the copy is made: the owner went before the return
    EXPECT_NE(ExportMemory(t).data, data);
    EXPECT_EQ(t.ToVector<float>(), std::vector<float>(expected, expected + 4));

    const ImportMemoryOptions copy{.copy = true};
    EXPECT_EQ(ImportCopyReason(lender.Lend({2, 2}, {1, 2}), copy), "a copy was asked for");
    Tensor c = ImportMemory(lender.Lend({2, 2}, {1, 2}), copy);
    EXPECT_NE(ExportMemory(c).data, lender.values.data());
    EXPECT_EQ(c.ToVector<float>(), (std::vector<float>{1, 3, 2, 4}));
  });
}

TEST(ImportMemory, BoolMemoryIsBorrowedAndCheckedForZeroOrOne) {
  OnFreshStream([] {
    std::vector<uint8_t> bytes = {1, 0, 1};
    TensorMemory m{.data = bytes.data(), .shape = {3}, .dtype = DType::kBool};
    EXPECT_EQ(ImportMemory(m).ToVector<bool>(), (std::vector<bool>{true, false, true}));
    bytes[1] = 2;
    EXPECT_THROW(ImportMemory(m), Error);
  });
}

TEST(ImportMemory, RefusesMemoryItCannotDescribe) {
  OnFreshStream([] {
    Lender lender({1, 2, 3, 4});
    TensorMemory null = lender.Lend({4});
    null.data = nullptr;
    EXPECT_THROW(ImportMemory(std::move(null)), Error);
    EXPECT_THROW(ImportMemory(lender.Lend({0})), Error);          // no empty tensors
    EXPECT_THROW(ImportMemory(lender.Lend({2, 2}, {1})), Error);  // a stride per dim
    EXPECT_THROW(ImportMemory(lender.Lend({3, 3}, {int64_t{1} << 62, 1})), Error);
    TensorMemory unknown = lender.Lend({4});
    unknown.dtype = static_cast<DType>(17);
    EXPECT_THROW(ImportMemory(std::move(unknown)), Error);
    EXPECT_EQ(lender.releases, 5);  // each refused owner was released, none kept
    EXPECT_TRUE(testing::CurrentQueue().global.empty());  // nothing was queued
  });
}

// ember's own exported memory, borrowed back: its owner is released under the device's lock
// when the borrowed tensor goes, and must not take that lock again (tensor_memory.cpp).
TEST(ImportMemory, ExportedMemoryBorrowedBackIsReleasedWithoutDeadlock) {
  OnFreshStream([] {
    Tensor a = Tensor::FromVector<float>({1, 2, 3}, {3}) * 2.0;
    TensorMemory exported = ExportMemory(a);
    Tensor b = ImportMemory(exported);
    exported.owner.reset();
    a = Tensor();
    EXPECT_EQ((std::move(b) + 1.0).ToVector<float>(), (std::vector<float>{3, 5, 7}));
    Sync();
  });
}

TEST(ImportMemory, ThreadsImportAndDropSideBySide) {
  Lender lender(std::vector<float>(1000, 2.0f));
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&lender, i] {
      for (int k = 0; k < 20; ++k) {
        Tensor t = ImportMemory(lender.Lend({1000}));
        EXPECT_EQ((std::move(t) * static_cast<double>(i)).Sum().ToVector<float>()[0], 2000.0f * i);
      }
      Sync();
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(lender.releases, 80);
  EXPECT_EQ(lender.values, std::vector<float>(1000, 2.0f));
}

// The CPU runs each call to completion: no native queue for a producer to order its writes
// before (device memory's streams are checked by tests/gpu/import_memory_gpu_test.cpp).
TEST(ImportMemory, TheCpuHasNoNativeStream) { EXPECT_EQ(NativeStream(Device::Cpu()), 0u); }

}  // namespace
}  // namespace ember

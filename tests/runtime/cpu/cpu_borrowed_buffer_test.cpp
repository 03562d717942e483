// Borrowed host memory (Note [Borrowed host memory], engine/runtime/cpu/cpu_buffer.h): a
// borrowed CpuBuffer releases its owner, not the BufferCache, when the last handle goes, and
// ember never writes it: MayWriteInPlace refuses it, so neither an unfused elementwise op
// (map_tiles.cpp) nor a fused trace (fused_outputs.cpp) takes its buffer for a last use.
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "engine/runtime/cpu/buffer_cache.h"
#include "engine/runtime/cpu/cpu_buffer.h"
#include "tests/runtime/fused_test_util.h"

namespace ember {
namespace {

using testing::Harness;
using testing::WithStatus;
using V = std::vector<double>;

// Host memory the test owns, lent through an owner that counts its releases.
struct Lender {
  std::vector<float> values;
  int releases = 0;

  // A contiguous handle over `values` (which must not be resized while it lives).
  TensorHandle Lend(const Shape& shape) {
    auto owner = std::shared_ptr<const void>(
        this, [](const void* p) { ++static_cast<Lender*>(const_cast<void*>(p))->releases; });
    TensorHandle handle;
    handle.buffer =
        std::make_shared<cpu::CpuBuffer>(reinterpret_cast<std::byte*>(values.data()),
                                         values.size() * sizeof(float), std::move(owner));
    handle.shape = shape;
    handle.strides = TensorHandle::ContiguousStrides(shape);
    handle.dtype = DType::kF32;
    return handle;
  }
};

TEST(CpuBorrowedBuffer, ReleasesItsOwnerNotTheCache) {
  Lender lender{.values = {1, 2, 3, 4}};
  const size_t cached = cpu::BufferCache::Global().stats().cached_bytes;
  {
    TensorHandle a = lender.Lend({4});
    TensorHandle view = a;  // a second handle: the memory stays lent
    EXPECT_EQ(cpu::ElementData(a), reinterpret_cast<std::byte*>(lender.values.data()));
    EXPECT_TRUE(static_cast<const cpu::CpuBuffer*>(a.buffer.get())->borrowed());
    a = {};
    EXPECT_EQ(lender.releases, 0);
  }
  EXPECT_EQ(lender.releases, 1);
  EXPECT_EQ(cpu::BufferCache::Global().stats().cached_bytes, cached);
}

TEST(CpuBorrowedBuffer, MayWriteInPlaceRefusesBorrowedMemoryOnly) {
  Lender lender{.values = {1, 2}};
  const TensorHandle borrowed = lender.Lend({2});
  EXPECT_FALSE(cpu::MayWriteInPlace(borrowed));  // the only handle, yet not ember's memory
  const TensorHandle owned = cpu::NewHandle({2}, DType::kF32);
  EXPECT_TRUE(cpu::MayWriteInPlace(owned));
  const TensorHandle shared = owned;
  EXPECT_FALSE(cpu::MayWriteInPlace(owned));
  EXPECT_FALSE(cpu::MayWriteInPlace(TensorHandle{}));
}

// Another backend's buffer (the CUDA backend asks MayWriteInPlace for its fused launches):
// borrowed() is the buffer's own answer, not a field read through a cast to CpuBuffer.
class OtherBuffer final : public Buffer {
 public:
  explicit OtherBuffer(bool borrowed) : borrowed_(borrowed) {}
  size_t size() const override { return 8; }
  std::string_view backend() const override { return "other"; }
  bool borrowed() const override { return borrowed_; }

 private:
  bool borrowed_;
};

TEST(CpuBorrowedBuffer, MayWriteInPlaceAsksAnyBackendsBuffer) {
  TensorHandle lent{.buffer = std::make_shared<OtherBuffer>(true), .shape = {2}};
  EXPECT_FALSE(cpu::MayWriteInPlace(lent));
  TensorHandle own{.buffer = std::make_shared<OtherBuffer>(false), .shape = {2}};
  EXPECT_TRUE(cpu::MayWriteInPlace(own));
}

TEST(CpuBorrowedBuffer, UnfusedLastUseWritesANewBuffer) {
  Harness h;
  Lender lender{.values = {0, 1, 2}};
  const TensorIr a{1000, {3}, TensorStatus::kReadOnly, DType::kF32};
  h.handles().Register(a.id, lender.Lend({3}));
  const TensorIr out =
      h.Exec(ir::Unary(OpKind::kExp, WithStatus(a, TensorStatus::kReadWrite), h.Output({3})));
  EXPECT_NE(cpu::ElementData(h.Handle(out)), reinterpret_cast<std::byte*>(lender.values.data()));
  EXPECT_EQ(h.Values(out), (V{1, std::exp(1.0f), std::exp(2.0f)}));
  EXPECT_EQ(lender.values, (std::vector<float>{0, 1, 2}));
  EXPECT_EQ(lender.releases, 1);  // the last use dropped the handle: the memory went back
}

TEST(CpuBorrowedBuffer, FusedLastUseWritesANewBuffer) {
  using namespace testing;  // NOLINT: the trace builders
  const Shape shape = {3, 1000};
  const std::unique_ptr<Backend> backend = cpu::MakeCpuBackend(2);
  FuseTrace trace;  // out0 = exp(in0) + in1
  trace.blocks.push_back({.reads = {Assign(Local(0), InArg(0)), Assign(Local(1), InArg(1))},
                          .ops = {Op(FuseOpKind::kExp, Local(2), Local(0)),
                                  Op(FuseOpKind::kAdd, Local(3), Local(2), Local(1))},
                          .writes = {Assign(OutArg(0), Local(3))}});
  trace.resources = Resources(2, 1);
  Lender lender{.values = std::vector<float>(3000, 0.5f)};
  const std::vector<double> ones(3000, 1.0);
  FusedLaunch launch =
      Launch(trace, {lender.Lend(shape), MakeHandle(*backend, shape, DType::kF32, ones)},
             {TensorIr{1, shape, TensorStatus::kNotInit, DType::kF32}}, {shape});
  launch.reusable = {true, false};
  const std::vector<TensorHandle> out = backend->ExecuteFused(launch);
  EXPECT_NE(out[0].buffer, launch.inputs[0].buffer);
  EXPECT_EQ(lender.values, std::vector<float>(3000, 0.5f));
  EXPECT_NEAR(ReadValues(*backend, out[0])[2999], std::exp(0.5) + 1.0, 1e-5);
}

}  // namespace
}  // namespace ember

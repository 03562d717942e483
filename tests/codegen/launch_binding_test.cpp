// The launch record key (codegen/launch_binding.h): every fact PlanTrace decides from changes
// it (a record is used only when every part matches), and nothing else does.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "codegen/launch_binding.h"

namespace ember::codegen {
namespace {

struct Tensor {
  DType dtype = DType::kF32;
  std::vector<int64_t> shape = {8, 16};
  std::vector<int64_t> strides = {16, 1};
  uint64_t address = 0x7f0000000000;
};

// Two inputs and an output over one block of [8, 16], with one scalar.
LaunchBinding Bind(std::vector<Tensor> tensors, std::vector<int64_t> block = {8, 16},
                   size_t scalars = 1) {
  LaunchBinding b;
  for (const Tensor& t : tensors) b.AddTensor(t.dtype, t.shape, t.strides, t.address);
  b.AddBlockShape(block);
  b.SetScalars(scalars);
  return b;
}

std::vector<Tensor> Three() {
  std::vector<Tensor> t(3);
  t[1].address += 4096;
  t[2].address += 8192;
  return t;
}

TEST(LaunchBinding, EqualFactsGiveEqualKeysWhateverTheAddresses) {
  std::vector<Tensor> moved = Three();
  for (Tensor& t : moved) t.address += 1 << 20;  // other buffers, the same alignment
  EXPECT_EQ(Bind(Three()), Bind(moved));
  EXPECT_EQ(Bind(Three()).Hash(), Bind(moved).Hash());
}

TEST(LaunchBinding, EveryPartOfTheKeyChangesIt) {
  const LaunchBinding base = Bind(Three());
  auto differs = [&](const LaunchBinding& other, const char* what) {
    EXPECT_FALSE(base == other) << what;
    EXPECT_NE(base.Hash(), other.Hash()) << what;
  };
  std::vector<Tensor> t = Three();
  t[0].strides = {1, 8};  // the same shape, transposed
  differs(Bind(t), "a changed stride");
  t = Three();
  t[1].dtype = DType::kF16;
  differs(Bind(t), "a changed dtype");
  t = Three();
  t[0].address += 4;  // one f32 element on: no 16-byte vectors
  differs(Bind(t), "a changed alignment");
  t = Three();
  t[1].address = t[0].address;  // x op x
  differs(Bind(t), "an alias between inputs");
  t = Three();
  t[2].address = t[0].address;  // the output written over input 0
  differs(Bind(t), "an in-place output");
  t = Three();
  t[0].shape = {1, 16};
  t[0].strides = {16, 1};
  differs(Bind(t), "a broadcast shape");
  differs(Bind(Three(), {16, 8}), "another block shape");
  differs(Bind(Three(), {8, 16}, 2), "another scalar count");
  t = Three();
  t.pop_back();
  differs(Bind(t), "a tensor fewer");
}

TEST(LaunchBinding, AlignmentCountsUpTo256Bytes) {
  std::vector<Tensor> a = Three(), b = Three();
  a[0].address = 0x100;
  b[0].address = 0x1000;  // both at least 256-byte aligned: PlanTrace sees no difference
  EXPECT_EQ(Bind(a), Bind(b));
  b[0].address = 0x180;  // 128 bytes: a 16-wide vector of 8-byte elements no longer fits
  EXPECT_FALSE(Bind(a) == Bind(b));
}

TEST(LaunchBinding, ClearStartsAnew) {
  LaunchBinding b = Bind(Three());
  b.Clear();
  for (const Tensor& t : Three()) b.AddTensor(t.dtype, t.shape, t.strides, t.address);
  b.AddBlockShape(std::vector<int64_t>{8, 16});
  b.SetScalars(1);
  EXPECT_EQ(b, Bind(Three()));
}

}  // namespace
}  // namespace ember::codegen

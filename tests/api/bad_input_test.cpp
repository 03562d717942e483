// Bad input at every public op and creator: wrong ranks, shapes and dtypes, bad axes, negative
// and huge sizes, shape products that overflow, NaN and infinity where a value must be finite,
// empty and released tensors, tensors of another device. Each case must throw ember::Error whose
// message names the op and the operands, queue nothing, run nothing, and leave the stream
// usable. One table (a file per family of ops, bad_input_*_test.cpp), one parameterized test; the
// values that look bad but are legitimate (NaN in a float tensor, infinite clamp bounds, a huge
// slice step) are checked to work at the end.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/api/api_test_util.h"
#include "tests/api/bad_input.h"

namespace ember::bad_input {
namespace {

using ::testing::HasSubstr;
using testing::OnFreshStream;
using ::testing::StartsWith;

TEST_P(BadInput, ThrowsANamedErrorQueuesNothingAndTheStreamStaysUsable) {
  const BadCall& c = GetParam();
  if (c.needs == Needs::kCuda && !CudaUsable()) GTEST_SKIP() << "no usable CUDA device";
  OnFreshStream([&] {
    Operands operands(c.needs);
    const Footprint before = Footprint::Now(c.needs);
    try {
      c.call(operands);
      ADD_FAILURE() << "expected ember::Error";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), StartsWith("ember: "));
      for (const std::string& part : c.message) EXPECT_THAT(e.what(), HasSubstr(part));
    } catch (const std::exception& e) {
      ADD_FAILURE() << "expected ember::Error, got another exception: " << e.what();
    }
    EXPECT_EQ(Footprint::Now(c.needs), before) << "a rejected call queued or ran something";
    // The stream still works: what was queued before runs, and a new computation is right.
    EXPECT_EQ((operands.i * 2.0).SumDim(1).ToVector<int64_t>(), (std::vector<int64_t>{12, 30}));
    EXPECT_EQ((Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}) + 1.0).ToVector<float>(),
              (std::vector<float>{2, 3, 4, 5, 6, 7}));
  });
}

// What looks like bad input but is not: NaN and infinity are values of a float tensor, rank 0
// is a shape, infinite clamp bounds clamp one side only, and a huge slice step takes the first
// element.
TEST(BadInputLegitimate, NaNAndInfinityAreFloatValues) {
  OnFreshStream([] {
    const std::vector<float> full = Tensor::Full({2}, kNaN, DType::kF32).ToVector<float>();
    EXPECT_TRUE(std::isnan(full[0]) && std::isnan(full[1]));
    Tensor x = Tensor::FromVector<float>({1, 2, 3}, {3});
    const std::vector<float> filled = x.MaskFill(x.Greater(1.5), kInf).ToVector<float>();
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(filled, (std::vector<float>{1, inf, inf}));
    EXPECT_EQ(x.Equal(kNaN).ToVector<bool>(), (std::vector<bool>{false, false, false}));
    EXPECT_TRUE(std::isnan((x + kNaN).ToVector<float>()[0]));
    EXPECT_EQ(x.Clamp(-kInf, 2.0).ToVector<float>(), (std::vector<float>{1, 2, 2}));
    EXPECT_EQ(x.Clamp(2.0, 2.0).ToVector<float>(), (std::vector<float>{2, 2, 2}));
  });
}

TEST(BadInputLegitimate, EdgeSizesAndValuesThatAreValid) {
  OnFreshStream([] {
    EXPECT_EQ(Tensor::Full({}, 7.0, DType::kI64).ToVector<int64_t>(), (std::vector<int64_t>{7}));
    EXPECT_EQ(Tensor::FromVector<float>({4}, {}).Reshape({1, 1}).Shape(),
              (std::vector<int64_t>{1, 1}));
    EXPECT_EQ(Tensor::RandomNormal({3}, DType::kF32, Device::Cpu(), 5.0, 0.0).ToVector<float>(),
              (std::vector<float>{5, 5, 5}));
    // An i32 tensor compares with values outside its range (computed in i64).
    Tensor i = Tensor::FromVector<int32_t>({-1, 0, 1}, {3});
    EXPECT_EQ(i.Lower(3e9).ToVector<bool>(), (std::vector<bool>{true, true, true}));
    EXPECT_EQ(Tensor::Full({2}, 2147483647.0, DType::kI32).ToVector<int32_t>(),
              (std::vector<int32_t>{2147483647, 2147483647}));
    EXPECT_EQ(Tensor::Full({1}, -2147483648.0, DType::kI32).ToVector<int32_t>(),
              (std::vector<int32_t>{-2147483648}));
    // The largest shape ember accepts is fine as long as it stays lazy (a view).
    EXPECT_EQ(Tensor::Zeros({1}, DType::kBool).Expand({k2e40}).NumElements(), k2e40);
  });
}

TEST(BadInputLegitimate, HugeSliceStepTakesOneElement) {
  OnFreshStream([] {
    Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
    Tensor first = x.Slice({Slice{}, Slice{0, {}, kInt64Max}});
    EXPECT_EQ(first.Shape(), (std::vector<int64_t>{2, 1}));
    EXPECT_EQ(first.ToVector<float>(), (std::vector<float>{1, 4}));
    Tensor last = x.Slice({Slice{}, Slice{0, {}, -kInt64Max}});
    EXPECT_EQ(last.ToVector<float>(), (std::vector<float>{3, 6}));
    Tensor whole = x.Slice({Slice{kInt64Min, kInt64Max, 1}});
    EXPECT_EQ(whole.Shape(), (std::vector<int64_t>{2, 3}));
  });
}

}  // namespace
}  // namespace ember::bad_input

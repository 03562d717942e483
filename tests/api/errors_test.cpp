// Bad input at the API throws ember::Error naming the op, the operands and what was expected,
// and queues nothing: a composite operator (a scalar on the left) is rejected as a whole, and
// tensors of a released engine and its successor do not mix.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/api/api_test_util.h"

namespace ember {
namespace {

using ::testing::AllOf;
using testing::CurrentQueue;
using ::testing::HasSubstr;
using testing::OnFreshStream;

// Runs `fn`, expects an ember::Error whose message matches `matcher`, and checks that the
// queue did not change.
template <typename Fn, typename Matcher>
void ExpectRejected(Fn fn, Matcher matcher) {
  const size_t before = CurrentQueue().global.size();
  try {
    fn();
    ADD_FAILURE() << "expected ember::Error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), matcher);
  }
  EXPECT_EQ(CurrentQueue().global.size(), before) << "a rejected call queued something";
}

TEST(ApiErrors, ShapeMismatchNamesOpShapesAndExpectation) {
  OnFreshStream([] {
    Tensor a = Tensor::Zeros({2, 3}, DType::kF32);
    Tensor b = Tensor::Zeros({4, 3}, DType::kF32);
    ExpectRejected([&] { (void)(a + b); },
                   AllOf(HasSubstr("Add"), HasSubstr("[2,3]"), HasSubstr("[4,3]"),
                         HasSubstr("expected equal sizes or 1")));
  });
}

TEST(ApiErrors, DtypeMismatch) {
  OnFreshStream([] {
    Tensor a = Tensor::Zeros({2}, DType::kF32);
    Tensor b = Tensor::Zeros({2}, DType::kI32);
    ExpectRejected([&] { (void)(a * b); },
                   AllOf(HasSubstr("Mul"), HasSubstr("[2] f32"), HasSubstr("[2] i32"),
                         HasSubstr("expected the same dtype")));
  });
}

TEST(ApiErrors, BadAxis) {
  OnFreshStream([] {
    Tensor a = Tensor::Zeros({2, 3}, DType::kF32);
    ExpectRejected([&] { (void)a.SumDim(2); },
                   AllOf(HasSubstr("SumDim"), HasSubstr("dim 2"), HasSubstr("rank 2")));
    ExpectRejected([&] { (void)a.SwapDims(0, -3); }, HasSubstr("SwapDims"));
    ExpectRejected([&] { (void)a.Permute({0, 0}); }, HasSubstr("permutation"));
    ExpectRejected([&] { (void)a.Permute({0}); }, HasSubstr("permutation"));
  });
}

TEST(ApiErrors, FloatOnlyOpsRejectIntAndBool) {
  OnFreshStream([] {
    Tensor i = Tensor::Zeros({2}, DType::kI64);
    Tensor b = Tensor::Zeros({2}, DType::kBool);
    ExpectRejected([&] { (void)i.Exp(); }, AllOf(HasSubstr("Exp"), HasSubstr("float")));
    ExpectRejected([&] { (void)(b + 1.0); }, HasSubstr("AddScalar"));
    ExpectRejected([&] { (void)b.Lower(b); }, HasSubstr("Lower"));
    ExpectRejected([&] { (void)Tensor::RandomNormal({2}, DType::kI32); }, HasSubstr("float dtype"));
  });
}

TEST(ApiErrors, FractionalScalarOnIntTensor) {
  OnFreshStream([] {
    Tensor i = Tensor::Ones({2}, DType::kI32);
    ExpectRejected([&] { (void)(i * 2.5); }, AllOf(HasSubstr("2.5"), HasSubstr("whole number")));
  });
}

TEST(ApiErrors, ReshapeAndExpandAndSlice) {
  OnFreshStream([] {
    Tensor a = Tensor::Zeros({2, 3}, DType::kF32);
    ExpectRejected(
        [&] {
          (void)a.Reshape({4, 2});
        },
        AllOf(HasSubstr("Reshape"), HasSubstr("6 elements"), HasSubstr("[4,2]")));
    ExpectRejected([&] { (void)a.Reshape({-1, -1}); }, HasSubstr("more than one -1"));
    ExpectRejected([&] { (void)a.Expand({4, 3}); }, HasSubstr("Expand"));
    ExpectRejected([&] { (void)a.Slice({Slice{0, 2, 0}}); }, HasSubstr("step 0"));
    ExpectRejected([&] { (void)a.Slice({Slice{2, 2, 1}}); }, HasSubstr("selects no element"));
    ExpectRejected(
        [&] {
          (void)a.Slice({Slice{0, {}, 1}, Slice{0, {}, 1}, Slice{0, {}, 1}});
        },
        HasSubstr("at most one per dim"));
  });
}

TEST(ApiErrors, MatmulShapes) {
  OnFreshStream([] {
    Tensor a = Tensor::Zeros({2, 3}, DType::kF32);
    Tensor b = Tensor::Zeros({4, 5}, DType::kF32);
    Tensor v = Tensor::Zeros({3}, DType::kF32);
    ExpectRejected([&] { (void)a.Matmul(b); },
                   AllOf(HasSubstr("Matmul"), HasSubstr("inner dims 3 and 4")));
    ExpectRejected([&] { (void)a.Matmul(v); }, HasSubstr("rank >= 2"));
  });
}

TEST(ApiErrors, IndicesAndMasks) {
  OnFreshStream([] {
    Tensor a = Tensor::Zeros({2, 3}, DType::kF32);
    Tensor fidx = Tensor::Zeros({2}, DType::kF32);
    Tensor idx2d = Tensor::Zeros({2, 3}, DType::kI64);
    ExpectRejected([&] { (void)a.Select(0, fidx); }, HasSubstr("i32 or i64"));
    ExpectRejected([&] { (void)a.Select(0, idx2d); }, HasSubstr("1-D"));
    ExpectRejected([&] { (void)a.MaskFill(a, 1.0); }, HasSubstr("bool"));
    ExpectRejected([&] { (void)Cat({}, 0); }, HasSubstr("at least one"));
    Tensor b = Tensor::Zeros({3, 3}, DType::kF32);
    ExpectRejected([&] { (void)Cat({a, b}, 1); }, HasSubstr("outside dim 1"));
  });
}

TEST(ApiErrors, WrongValueCountAndBadShapes) {
  OnFreshStream([] {
    ExpectRejected(
        [] {
          (void)Tensor::FromVector<float>({1, 2, 3}, {2, 2});
        },
        AllOf(HasSubstr("3 values"), HasSubstr("expected 4")));
    ExpectRejected([] { (void)Tensor::Zeros({2, 0}, DType::kF32); }, HasSubstr(">= 1"));
  });
}

TEST(ApiErrors, EmptyTensor) {
  OnFreshStream([] {
    Tensor empty;
    ExpectRejected([&] { (void)empty.Exp(); }, HasSubstr("empty"));
    ExpectRejected([&] { (void)empty.ToVector<float>(); }, HasSubstr("empty"));
  });
}

TEST(ApiErrors, ReadingWithTheWrongElementType) {
  OnFreshStream([] {
    Tensor a = Tensor::Zeros({2}, DType::kI32);
    ExpectRejected([&] { (void)a.ToVector<float>(); },
                   AllOf(HasSubstr("ToVector"), HasSubstr("i32")));
  });
}

TEST(ApiErrors, CudaUnavailableIsAClearError) {
  try {
    (void)Device::Cuda(0);
    SUCCEED() << "a CUDA device is available";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("CUDA"));
  }
  EXPECT_THROW((void)Device::Cuda(-1), Error);
}

TEST(ApiErrors, TensorOfAReleasedDeviceSaysSo) {
  OnFreshStream([] {
    Tensor a = Tensor::Ones({2}, DType::kF32);
    ReleaseDevice(Device::Cpu());
    try {
      (void)a.ToVector<float>();
      ADD_FAILURE() << "expected ember::Error";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), AllOf(HasSubstr("cpu"), HasSubstr("released")));
    }
    // The device works again with a fresh engine.
    Tensor b = Tensor::Full({2}, 5.0, DType::kF32);
    EXPECT_EQ(b.ToVector<float>(), (std::vector<float>{5, 5}));
  });
}

TEST(CompositeOperators, RejectedScalarOnTheLeftQueuesNothing) {
  OnFreshStream([] {
    Tensor i = Tensor::Ones({2}, DType::kI32);
    Tensor b = Tensor::Ones({2}, DType::kBool);
    const size_t before = CurrentQueue().global.size();
    EXPECT_THROW((void)(0.5 - i), Error);
    EXPECT_THROW((void)(1.0 / b), Error);
    EXPECT_THROW((void)(2.5 / i), Error);
    EXPECT_EQ(CurrentQueue().global.size(), before);
    EXPECT_EQ((3.0 - i).ToVector<int32_t>(), (std::vector<int32_t>{2, 2}));
  });
}

TEST(ReleasedDevice, MixingEnginesOfOneDeviceIsAnError) {
  OnFreshStream([] {
    Tensor old_engine = Tensor::Ones({2}, DType::kF32);
    ReleaseDevice(Device::Cpu());
    Tensor new_engine = Tensor::Ones({2}, DType::kF32);
    try {
      (void)(new_engine + new_engine);
      (void)(old_engine + new_engine);
      ADD_FAILURE() << "expected ember::Error";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("released"));
    }
  });
}

}  // namespace
}  // namespace ember

// ember::Error::kind() (ember/error.h): every check of the Tensor API's arguments says which
// kind of mistake it found, which the Python module turns into ValueError, TypeError or
// RuntimeError (engine/python/engine_bindings.cpp) instead of reading the message's words.
#include <gtest/gtest.h>

#include <functional>

#include "tests/api/api_test_util.h"

namespace ember {
namespace {

using testing::OnFreshStream;

ErrorKind KindOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.kind();
  }
  ADD_FAILURE() << "expected ember::Error";
  return ErrorKind::kRuntime;
}

TEST(ErrorKinds, ArgumentsTheCallCannotTakeAreInvalidArguments) {
  OnFreshStream([] {
    Tensor a = Tensor::Zeros({2, 3}, DType::kF32);
    Tensor b = Tensor::Zeros({4, 3}, DType::kF32);
    EXPECT_EQ(KindOf([&] { (void)(a + b); }), ErrorKind::kInvalidArgument);      // shapes
    EXPECT_EQ(KindOf([&] { (void)a.SumDim(5); }), ErrorKind::kInvalidArgument);  // a dim
    EXPECT_EQ(KindOf([&] { (void)a.Reshape({4, 2}); }), ErrorKind::kInvalidArgument);
    EXPECT_EQ(KindOf([&] {
                (void)Tensor::FromVector<float>({1, 2, 3}, {2, 2});
              }),
              ErrorKind::kInvalidArgument);                                         // a value count
    EXPECT_EQ(KindOf([&] { (void)Tensor().Exp(); }), ErrorKind::kInvalidArgument);  // empty
    EXPECT_EQ(KindOf([] { (void)Device::Cuda(-1); }), ErrorKind::kInvalidArgument);
  });
}

TEST(ErrorKinds, DtypesTheOpDoesNotTakeAreWrongDtypes) {
  OnFreshStream([] {
    Tensor f = Tensor::Zeros({2, 3}, DType::kF32);
    Tensor i = Tensor::Zeros({2, 3}, DType::kI32);
    Tensor b = Tensor::Zeros({2, 3}, DType::kBool);
    EXPECT_EQ(KindOf([&] { (void)i.Exp(); }), ErrorKind::kWrongDtype);
    EXPECT_EQ(KindOf([&] { (void)(f + i); }), ErrorKind::kWrongDtype);
    EXPECT_EQ(KindOf([&] { (void)b.Neg(); }), ErrorKind::kWrongDtype);
    EXPECT_EQ(KindOf([&] { (void)f.BitwiseAnd(int64_t{3}); }), ErrorKind::kWrongDtype);
    EXPECT_EQ(KindOf([&] { (void)(i + 2.5); }), ErrorKind::kWrongDtype);  // a fractional scalar
    EXPECT_EQ(KindOf([&] { (void)f.MaskFill(i, 1.0); }), ErrorKind::kWrongDtype);
    EXPECT_EQ(KindOf([&] { (void)f.ToVector<int32_t>(); }), ErrorKind::kWrongDtype);
    EXPECT_EQ(KindOf([&] { (void)f.Cast(static_cast<DType>(99)); }), ErrorKind::kWrongDtype);
  });
}

TEST(ErrorKinds, AReleasedEngineIsARuntimeError) {
  OnFreshStream([] {
    Tensor a = Tensor::Zeros({2}, DType::kF32);
    ReleaseDevice(Device::Cpu());
    EXPECT_EQ(KindOf([&] { (void)a.Exp(); }), ErrorKind::kRuntime);
    Tensor fresh = Tensor::Zeros({2}, DType::kF32);
    EXPECT_EQ(KindOf([&] { (void)(fresh + Tensor()); }), ErrorKind::kInvalidArgument);
  });
}

TEST(ErrorKinds, AnErrorWithoutAKindIsTheEnginesOwn) {
  EXPECT_EQ(Error("ember: something failed").kind(), ErrorKind::kRuntime);
  EXPECT_EQ(Error("x", ErrorKind::kWrongDtype).kind(), ErrorKind::kWrongDtype);
}

}  // namespace
}  // namespace ember

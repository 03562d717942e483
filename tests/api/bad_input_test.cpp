// Bad input at every public op and creator: wrong ranks, shapes and dtypes, bad axes, negative
// and huge sizes, shape products that overflow, NaN and infinity where a value must be finite,
// empty and released tensors, tensors of another device. Each case must throw ember::Error whose
// message names the op and the operands, queue nothing, run nothing, and leave the stream
// usable. One table, one parameterized test; the values that look bad but are legitimate (NaN
// in a float tensor, infinite clamp bounds, a huge slice step) are checked to work at the end.
#include <cmath>
#include <functional>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/api/api_test_util.h"

namespace ember {
namespace {

using testing::CurrentQueue;
using ::testing::HasSubstr;
using testing::OnFreshStream;
using ::testing::StartsWith;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t k2e20 = int64_t{1} << 20;
constexpr int64_t k2e21 = int64_t{1} << 21;
constexpr int64_t k2e39 = int64_t{1} << 39;
constexpr int64_t k2e40 = int64_t{1} << 40;
// A value outside the DType enum (e.g. read from a file and cast).
const DType kNoDtype = static_cast<DType>(6);

bool CudaUsable() {
  try {
    (void)Device::Cuda(0);
    return true;
  } catch (const Error&) {
    return false;
  }
}

// What a case needs beyond the CPU operands.
enum class Needs { kCpu, kStale, kCuda };

// The operands the bad calls use, made before the call is measured.
struct Operands {
  explicit Operands(Needs needs) {
    if (needs == Needs::kStale) {
      stale = Tensor::Ones({2, 3}, DType::kF32);
      stale_idx = Tensor::Zeros({2}, DType::kI64);
      ReleaseDevice(Device::Cpu());
    }
    if (needs == Needs::kCuda) {
      const Device gpu = Device::Cuda(0);
      cuda = Tensor::Zeros({2, 3}, DType::kF32, gpu);
      cuda_mask = Tensor::Zeros({2, 3}, DType::kBool, gpu);
      cuda_idx = Tensor::Zeros({2}, DType::kI64, gpu);
    }
    f = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
    i = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3});
    b = Tensor::Zeros({2, 3}, DType::kBool);
    g = Tensor::Zeros({3, 2}, DType::kF32);
    v4 = Tensor::Zeros({4}, DType::kF32);
    scalar = Tensor::Full({}, 2.0, DType::kF32);
    bool_scalar = Tensor::Ones({}, DType::kBool);
    mask32 = Tensor::Zeros({3, 2}, DType::kBool);
    idx = Tensor::Zeros({2}, DType::kI64);
    idx23 = Tensor::Zeros({2, 3}, DType::kI64);
    idx24 = Tensor::Zeros({2, 4}, DType::kI64);
    i32x2 = Tensor::Zeros({3, 2}, DType::kI32);
    batch2 = Tensor::Zeros({2, 2, 3}, DType::kF32);
    batch3 = Tensor::Zeros({3, 3, 2}, DType::kF32);
    // Large but lazy: Expand is a view, so these cost no memory; results made from them
    // would have 2^41 or more elements.
    tall = Tensor::Zeros({1, 1}, DType::kF32).Expand({k2e20, 1});
    wide = Tensor::Zeros({1, 1}, DType::kF32).Expand({1, k2e21});
    wide_mask = Tensor::Zeros({1, 1}, DType::kBool).Expand({1, k2e21});
    long_idx = Tensor::Zeros({1}, DType::kI64).Expand({k2e21});
    half = Tensor::Zeros({1}, DType::kF32).Expand({k2e39 + 1});
  }

  Tensor f;            // [2,3] f32, 1..6
  Tensor i;            // [2,3] i32, 1..6
  Tensor b;            // [2,3] bool
  Tensor g;            // [3,2] f32
  Tensor v4;           // [4] f32
  Tensor scalar;       // [] f32
  Tensor bool_scalar;  // [] bool
  Tensor mask32;       // [3,2] bool
  Tensor idx;          // [2] i64
  Tensor idx23;        // [2,3] i64
  Tensor idx24;        // [2,4] i64
  Tensor i32x2;        // [3,2] i32
  Tensor batch2;       // [2,2,3] f32
  Tensor batch3;       // [3,3,2] f32
  Tensor tall;         // [2^20,1] f32
  Tensor wide;         // [1,2^21] f32
  Tensor wide_mask;    // [1,2^21] bool
  Tensor long_idx;     // [2^21] i64
  Tensor half;         // [2^39+1] f32
  Tensor empty;        // default-constructed
  Tensor stale;        // [2,3] f32 of a released engine (Needs::kStale)
  Tensor stale_idx;    // [2] i64 of a released engine (Needs::kStale)
  Tensor cuda;         // [2,3] f32 on cuda:0 (Needs::kCuda)
  Tensor cuda_mask;    // [2,3] bool on cuda:0
  Tensor cuda_idx;     // [2] i64 on cuda:0
};

// What a call may have changed: the queues, the handles and the execution counters.
struct Footprint {
  size_t cpu_queued = 0;
  size_t cpu_handles = 0;
  uint64_t cpu_ran = 0;
  size_t cuda_queued = 0;
  uint64_t cuda_ran = 0;

  static Footprint Now(Needs needs) {
    Footprint f;
    f.cpu_queued = CurrentQueue().global.size();
    f.cpu_handles = ServerFor(Device::Cpu())->NumHandles();
    const Stats cpu = GetStats(Device::Cpu());
    f.cpu_ran = cpu.unfused_operations + cpu.fused_executions + cpu.launches;
    if (needs == Needs::kCuda) {
      f.cuda_queued = CurrentQueue(Device::Cuda(0)).global.size();
      const Stats cuda = GetStats(Device::Cuda(0));
      f.cuda_ran = cuda.unfused_operations + cuda.fused_executions + cuda.launches;
    }
    return f;
  }
  bool operator==(const Footprint&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Footprint& f) {
  return os << "{cpu queued " << f.cpu_queued << ", handles " << f.cpu_handles << ", ran "
            << f.cpu_ran << "; cuda queued " << f.cuda_queued << ", ran " << f.cuda_ran << "}";
}

struct BadCall {
  // <op>_<what is wrong>: the test's name.
  const char* name;
  std::function<void(Operands&)> call;
  // Substrings of the message: the op, the operands and what is wrong with them.
  std::vector<std::string> message;
  Needs needs = Needs::kCpu;
};

void PrintTo(const BadCall& c, std::ostream* os) { *os << c.name; }

using O = Operands&;

// clang-format off
std::vector<BadCall> Cases() {
  const Needs kStale = Needs::kStale;
  const Needs kCuda = Needs::kCuda;
  return {
    // --- Creators ------------------------------------------------------------------------
    {"FromVector_NegativeSize", [](O) { (void)Tensor::FromVector<float>({1, 2}, {2, -1}); },
     {"FromVector", "[2,-1]", "dim 1 = -1"}},
    {"FromVector_ZeroSize", [](O) { (void)Tensor::FromVector<float>({}, {0}); },
     {"FromVector", "[0]", ">= 1"}},
    {"FromVector_HugeSize", [](O) { (void)Tensor::FromVector<int32_t>({1}, {kInt64Max}); },
     {"FromVector", "[9223372036854775807]", "more than 1099511627776 elements"}},
    {"FromVector_ShapeOverflow",
     [](O) { (void)Tensor::FromVector<float>({1}, {k2e40, k2e40}); },
     {"FromVector", "[1099511627776,1099511627776]", "more than"}},
    {"FromVector_ShapeOverflowWrapsToZero",
     [](O) { (void)Tensor::FromVector<int64_t>({}, {int64_t{1} << 32, int64_t{1} << 32}); },
     {"FromVector", "[4294967296,4294967296]", "more than"}},
    {"FromVector_WrongShape", [](O) { (void)Tensor::FromVector<float>({1, 2, 3}, {2, 2}); },
     {"FromVector", "3 values", "[2,2]", "expected 4"}},
    {"FromVector_EmptyShapeHoldsOneValue",
     [](O) { (void)Tensor::FromVector<int64_t>({1, 2}, {}); },
     {"FromVector", "2 values", "shape []", "expected 1"}},
    {"FromVector_NoValuesForEmptyShape", [](O) { (void)Tensor::FromVector<bool>({}, {}); },
     {"FromVector", "0 values", "shape []", "expected 1"}},
    {"FromVectorDtype_WrongShape",
     [](O) { (void)Tensor::FromVector({1, 2, 3}, {2}, DType::kF16); },
     {"FromVector", "3 values", "[2]", "expected 2"}},
    {"FromVectorDtype_NegativeSize",
     [](O) { (void)Tensor::FromVector({1}, {-1}, DType::kBF16); },
     {"FromVector", "[-1]", "dim 0 = -1"}},
    {"FromVectorDtype_ShapeOverflow",
     [](O) { (void)Tensor::FromVector({1}, {k2e20, k2e20 + 1}, DType::kI32); },
     {"FromVector", "[1048576,1048577]", "more than"}},
    {"FromVectorDtype_WrongDtype", [](O) { (void)Tensor::FromVector({1}, {1}, kNoDtype); },
     {"FromVector", "dtype 6", "f32"}},
    {"Zeros_NegativeSize", [](O) { (void)Tensor::Zeros({3, -2}, DType::kF32); },
     {"Zeros", "[3,-2]", "dim 1 = -2"}},
    {"Zeros_ZeroSize", [](O) { (void)Tensor::Zeros({2, 0}, DType::kI64); },
     {"Zeros", "[2,0]", ">= 1"}},
    {"Zeros_HugeSize", [](O) { (void)Tensor::Zeros({kInt64Max}, DType::kBool); },
     {"Zeros", "[9223372036854775807]", "more than"}},
    {"Zeros_ShapeOverflow", [](O) { (void)Tensor::Zeros({k2e40, k2e40}, DType::kF32); },
     {"Zeros", "[1099511627776,1099511627776]", "more than"}},
    {"Zeros_WrongDtype", [](O) { (void)Tensor::Zeros({2}, static_cast<DType>(200)); },
     {"Zeros", "dtype 200"}},
    {"Ones_NegativeSize", [](O) { (void)Tensor::Ones({kInt64Min}, DType::kF32); },
     {"Ones", "[-9223372036854775808]", ">= 1"}},
    {"Ones_ShapeOverflow",
     [](O) { (void)Tensor::Ones({k2e21, k2e21, k2e21}, DType::kI32); },
     {"Ones", "[2097152,2097152,2097152]", "more than"}},
    {"Ones_WrongDtype", [](O) { (void)Tensor::Ones({2}, kNoDtype); }, {"Ones", "dtype 6"}},
    {"Full_NegativeSize", [](O) { (void)Tensor::Full({-3}, 1.0, DType::kF32); },
     {"Full", "[-3]", ">= 1"}},
    {"Full_ShapeOverflow", [](O) { (void)Tensor::Full({k2e40, 2}, 1.0, DType::kF32); },
     {"Full", "[1099511627776,2]", "more than"}},
    {"Full_WrongDtype", [](O) { (void)Tensor::Full({2}, 1.0, kNoDtype); },
     {"Full", "dtype 6"}},
    {"Full_NaNOnInt", [](O) { (void)Tensor::Full({2}, kNaN, DType::kI32); },
     {"Full", "nan", "i32", "whole number"}},
    {"Full_InfOnInt", [](O) { (void)Tensor::Full({2}, -kInf, DType::kI64); },
     {"Full", "-inf", "i64", "whole number"}},
    {"Full_FractionOnInt", [](O) { (void)Tensor::Full({2}, 2.5, DType::kI64); },
     {"Full", "2.5", "i64", "whole number"}},
    {"Full_OutOfI32Range", [](O) { (void)Tensor::Full({2}, 3e9, DType::kI32); },
     {"Full", "i32", "range"}},
    {"Full_OutOfI64Range", [](O) { (void)Tensor::Full({2}, 1e19, DType::kI64); },
     {"Full", "1e+19", "i64", "outside the range"}},
    {"Full_TwoOnBool", [](O) { (void)Tensor::Full({2}, 2.0, DType::kBool); },
     {"Full", "bool", "0 or 1"}},
    {"Full_NaNOnBool", [](O) { (void)Tensor::Full({2}, kNaN, DType::kBool); },
     {"Full", "nan", "bool"}},
    {"RandomUniform_LoAboveHi",
     [](O) { (void)Tensor::RandomUniform({2}, DType::kF32, Device::Cpu(), 2.0, 1.0); },
     {"RandomUniform", "[2, 1)", "lo < hi"}},
    {"RandomUniform_EmptyRange",
     [](O) { (void)Tensor::RandomUniform({2}, DType::kF32, Device::Cpu(), 1.0, 1.0); },
     {"RandomUniform", "[1, 1)", "lo < hi"}},
    {"RandomUniform_NaNBound",
     [](O) { (void)Tensor::RandomUniform({2}, DType::kF32, Device::Cpu(), kNaN, 1.0); },
     {"RandomUniform", "nan"}},
    {"RandomUniform_InfiniteBounds",
     [](O) { (void)Tensor::RandomUniform({2}, DType::kF32, Device::Cpu(), -kInf, kInf); },
     {"RandomUniform", "[-inf, inf)", "finite"}},
    {"RandomUniform_InfiniteHi",
     [](O) { (void)Tensor::RandomUniform({2}, DType::kF16, Device::Cpu(), 0.0, kInf); },
     {"RandomUniform", "[0, inf)", "finite"}},
    {"RandomUniform_RangeOverflows",
     [](O) { (void)Tensor::RandomUniform({2}, DType::kF32, Device::Cpu(), -1e308, 1e308); },
     {"RandomUniform", "finite"}},
    {"RandomUniform_WrongDtypeInt", [](O) { (void)Tensor::RandomUniform({2}, DType::kI32); },
     {"RandomUniform", "i32", "float dtype"}},
    {"RandomUniform_WrongDtypeBool", [](O) { (void)Tensor::RandomUniform({2}, DType::kBool); },
     {"RandomUniform", "bool", "float dtype"}},
    {"RandomUniform_WrongDtype", [](O) { (void)Tensor::RandomUniform({2}, kNoDtype); },
     {"RandomUniform", "dtype 6"}},
    {"RandomUniform_NegativeSize", [](O) { (void)Tensor::RandomUniform({2, -2}, DType::kF32); },
     {"RandomUniform", "[2,-2]", ">= 1"}},
    {"RandomUniform_ShapeOverflow",
     [](O) { (void)Tensor::RandomUniform({k2e40, k2e40}, DType::kF32); },
     {"RandomUniform", "[1099511627776,1099511627776]", "more than"}},
    {"RandomNormal_NegativeStd",
     [](O) { (void)Tensor::RandomNormal({2}, DType::kF32, Device::Cpu(), 0.0, -1.0); },
     {"RandomNormal", "std -1", "std >= 0"}},
    {"RandomNormal_NaNStd",
     [](O) { (void)Tensor::RandomNormal({2}, DType::kF32, Device::Cpu(), 0.0, kNaN); },
     {"RandomNormal", "std nan"}},
    {"RandomNormal_InfiniteStd",
     [](O) { (void)Tensor::RandomNormal({2}, DType::kF32, Device::Cpu(), 0.0, kInf); },
     {"RandomNormal", "std inf", "finite"}},
    {"RandomNormal_InfiniteMean",
     [](O) { (void)Tensor::RandomNormal({2}, DType::kBF16, Device::Cpu(), -kInf, 1.0); },
     {"RandomNormal", "mean -inf", "finite"}},
    {"RandomNormal_NaNMean",
     [](O) { (void)Tensor::RandomNormal({2}, DType::kF32, Device::Cpu(), kNaN, 1.0); },
     {"RandomNormal", "mean nan"}},
    {"RandomNormal_WrongDtypeInt", [](O) { (void)Tensor::RandomNormal({2}, DType::kI64); },
     {"RandomNormal", "i64", "float dtype"}},
    {"RandomNormal_WrongDtype", [](O) { (void)Tensor::RandomNormal({2}, kNoDtype); },
     {"RandomNormal", "dtype 6"}},
    {"RandomNormal_ZeroSize", [](O) { (void)Tensor::RandomNormal({0}, DType::kF32); },
     {"RandomNormal", "[0]", ">= 1"}},
    {"RandomNormal_HugeSize", [](O) { (void)Tensor::RandomNormal({k2e40 + 1}, DType::kF32); },
     {"RandomNormal", "[1099511627777]", "more than"}},

    // --- Metadata of an empty tensor -------------------------------------------------------
    {"Shape_EmptyTensor", [](O o) { (void)o.empty.Shape(); }, {"Shape", "empty"}},
    {"Dtype_EmptyTensor", [](O o) { (void)o.empty.Dtype(); }, {"Dtype", "empty"}},
    {"device_EmptyTensor", [](O o) { (void)o.empty.device(); }, {"device", "empty"}},
    {"NumElements_EmptyTensor", [](O o) { (void)o.empty.NumElements(); },
     {"NumElements", "empty"}},

    // --- Unary -----------------------------------------------------------------------------
    {"Exp_WrongDtype", [](O o) { (void)o.i.Exp(); }, {"Exp", "[2,3] i32", "float tensor"}},
    {"Log_WrongDtype", [](O o) { (void)o.b.Log(); }, {"Log", "[2,3] bool", "float tensor"}},
    {"Log1p_WrongDtype", [](O o) { (void)o.i.Log1p(); }, {"Log1p", "[2,3] i32", "float"}},
    {"Sqrt_WrongDtype", [](O o) { (void)o.idx.Sqrt(); }, {"Sqrt", "[2] i64", "float"}},
    {"Recip_WrongDtype", [](O o) { (void)o.i.Recip(); }, {"Recip", "[2,3] i32", "float"}},
    {"Sin_WrongDtype", [](O o) { (void)o.b.Sin(); }, {"Sin", "[2,3] bool", "float"}},
    {"Cos_WrongDtype", [](O o) { (void)o.i.Cos(); }, {"Cos", "[2,3] i32", "float"}},
    {"Tanh_WrongDtype", [](O o) { (void)Tensor(o.i).Tanh(); }, {"Tanh", "[2,3] i32"}},
    {"Erf_WrongDtype", [](O o) { (void)o.bool_scalar.Erf(); }, {"Erf", "[] bool", "float"}},
    {"Abs_WrongDtype", [](O o) { (void)o.b.Abs(); }, {"Abs", "[2,3] bool", "float or int"}},
    {"Neg_WrongDtype", [](O o) { (void)o.b.Neg(); }, {"Neg", "[2,3] bool", "float or int"}},
    {"UnaryMinus_WrongDtype", [](O o) { (void)(-o.b); }, {"Neg", "[2,3] bool"}},
    {"Sum_WrongDtype", [](O o) { (void)o.b.Sum(); }, {"Sum", "[2,3] bool", "float or int"}},
    {"Mean_WrongDtype", [](O o) { (void)o.b.Mean(); }, {"Mean", "[2,3] bool"}},
    {"Exp_EmptyTensor", [](O o) { (void)o.empty.Exp(); }, {"Exp", "empty"}},
    {"Sum_EmptyTensor", [](O o) { (void)std::move(o.empty).Sum(); }, {"Sum", "empty"}},
    {"UnaryMinus_EmptyTensor", [](O o) { (void)(-o.empty); }, {"Neg", "empty"}},
    {"Log_ReleasedDevice", [](O o) { (void)o.stale.Log(); },
     {"Log", "[2,3] f32", "cpu", "released"}, kStale},
    {"Mean_ReleasedDevice", [](O o) { (void)o.stale.Mean(); }, {"Mean", "released"}, kStale},

    // --- Binary, tensor with tensor --------------------------------------------------------
    {"Add_WrongShape", [](O o) { (void)(o.f + o.g); },
     {"Add", "[2,3]", "[3,2]", "do not broadcast"}},
    {"Sub_WrongRank", [](O o) { (void)(o.f - o.v4); }, {"Sub", "[2,3]", "[4]", "broadcast"}},
    {"Mul_WrongDtype", [](O o) { (void)(o.f * o.i); },
     {"Mul", "[2,3] f32", "[2,3] i32", "same dtype"}},
    {"Div_WrongDtypeBool", [](O o) { (void)(o.b / o.b); }, {"Div", "[2,3] bool"}},
    {"Add_ShapeOverflow", [](O o) { (void)(o.tall + o.wide); },
     {"Add", "[1048576,1]", "[1,2097152]", "more than"}},
    {"Powf_WrongDtype", [](O o) { (void)o.i.Powf(o.i); }, {"Powf", "[2,3] i32", "float"}},
    {"Powf_WrongShape", [](O o) { (void)o.f.Powf(o.g); }, {"Powf", "[2,3]", "[3,2]"}},
    {"Rem_WrongDtype", [](O o) { (void)o.b.Rem(o.b); }, {"Rem", "[2,3] bool"}},
    {"Rem_WrongDtypeMix", [](O o) { (void)o.i.Rem(o.f); }, {"Rem", "[2,3] i32", "[2,3] f32"}},
    {"Equal_WrongDtype", [](O o) { (void)o.f.Equal(o.b); },
     {"Equal", "[2,3] f32", "[2,3] bool"}},
    {"Equal_WrongShape", [](O o) { (void)o.f.Equal(o.g); }, {"Equal", "[2,3]", "[3,2]"}},
    {"Lower_WrongDtype", [](O o) { (void)o.b.Lower(o.b); }, {"Lower", "[2,3] bool"}},
    {"Greater_WrongShape", [](O o) { (void)o.f.Greater(o.v4); },
     {"Greater", "[2,3]", "[4]"}},
    {"LowerEqual_ShapeOverflow", [](O o) { (void)o.tall.LowerEqual(o.wide); },
     {"LowerEqual", "[1048576,1]", "[1,2097152]", "more than"}},
    {"GreaterEqual_WrongDtype", [](O o) { (void)o.i.GreaterEqual(o.f); },
     {"GreaterEqual", "[2,3] i32", "[2,3] f32"}},
    {"Add_EmptyTensor", [](O o) { (void)(o.f + o.empty); },
     {"Add", "the second operand is empty"}},
    {"Mul_EmptyTensorLeft", [](O o) { (void)(o.empty * o.f); }, {"Mul", "the tensor is empty"}},
    {"Add_ReleasedDevice", [](O o) { (void)(o.f + o.stale); },
     {"Add", "[2,3] f32", "released"}, kStale},
    {"Sub_ReleasedDeviceLeft", [](O o) { (void)(o.stale - o.f); }, {"Sub", "released"}, kStale},
    {"Powf_ReleasedDevice", [](O o) { (void)o.f.Powf(o.stale); }, {"Powf", "released"}, kStale},
    {"Rem_ReleasedDevice", [](O o) { (void)o.f.Rem(o.stale); }, {"Rem", "released"}, kStale},
    {"GreaterEqual_ReleasedDevice", [](O o) { (void)o.stale.GreaterEqual(o.f); },
     {"GreaterEqual", "released"}, kStale},
    {"Add_OtherDevice", [](O o) { (void)(o.f + o.cuda); },
     {"Add", "[2,3] f32 on cpu", "[2,3] f32 on cuda:0", "different devices"}, kCuda},
    {"Div_OtherDeviceLeft", [](O o) { (void)(o.cuda / o.f); },
     {"Div", "on cuda:0", "on cpu", "different devices"}, kCuda},
    {"Powf_OtherDevice", [](O o) { (void)o.f.Powf(o.cuda); },
     {"Powf", "different devices"}, kCuda},
    {"Rem_OtherDevice", [](O o) { (void)o.f.Rem(o.cuda); }, {"Rem", "different devices"}, kCuda},
    {"Equal_OtherDevice", [](O o) { (void)o.f.Equal(o.cuda); },
     {"Equal", "different devices"}, kCuda},

    // --- Binary, tensor with scalar --------------------------------------------------------
    {"AddScalar_FractionOnInt", [](O o) { (void)(o.i + 2.5); },
     {"AddScalar", "2.5", "i32", "whole number"}},
    {"SubScalar_NaNOnInt", [](O o) { (void)(o.i - kNaN); }, {"SubScalar", "nan", "i32"}},
    {"MulScalar_InfOnInt", [](O o) { (void)(o.i * kInf); }, {"MulScalar", "inf", "i32"}},
    {"DivScalar_HugeOnInt", [](O o) { (void)(o.idx / 1e19); },
     {"DivScalar", "1e+19", "i64", "outside the range"}},
    {"AddScalar_WrongDtype", [](O o) { (void)(o.b + 1.0); }, {"AddScalar", "[2,3] bool"}},
    {"MulScalar_WrongDtype", [](O o) { (void)(o.b * 1.0); }, {"MulScalar", "[2,3] bool"}},
    {"PowfScalar_WrongDtype", [](O o) { (void)o.i.Powf(2.0); }, {"Powf", "[2,3] i32", "float"}},
    {"RemScalar_FractionOnInt", [](O o) { (void)o.i.Rem(0.5); }, {"Rem", "0.5", "i32"}},
    {"RemScalar_WrongDtype", [](O o) { (void)o.b.Rem(1.0); }, {"Rem", "[2,3] bool"}},
    {"EqualScalar_TwoOnBool", [](O o) { (void)o.b.Equal(2.0); },
     {"Equal", "scalar 2", "bool", "0 or 1"}},
    {"LowerScalar_NaNOnInt", [](O o) { (void)o.i.Lower(kNaN); }, {"Lower", "nan", "i32"}},
    {"GreaterScalar_WrongDtype", [](O o) { (void)o.b.Greater(0.0); }, {"Greater", "bool"}},
    {"LowerEqualScalar_FractionOnInt", [](O o) { (void)o.idx.LowerEqual(0.5); },
     {"LowerEqual", "0.5", "i64"}},
    {"GreaterEqualScalar_WrongDtype", [](O o) { (void)o.b.GreaterEqual(1.0); },
     {"GreaterEqual", "bool"}},
    {"ScalarSub_FractionOnInt", [](O o) { (void)(0.5 - o.i); }, {"Sub", "0.5", "i32"}},
    {"ScalarDiv_WrongDtype", [](O o) { (void)(1.0 / o.b); }, {"Div", "[2,3] bool"}},
    {"ScalarDiv_FractionOnInt", [](O o) { (void)(2.5 / o.i); }, {"Div", "2.5", "i32"}},
    {"ScalarDiv_OutOfI32Range", [](O o) { (void)(3e9 / o.i); }, {"Div", "i32", "range"}},
    {"ScalarAdd_NaNOnInt", [](O o) { (void)(kNaN + o.i); }, {"AddScalar", "nan", "i32"}},
    {"ScalarMul_WrongDtype", [](O o) { (void)(2.0 * o.b); }, {"MulScalar", "bool"}},
    {"AddScalar_EmptyTensor", [](O o) { (void)(o.empty + 1.0); }, {"AddScalar", "empty"}},
    {"ScalarSub_EmptyTensor", [](O o) { (void)(1.0 - o.empty); }, {"Sub", "empty"}},
    {"ScalarDiv_EmptyTensor", [](O o) { (void)(1.0 / o.empty); }, {"Div", "empty"}},
    {"MulScalar_ReleasedDevice", [](O o) { (void)(o.stale * 2.0); },
     {"MulScalar", "released"}, kStale},
    {"ScalarSub_ReleasedDevice", [](O o) { (void)(2.0 - o.stale); }, {"Sub", "released"}, kStale},
    {"ScalarDiv_ReleasedDevice", [](O o) { (void)(2.0 / o.stale); }, {"Div", "released"}, kStale},
    {"EqualScalar_ReleasedDevice", [](O o) { (void)o.stale.Equal(1.0); },
     {"Equal", "released"}, kStale},

    // --- Clamp -----------------------------------------------------------------------------
    {"Clamp_LoAboveHi", [](O o) { (void)o.f.Clamp(2.0, 1.0); },
     {"Clamp", "[2,3] f32", "[2, 1]", "lo <= hi"}},
    {"Clamp_NaNLo", [](O o) { (void)o.f.Clamp(kNaN, 1.0); }, {"Clamp", "[nan, 1]", "lo <= hi"}},
    {"Clamp_NaNHi", [](O o) { (void)o.f.Clamp(0.0, kNaN); }, {"Clamp", "[0, nan]"}},
    {"Clamp_WrongDtype", [](O o) { (void)o.b.Clamp(0.0, 1.0); }, {"Clamp", "[2,3] bool"}},
    {"Clamp_FractionOnInt", [](O o) { (void)o.i.Clamp(0.5, 2.0); },
     {"Clamp", "0.5", "i32", "whole number"}},
    {"Clamp_InfOnInt", [](O o) { (void)o.i.Clamp(-kInf, 2.0); }, {"Clamp", "-inf", "i32"}},
    {"Clamp_EmptyTensor", [](O o) { (void)o.empty.Clamp(0.0, 1.0); }, {"Clamp", "empty"}},
    {"Clamp_ReleasedDevice", [](O o) { (void)o.stale.Clamp(0.0, 1.0); },
     {"Clamp", "released"}, kStale},

    // --- MaskWhere and MaskFill ------------------------------------------------------------
    {"MaskWhere_WrongDtypeMask", [](O o) { (void)o.f.MaskWhere(o.f, o.f); },
     {"MaskWhere", "mask is [2,3] f32", "bool"}},
    {"MaskWhere_WrongDtypeValue", [](O o) { (void)o.f.MaskWhere(o.b, o.i); },
     {"MaskWhere", "[2,3] f32", "[2,3] i32", "same dtype"}},
    {"MaskWhere_WrongShapeValue", [](O o) { (void)o.f.MaskWhere(o.b, o.g); },
     {"MaskWhere", "[2,3]", "[3,2]", "broadcast"}},
    {"MaskWhere_WrongShapeMask", [](O o) { (void)o.f.MaskWhere(o.mask32, o.f); },
     {"MaskWhere", "[2,3]", "[3,2]", "broadcast"}},
    {"MaskWhere_ShapeOverflow", [](O o) { (void)o.tall.MaskWhere(o.bool_scalar, o.wide); },
     {"MaskWhere", "[1048576,1]", "[1,2097152]", "more than"}},
    {"MaskWhere_EmptyMask", [](O o) { (void)o.f.MaskWhere(o.empty, o.f); },
     {"MaskWhere", "the mask is empty"}},
    {"MaskWhere_EmptyValue", [](O o) { (void)o.f.MaskWhere(o.b, o.empty); },
     {"MaskWhere", "the value is empty"}},
    {"MaskWhere_ReleasedDevice", [](O o) { (void)o.f.MaskWhere(o.b, o.stale); },
     {"MaskWhere", "released"}, kStale},
    {"MaskWhere_OtherDeviceMask", [](O o) { (void)o.f.MaskWhere(o.cuda_mask, o.f); },
     {"MaskWhere", "[2,3] bool on cuda:0", "different devices"}, kCuda},
    {"MaskWhere_OtherDeviceValue", [](O o) { (void)o.f.MaskWhere(o.b, o.cuda); },
     {"MaskWhere", "[2,3] f32 on cuda:0", "different devices"}, kCuda},
    {"MaskFill_WrongDtypeMask", [](O o) { (void)o.f.MaskFill(o.i, 1.0); },
     {"MaskFill", "mask is [2,3] i32", "bool"}},
    {"MaskFill_NaNOnInt", [](O o) { (void)o.i.MaskFill(o.b, kNaN); },
     {"MaskFill", "nan", "i32"}},
    {"MaskFill_OutOfI32Range", [](O o) { (void)o.i.MaskFill(o.b, -3e9); },
     {"MaskFill", "i32", "range"}},
    {"MaskFill_TwoOnBool", [](O o) { (void)o.b.MaskFill(o.b, 2.0); },
     {"MaskFill", "bool", "0 or 1"}},
    {"MaskFill_WrongShape", [](O o) { (void)o.f.MaskFill(o.mask32, 0.0); },
     {"MaskFill", "[2,3]", "[3,2]", "broadcast"}},
    {"MaskFill_ShapeOverflow", [](O o) { (void)o.tall.MaskFill(o.wide_mask, 0.0); },
     {"MaskFill", "[1048576,1]", "[1,2097152]", "more than"}},
    {"MaskFill_EmptyMask", [](O o) { (void)o.f.MaskFill(o.empty, 0.0); },
     {"MaskFill", "the mask is empty"}},
    {"MaskFill_ReleasedDevice", [](O o) { (void)o.stale.MaskFill(o.b, 0.0); },
     {"MaskFill", "released"}, kStale},
    {"MaskFill_OtherDevice", [](O o) { (void)o.f.MaskFill(o.cuda_mask, 0.0); },
     {"MaskFill", "different devices"}, kCuda},

    // --- Cast ------------------------------------------------------------------------------
    {"Cast_WrongDtype", [](O o) { (void)o.f.Cast(kNoDtype); },
     {"Cast", "[2,3] f32", "dtype 6"}},
    {"Cast_WrongDtypeRvalue", [](O o) { (void)Tensor(o.i).Cast(static_cast<DType>(255)); },
     {"Cast", "[2,3] i32", "dtype 255"}},
    {"Cast_EmptyTensor", [](O o) { (void)o.empty.Cast(DType::kF32); }, {"Cast", "empty"}},
    {"Cast_ReleasedDevice", [](O o) { (void)o.stale.Cast(DType::kF32); },
     {"Cast", "released"}, kStale},

    // --- Reshape ---------------------------------------------------------------------------
    {"Reshape_WrongShape", [](O o) { (void)o.f.Reshape({4, 2}); },
     {"Reshape", "[2,3] f32", "6 elements", "[4,2]"}},
    {"Reshape_EmptyShapeOfSix", [](O o) { (void)o.f.Reshape({}); },
     {"Reshape", "[2,3] f32", "6 elements", "[]"}},
    {"Reshape_TwoInferred", [](O o) { (void)o.f.Reshape({-1, -1}); },
     {"Reshape", "[2,3] f32", "[-1,-1]", "more than one -1"}},
    {"Reshape_InferredDoesNotDivide", [](O o) { (void)o.f.Reshape({-1, 4}); },
     {"Reshape", "[2,3] f32", "[-1,4]"}},
    {"Reshape_NegativeSize", [](O o) { (void)o.f.Reshape({-2, -3}); },
     {"Reshape", "[2,3] f32", "[-2,-3]", "dim 0 = -2"}},
    {"Reshape_ZeroSize", [](O o) { (void)o.f.Reshape({-1, 0}); },
     {"Reshape", "[2,3] f32", "[-1,0]", "dim 1 = 0"}},
    {"Reshape_HugeSize", [](O o) { (void)o.f.Reshape({kInt64Max}); },
     {"Reshape", "[2,3] f32", "[9223372036854775807]"}},
    {"Reshape_ShapeOverflow", [](O o) { (void)o.f.Reshape({k2e40, k2e40}); },
     {"Reshape", "[2,3] f32", "[1099511627776,1099511627776]", "more than"}},
    {"Reshape_InferredWithOverflow", [](O o) { (void)o.f.Reshape({-1, k2e40, 8}); },
     {"Reshape", "[2,3] f32", "[-1,1099511627776,8]"}},
    {"Reshape_EmptyTensor", [](O o) { (void)o.empty.Reshape({1}); }, {"Reshape", "empty"}},
    {"Reshape_ReleasedDevice", [](O o) { (void)o.stale.Reshape({6}); },
     {"Reshape", "released"}, kStale},

    // --- SwapDims and Permute --------------------------------------------------------------
    {"SwapDims_BadAxis", [](O o) { (void)o.f.SwapDims(0, 2); },
     {"SwapDims", "[2,3] f32", "dim 2", "rank 2"}},
    {"SwapDims_NegativeAxisBeyondRank", [](O o) { (void)o.f.SwapDims(-3, 0); },
     {"SwapDims", "[2,3] f32", "dim -3", "[-2, 2)"}},
    {"SwapDims_HugeAxis", [](O o) { (void)o.f.SwapDims(0, kInt64Min); },
     {"SwapDims", "dim -9223372036854775808"}},
    {"SwapDims_WrongRank", [](O o) { (void)o.scalar.SwapDims(0, 0); },
     {"SwapDims", "[] f32", "rank 0"}},
    {"SwapDims_EmptyTensor", [](O o) { (void)o.empty.SwapDims(0, 1); }, {"SwapDims", "empty"}},
    {"SwapDims_ReleasedDevice", [](O o) { (void)o.stale.SwapDims(0, 1); },
     {"SwapDims", "released"}, kStale},
    {"Permute_WrongRank", [](O o) { (void)o.f.Permute({0}); },
     {"Permute", "axes [0]", "[2,3] f32", "permutation of all 2 dims"}},
    {"Permute_EmptyAxes", [](O o) { (void)o.f.Permute({}); },
     {"Permute", "axes []", "[2,3] f32"}},
    {"Permute_TooManyAxes", [](O o) { (void)o.scalar.Permute({0}); },
     {"Permute", "axes [0]", "[] f32"}},
    {"Permute_DuplicateAxes", [](O o) { (void)o.f.Permute({0, 0}); },
     {"Permute", "[0,0]", "[2,3] f32", "twice"}},
    {"Permute_DuplicateAxesNegative", [](O o) { (void)o.f.Permute({1, -1}); },
     {"Permute", "axes [1,-1]", "[2,3] f32", "twice"}},
    {"Permute_BadAxis", [](O o) { (void)o.f.Permute({0, 2}); },
     {"Permute", "[2,3] f32", "dim 2"}},
    {"Permute_NegativeAxisBeyondRank", [](O o) { (void)o.f.Permute({-3, 0}); },
     {"Permute", "[2,3] f32", "dim -3"}},
    {"Permute_EmptyTensor", [](O o) { (void)o.empty.Permute({}); }, {"Permute", "empty"}},
    {"Permute_ReleasedDevice", [](O o) { (void)o.stale.Permute({1, 0}); },
     {"Permute", "released"}, kStale},

    // --- Slice -----------------------------------------------------------------------------
    {"Slice_WrongRank", [](O o) { (void)o.f.Slice({Slice{}, Slice{}, Slice{}}); },
     {"Slice", "3 ranges", "[2,3] f32", "at most one per dim"}},
    {"Slice_WrongRankScalar", [](O o) { (void)o.scalar.Slice({Slice{}}); },
     {"Slice", "1 ranges", "[] f32"}},
    {"Slice_ZeroStep", [](O o) { (void)o.f.Slice({Slice{0, 2, 0}}); },
     {"Slice", "[2,3] f32", "step 0", "non-zero step"}},
    {"Slice_MinStep", [](O o) { (void)o.f.Slice({Slice{}, Slice{0, {}, kInt64Min}}); },
     {"Slice", "[2,3] f32", "step -9223372036854775808"}},
    {"Slice_SelectsNothing", [](O o) { (void)o.f.Slice({Slice{2, 2, 1}}); },
     {"Slice", "[2,3] f32", "selects no element"}},
    {"Slice_StartBeyondSize", [](O o) { (void)o.f.Slice({Slice{}, Slice{kInt64Max, {}, 1}}); },
     {"Slice", "[2,3] f32", "selects no element of dim 1"}},
    {"Slice_EndBeforeStart", [](O o) { (void)o.f.Slice({Slice{-1, 0, -1}}); },
     {"Slice", "selects no element of dim 0"}},
    {"Slice_EmptyTensor", [](O o) { (void)o.empty.Slice({}); }, {"Slice", "empty"}},
    {"Slice_ReleasedDevice", [](O o) { (void)o.stale.Slice({Slice{0, 1, 1}}); },
     {"Slice", "released"}, kStale},

    // --- Expand ----------------------------------------------------------------------------
    {"Expand_WrongRank", [](O o) { (void)o.f.Expand({3}); },
     {"Expand", "[2,3] f32", "[3]", "fewer dims"}},
    {"Expand_EmptyShape", [](O o) { (void)o.f.Expand({}); },
     {"Expand", "[2,3] f32", "[]", "fewer dims"}},
    {"Expand_WrongShape", [](O o) { (void)o.f.Expand({4, 3}); },
     {"Expand", "[2,3] f32", "[4,3]", "dim 0 has size 2"}},
    {"Expand_NegativeSize", [](O o) { (void)o.f.Expand({2, -5}); },
     {"Expand", "[2,3] f32", "[2,-5]"}},
    {"Expand_NegativeLeadingSize", [](O o) { (void)o.f.Expand({-2, 2, 3}); },
     {"Expand", "[2,3] f32", "[-2,2,3]", "dim 0 = -2"}},
    {"Expand_ZeroLeadingSize", [](O o) { (void)o.f.Expand({4, 0, 2, 3}); },
     {"Expand", "[2,3] f32", "[4,0,2,3]", "dim 1 = 0"}},
    {"Expand_InferredLeading", [](O o) { (void)o.f.Expand({-1, 2, 3}); },
     {"Expand", "[2,3] f32", "[-1,2,3]", "new leading dim 0"}},
    {"Expand_HugeSize", [](O o) { (void)o.f.Expand({kInt64Max, 2, 3}); },
     {"Expand", "[2,3] f32", "[9223372036854775807,2,3]", "more than"}},
    {"Expand_ShapeOverflow", [](O o) { (void)o.f.Expand({k2e40, k2e40, 2, 3}); },
     {"Expand", "[2,3] f32", "[1099511627776,1099511627776,2,3]", "more than"}},
    {"Expand_EmptyTensor", [](O o) { (void)o.empty.Expand({2}); }, {"Expand", "empty"}},
    {"Expand_ReleasedDevice", [](O o) { (void)o.stale.Expand({2, 2, 3}); },
     {"Expand", "released"}, kStale},

    // --- Gather and Select -----------------------------------------------------------------
    {"Gather_WrongDtypeIndices", [](O o) { (void)o.f.Gather(0, o.f); },
     {"Gather", "indices are [2,3] f32", "i32 or i64"}},
    {"Gather_BoolIndices", [](O o) { (void)o.f.Gather(0, o.b); },
     {"Gather", "indices are [2,3] bool"}},
    {"Gather_WrongRank", [](O o) { (void)o.f.Gather(0, o.idx); },
     {"Gather", "[2] i64", "[2,3] f32", "same rank"}},
    {"Gather_WrongShape", [](O o) { (void)o.f.Gather(0, o.idx24); },
     {"Gather", "[2,4] i64", "[2,3] f32", "no larger"}},
    {"Gather_BadAxis", [](O o) { (void)o.f.Gather(2, o.idx23); },
     {"Gather", "[2,3] f32", "dim 2", "rank 2"}},
    {"Gather_NegativeAxisBeyondRank", [](O o) { (void)o.f.Gather(-3, o.idx23); },
     {"Gather", "dim -3"}},
    {"Gather_EmptyIndices", [](O o) { (void)o.f.Gather(0, o.empty); },
     {"Gather", "the indices tensor is empty"}},
    {"Gather_ReleasedDevice", [](O o) { (void)o.stale.Gather(0, o.idx23); },
     {"Gather", "released"}, kStale},
    {"Gather_OtherDevice", [](O o) { (void)o.f.Gather(0, o.cuda_idx); },
     {"Gather", "[2] i64 on cuda:0", "different devices"}, kCuda},
    {"Select_WrongRankIndices", [](O o) { (void)o.f.Select(0, o.idx23); },
     {"Select", "[2,3] i64", "1-D"}},
    {"Select_WrongDtypeIndices", [](O o) { (void)o.f.Select(1, o.v4); },
     {"Select", "indices are [4] f32", "i32 or i64"}},
    {"Select_BadAxis", [](O o) { (void)o.f.Select(2, o.idx); },
     {"Select", "[2,3] f32", "dim 2"}},
    {"Select_WrongRank", [](O o) { (void)o.scalar.Select(0, o.idx); },
     {"Select", "[] f32", "rank 0"}},
    {"Select_ShapeOverflow", [](O o) { (void)o.tall.Select(1, o.long_idx); },
     {"Select", "[1048576,1] f32", "[2097152] i64", "more than"}},
    {"Select_EmptyIndices", [](O o) { (void)o.f.Select(0, o.empty); },
     {"Select", "the indices tensor is empty"}},
    {"Select_ReleasedDevice", [](O o) { (void)o.f.Select(0, o.stale_idx); },
     {"Select", "[2] i64", "released"}, kStale},
    {"Select_OtherDevice", [](O o) { (void)o.f.Select(0, o.cuda_idx); },
     {"Select", "different devices"}, kCuda},

    // --- Cat -------------------------------------------------------------------------------
    {"Cat_NoTensors", [](O) { (void)Cat({}, 0); }, {"Cat", "no tensors", "at least one"}},
    {"Cat_WrongShape", [](O o) { (void)Cat({o.f, o.g}, 1); },
     {"Cat", "tensor 1 is [3,2] f32", "[2,3] f32", "outside dim 1"}},
    {"Cat_WrongRank", [](O o) { (void)Cat({o.f, o.v4}, 0); },
     {"Cat", "tensor 1 is [4] f32", "[2,3] f32"}},
    {"Cat_WrongDtype", [](O o) { (void)Cat({o.f, o.i}, 0); },
     {"Cat", "[2,3] f32", "[2,3] i32", "same dtype"}},
    {"Cat_BadAxis", [](O o) { (void)Cat({o.f, o.f}, 2); }, {"Cat", "[2,3] f32", "dim 2"}},
    {"Cat_NegativeAxisBeyondRank", [](O o) { (void)Cat({o.f, o.f}, -3); },
     {"Cat", "dim -3"}},
    {"Cat_WrongRankScalar", [](O o) { (void)Cat({o.scalar, o.scalar}, 0); },
     {"Cat", "[] f32", "rank 0"}},
    {"Cat_ShapeOverflow", [](O o) { (void)Cat({o.half, o.half}, 0); },
     {"Cat", "[549755813889] f32", "more than"}},
    {"Cat_EmptyTensor", [](O o) { (void)Cat({o.f, o.empty}, 0); }, {"Cat", "tensor 1 is empty"}},
    {"Cat_EmptyFirstTensor", [](O o) { (void)Cat({o.empty, o.f}, 0); },
     {"Cat", "tensor 0 is empty"}},
    {"Cat_ReleasedDevice", [](O o) { (void)Cat({o.f, o.stale}, 0); },
     {"Cat", "released"}, kStale},
    {"Cat_OtherDevice", [](O o) { (void)Cat({o.f, o.cuda}, 0); },
     {"Cat", "different devices"}, kCuda},

    // --- Reductions ------------------------------------------------------------------------
    {"SumDim_BadAxis", [](O o) { (void)o.f.SumDim(2); },
     {"SumDim", "[2,3] f32", "dim 2", "rank 2"}},
    {"MeanDim_NegativeAxisBeyondRank", [](O o) { (void)o.f.MeanDim(-3); },
     {"MeanDim", "[2,3] f32", "dim -3"}},
    {"ProdDim_HugeAxis", [](O o) { (void)o.f.ProdDim(kInt64Max); },
     {"ProdDim", "dim 9223372036854775807"}},
    {"MaxDim_WrongRank", [](O o) { (void)o.scalar.MaxDim(0); }, {"MaxDim", "[] f32", "rank 0"}},
    {"MinDim_WrongDtype", [](O o) { (void)o.b.MinDim(0); }, {"MinDim", "[2,3] bool"}},
    {"SumDim_WrongDtype", [](O o) { (void)o.b.SumDim(1); }, {"SumDim", "[2,3] bool"}},
    {"ArgMax_BadAxis", [](O o) { (void)o.i.ArgMax(5); }, {"ArgMax", "[2,3] i32", "dim 5"}},
    {"ArgMin_NegativeAxisBeyondRank", [](O o) { (void)o.f.ArgMin(kInt64Min); },
     {"ArgMin", "dim -9223372036854775808"}},
    {"ArgMax_WrongDtype", [](O o) { (void)o.b.ArgMax(0); }, {"ArgMax", "[2,3] bool"}},
    {"ArgMin_WrongDtypeScalar", [](O o) { (void)o.bool_scalar.ArgMin(0); },
     {"ArgMin", "[] bool"}},
    {"ProdDim_EmptyTensor", [](O o) { (void)o.empty.ProdDim(0); }, {"ProdDim", "empty"}},
    {"ArgMax_ReleasedDevice", [](O o) { (void)o.stale.ArgMax(0); },
     {"ArgMax", "released"}, kStale},
    {"SumDim_ReleasedDevice", [](O o) { (void)std::move(o.stale).SumDim(0); },
     {"SumDim", "released"}, kStale},

    // --- Matmul ----------------------------------------------------------------------------
    {"Matmul_WrongRank", [](O o) { (void)o.f.Matmul(o.v4); },
     {"Matmul", "[2,3] f32", "[4] f32", "rank >= 2"}},
    {"Matmul_WrongRankScalar", [](O o) { (void)o.scalar.Matmul(o.f); },
     {"Matmul", "[] f32", "[2,3] f32", "rank >= 2"}},
    {"Matmul_WrongShape", [](O o) { (void)o.f.Matmul(o.f); },
     {"Matmul", "[2,3] f32 x [2,3] f32", "inner dims 3 and 2"}},
    {"Matmul_WrongBatch",
     [](O o) { (void)o.batch2.Matmul(o.batch3); },
     {"Matmul", "batch dims of [2,2,3] f32 x [3,3,2] f32", "[2] and [3]", "broadcast"}},
    {"Matmul_WrongDtype", [](O o) { (void)o.f.Matmul(o.i32x2); },
     {"Matmul", "[2,3] f32", "[3,2] i32", "same dtype"}},
    {"Matmul_WrongDtypeBool", [](O o) { (void)o.b.Matmul(o.b); }, {"Matmul", "[2,3] bool"}},
    {"Matmul_ShapeOverflow", [](O o) { (void)o.tall.Matmul(o.wide); },
     {"Matmul", "[1048576,1] f32", "[1,2097152] f32", "more than"}},
    {"Matmul_EmptyTensor", [](O o) { (void)o.f.Matmul(o.empty); },
     {"Matmul", "the second operand is empty"}},
    {"Matmul_ReleasedDevice", [](O o) { (void)o.g.Matmul(o.stale); },
     {"Matmul", "released"}, kStale},
    {"Matmul_OtherDevice", [](O o) { (void)o.g.Matmul(o.cuda); },
     {"Matmul", "[3,2] f32 on cpu", "[2,3] f32 on cuda:0", "different devices"}, kCuda},

    // --- Reading back ----------------------------------------------------------------------
    {"ToVector_FloatOfInt", [](O o) { (void)o.i.ToVector<float>(); },
     {"ToVector", "[2,3] i32", "float/double for float dtypes"}},
    {"ToVector_DoubleOfBool", [](O o) { (void)o.b.ToVector<double>(); },
     {"ToVector", "[2,3] bool"}},
    {"ToVector_IntOfFloat", [](O o) { (void)o.f.ToVector<int32_t>(); },
     {"ToVector", "[2,3] f32"}},
    {"ToVector_Int64OfBool", [](O o) { (void)o.b.ToVector<int64_t>(); },
     {"ToVector", "[2,3] bool"}},
    {"ToVector_BoolOfFloat", [](O o) { (void)Tensor(o.f).ToVector<bool>(); },
     {"ToVector", "[2,3] f32"}},
    {"ToVector_EmptyTensor", [](O o) { (void)o.empty.ToVector<float>(); },
     {"ToVector", "empty"}},
    {"ToVector_ReleasedDevice", [](O o) { (void)o.stale.ToVector<float>(); },
     {"ToVector", "[2,3] f32", "cpu", "released"}, kStale},

    // --- Devices ---------------------------------------------------------------------------
    {"Cuda_NegativeOrdinal", [](O) { (void)Device::Cuda(-1); }, {"Device::Cuda(-1)", ">= 0"}},
    {"Cuda_HugeOrdinal",
     [](O) { (void)Tensor::Zeros({2}, DType::kF32, Device::Cuda(1 << 30)); },
     {"Device::Cuda(1073741824)"}},
  };
}
// clang-format on

class BadInput : public ::testing::TestWithParam<BadCall> {};

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

INSTANTIATE_TEST_SUITE_P(Api, BadInput, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<BadCall>& param) {
                           return std::string(param.param.name);
                         });

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
}  // namespace ember

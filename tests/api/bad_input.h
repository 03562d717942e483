// BadInput: the table-driven test of bad input at every public op and creator
// (bad_input_test.cpp), shared by the files that hold its cases, one family of ops each
// (bad_input_*_test.cpp): the operands a bad call may use, the footprint it must not change
// (queues, handles, execution counters), the case type and the values that look bad.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/api/api_test_util.h"

namespace ember::bad_input {

using testing::CurrentQueue;

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
inline constexpr int64_t k2e20 = int64_t{1} << 20;
inline constexpr int64_t k2e21 = int64_t{1} << 21;
inline constexpr int64_t k2e39 = int64_t{1} << 39;
inline constexpr int64_t k2e40 = int64_t{1} << 40;
// A value outside the DType enum (e.g. read from a file and cast).
inline const DType kNoDtype = static_cast<DType>(6);

inline bool CudaUsable() {
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

inline std::ostream& operator<<(std::ostream& os, const Footprint& f) {
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

inline void PrintTo(const BadCall& c, std::ostream* os) { *os << c.name; }

using O = Operands&;

// One test, ThrowsANamedErrorQueuesNothingAndTheStreamStaysUsable, over every case; each family's
// file instantiates it (prefix Api) with its table and these names.
class BadInput : public ::testing::TestWithParam<BadCall> {};

inline std::string BadCallName(const ::testing::TestParamInfo<BadCall>& param) {
  return std::string(param.param.name);
}

}  // namespace ember::bad_input

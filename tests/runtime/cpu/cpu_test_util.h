// Helpers for the CPU backend tests: make handles from plain values, read them back, and run
// global ops against a HandleContainer without the rest of the engine.
//
// Values travel as double (or int64 for exact integer checks) and are converted to the
// tensor's dtype on the way in (f16/bf16 round to nearest even) and back on the way out.
#pragma once

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "engine/core/half.h"
#include "engine/ir/builders.h"
#include "engine/runtime/backend.h"
#include "engine/runtime/cpu/cpu_backend.h"
#include "engine/runtime/handle_container.h"

namespace ember::testing {

inline std::vector<std::byte> Encode(const std::vector<double>& values, DType dtype) {
  std::vector<std::byte> bytes(values.size() * DTypeSize(dtype));
  for (size_t i = 0; i < values.size(); ++i) {
    std::byte* p = bytes.data() + i * DTypeSize(dtype);
    const double v = values[i];
    switch (dtype) {
      case DType::kF32: {
        const float f = static_cast<float>(v);
        std::memcpy(p, &f, 4);
        break;
      }
      case DType::kF16: {
        const uint16_t h = FloatToHalf(static_cast<float>(v));
        std::memcpy(p, &h, 2);
        break;
      }
      case DType::kBF16: {
        const uint16_t h = FloatToBFloat16(static_cast<float>(v));
        std::memcpy(p, &h, 2);
        break;
      }
      case DType::kI32: {
        const int32_t x = static_cast<int32_t>(v);
        std::memcpy(p, &x, 4);
        break;
      }
      case DType::kI64: {
        const int64_t x = static_cast<int64_t>(v);
        std::memcpy(p, &x, 8);
        break;
      }
      case DType::kBool: *p = std::byte{v != 0.0}; break;
    }
  }
  return bytes;
}

inline std::vector<std::byte> EncodeInts(const std::vector<int64_t>& values, DType dtype) {
  std::vector<std::byte> bytes(values.size() * DTypeSize(dtype));
  for (size_t i = 0; i < values.size(); ++i) {
    std::byte* p = bytes.data() + i * DTypeSize(dtype);
    if (dtype == DType::kI64) {
      std::memcpy(p, &values[i], 8);
    } else if (dtype == DType::kI32) {
      const int32_t x = static_cast<int32_t>(values[i]);
      std::memcpy(p, &x, 4);
    } else {
      EXPECT_EQ(dtype, DType::kBool) << "EncodeInts is for i32, i64 and bool";
      *p = std::byte{values[i] != 0};
    }
  }
  return bytes;
}

inline double DecodeOne(const std::byte* p, DType dtype) {
  switch (dtype) {
    case DType::kF32: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case DType::kF16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return HalfToFloat(h);
    }
    case DType::kBF16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return BFloat16ToFloat(h);
    }
    case DType::kI32: {
      int32_t x;
      std::memcpy(&x, p, 4);
      return x;
    }
    case DType::kI64: {
      int64_t x;
      std::memcpy(&x, p, 8);
      return static_cast<double>(x);
    }
    case DType::kBool: return *p != std::byte{0} ? 1.0 : 0.0;
  }
  return 0.0;
}

inline TensorHandle MakeHandle(Backend& backend, const Shape& shape, DType dtype,
                               const std::vector<double>& values) {
  EXPECT_EQ(static_cast<int64_t>(values.size()), NumElements(shape));
  return backend.FromHost(Encode(values, dtype), shape, dtype);
}

inline std::vector<std::byte> ReadBytes(Backend& backend, const TensorHandle& handle) {
  std::vector<std::byte> bytes(handle.NumElements() * DTypeSize(handle.dtype));
  backend.ToHost(handle, bytes);
  return bytes;
}

inline std::vector<double> ReadValues(Backend& backend, const TensorHandle& handle) {
  const std::vector<std::byte> bytes = ReadBytes(backend, handle);
  std::vector<double> values(handle.NumElements());
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = DecodeOne(bytes.data() + i * DTypeSize(handle.dtype), handle.dtype);
  }
  return values;
}

inline std::vector<int64_t> ReadInts(Backend& backend, const TensorHandle& handle) {
  const std::vector<std::byte> bytes = ReadBytes(backend, handle);
  std::vector<int64_t> values(handle.NumElements());
  for (size_t i = 0; i < values.size(); ++i) {
    const std::byte* p = bytes.data() + i * DTypeSize(handle.dtype);
    if (handle.dtype == DType::kI64) {
      std::memcpy(&values[i], p, 8);
    } else if (handle.dtype == DType::kI32) {
      int32_t x;
      std::memcpy(&x, p, 4);
      values[i] = x;
    } else {
      values[i] = static_cast<int64_t>(DecodeOne(p, handle.dtype));
    }
  }
  return values;
}

// A backend plus a handle container, with fresh global tensor ids.
class Harness {
 public:
  explicit Harness(int threads = 0) : backend_(cpu::MakeCpuBackend(threads)) {}

  Backend& backend() { return *backend_; }
  HandleContainer& handles() { return handles_; }

  // Registers a new tensor holding `values`; returns its TensorIr (ReadOnly).
  TensorIr Input(const Shape& shape, DType dtype, const std::vector<double>& values) {
    TensorIr t{next_id_++, shape, TensorStatus::kReadOnly, dtype};
    handles_.Register(t.id, MakeHandle(*backend_, shape, dtype, values));
    return t;
  }
  TensorIr InputInts(const Shape& shape, DType dtype, const std::vector<int64_t>& values) {
    TensorIr t{next_id_++, shape, TensorStatus::kReadOnly, dtype};
    handles_.Register(t.id, backend_->FromHost(EncodeInts(values, dtype), shape, dtype));
    return t;
  }
  // A new output TensorIr (NotInit).
  TensorIr Output(const Shape& shape, DType dtype = DType::kF32) {
    return TensorIr{next_id_++, shape, TensorStatus::kNotInit, dtype};
  }
  // Executes `op`; returns its output as a ReadOnly TensorIr for use by later ops.
  TensorIr Exec(const OperationIr& op) {
    backend_->Execute(op, handles_);
    TensorIr out = op.outputs.at(0);
    out.status = TensorStatus::kReadOnly;
    return out;
  }
  const TensorHandle& Handle(const TensorIr& t) {
    const TensorHandle* h = handles_.Peek(t.id);
    EXPECT_NE(h, nullptr) << "no handle for t" << t.id;
    return *h;
  }
  std::vector<double> Values(const TensorIr& t) { return ReadValues(*backend_, Handle(t)); }
  std::vector<int64_t> Ints(const TensorIr& t) { return ReadInts(*backend_, Handle(t)); }
  // Executes `op` and reads its output.
  std::vector<double> Run(const OperationIr& op) { return Values(Exec(op)); }
  std::vector<int64_t> RunInts(const OperationIr& op) { return Ints(Exec(op)); }

 private:
  std::unique_ptr<Backend> backend_;
  HandleContainer handles_;
  TensorId next_id_ = 1;
};

// The same TensorIr with another status.
inline TensorIr WithStatus(TensorIr t, TensorStatus status) {
  t.status = status;
  return t;
}

// Deterministic pseudo-random test data in [lo, hi) (a tiny LCG: tests must not depend on
// the standard library's distributions).
inline std::vector<double> TestData(size_t n, double lo, double hi, uint64_t seed = 1) {
  std::vector<double> values(n);
  uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
  for (double& v : values) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v = lo + (hi - lo) * static_cast<double>(state >> 11) * 0x1p-53;
  }
  return values;
}

// The value `v` after a trip through `dtype` (what the backend actually stores).
inline double RoundTo(double v, DType dtype) { return DecodeOne(Encode({v}, dtype).data(), dtype); }

// Each of `got` (f32 values read back) within one float ULP of `want` (rounded to f32 first):
// how the transcendental ops (vector_math.h) are checked against glibc's values.
inline void ExpectWithinOneUlp(const std::vector<double>& got, const std::vector<double>& want,
                               std::string_view what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    const float w = static_cast<float>(want[i]);
    const float g = static_cast<float>(got[i]);
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(g)) << what << "[" << i << "]";
      continue;
    }
    const float lo = std::nextafter(w, -std::numeric_limits<float>::infinity());
    const float hi = std::nextafter(w, std::numeric_limits<float>::infinity());
    EXPECT_TRUE(g >= lo && g <= hi) << what << "[" << i << "]: " << g << " vs " << w;
  }
}

}  // namespace ember::testing

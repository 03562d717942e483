#include "engine/runtime/cpu/convert.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "engine/core/half.h"

namespace ember::cpu {
namespace {

// Unaligned-safe typed access (buffers are aligned, but views may start anywhere).
template <typename T>
T Read(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
void Write(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

}  // namespace

int32_t FloatToI32Saturating(double value) { return SaturatingToInt32(value); }

void LoadRunF32(const std::byte* src, DType dtype, int64_t stride, int64_t n, float* dst) {
  const int64_t step = stride * DTypeSize(dtype);
  switch (dtype) {
    case DType::kF32:
      if (stride == 1) {
        std::memcpy(dst, src, n * sizeof(float));
        return;
      }
      for (int64_t i = 0; i < n; ++i) dst[i] = Read<float>(src + i * step);
      return;
    case DType::kF16:
      for (int64_t i = 0; i < n; ++i) dst[i] = HalfToFloat(Read<uint16_t>(src + i * step));
      return;
    case DType::kBF16:
      for (int64_t i = 0; i < n; ++i) dst[i] = BFloat16ToFloat(Read<uint16_t>(src + i * step));
      return;
    case DType::kI32:
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(Read<int32_t>(src + i * step));
      return;
    case DType::kI64:
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(Read<int64_t>(src + i * step));
      return;
    case DType::kBool:
      for (int64_t i = 0; i < n; ++i) dst[i] = src[i * step] != std::byte{0} ? 1.0f : 0.0f;
      return;
  }
}

void LoadRunI64(const std::byte* src, DType dtype, int64_t stride, int64_t n, int64_t* dst) {
  const int64_t step = stride * DTypeSize(dtype);
  switch (dtype) {
    case DType::kF32:
      for (int64_t i = 0; i < n; ++i) dst[i] = SaturatingToInt64(Read<float>(src + i * step));
      return;
    case DType::kF16:
      for (int64_t i = 0; i < n; ++i) {
        dst[i] = SaturatingToInt64(HalfToFloat(Read<uint16_t>(src + i * step)));
      }
      return;
    case DType::kBF16:
      for (int64_t i = 0; i < n; ++i) {
        dst[i] = SaturatingToInt64(BFloat16ToFloat(Read<uint16_t>(src + i * step)));
      }
      return;
    case DType::kI32:
      for (int64_t i = 0; i < n; ++i) dst[i] = Read<int32_t>(src + i * step);
      return;
    case DType::kI64:
      if (stride == 1) {
        std::memcpy(dst, src, n * sizeof(int64_t));
        return;
      }
      for (int64_t i = 0; i < n; ++i) dst[i] = Read<int64_t>(src + i * step);
      return;
    case DType::kBool:
      for (int64_t i = 0; i < n; ++i) dst[i] = src[i * step] != std::byte{0} ? 1 : 0;
      return;
  }
}

void StoreRunF32(const float* src, int64_t n, DType dtype, std::byte* dst) {
  switch (dtype) {
    case DType::kF32: std::memcpy(dst, src, n * sizeof(float)); return;
    case DType::kF16:
      for (int64_t i = 0; i < n; ++i) Write<uint16_t>(dst + 2 * i, FloatToHalf(src[i]));
      return;
    case DType::kBF16:
      for (int64_t i = 0; i < n; ++i) Write<uint16_t>(dst + 2 * i, FloatToBFloat16(src[i]));
      return;
    case DType::kI32:
      for (int64_t i = 0; i < n; ++i) Write<int32_t>(dst + 4 * i, FloatToI32Saturating(src[i]));
      return;
    case DType::kI64:
      for (int64_t i = 0; i < n; ++i) Write<int64_t>(dst + 8 * i, SaturatingToInt64(src[i]));
      return;
    case DType::kBool:
      for (int64_t i = 0; i < n; ++i) dst[i] = std::byte{src[i] != 0.0f};
      return;
  }
}

void StoreRunI64(const int64_t* src, int64_t n, DType dtype, std::byte* dst) {
  switch (dtype) {
    case DType::kF32:
      for (int64_t i = 0; i < n; ++i) Write<float>(dst + 4 * i, static_cast<float>(src[i]));
      return;
    case DType::kF16:
      for (int64_t i = 0; i < n; ++i) {
        Write<uint16_t>(dst + 2 * i, FloatToHalf(static_cast<float>(src[i])));
      }
      return;
    case DType::kBF16:
      for (int64_t i = 0; i < n; ++i) {
        Write<uint16_t>(dst + 2 * i, FloatToBFloat16(static_cast<float>(src[i])));
      }
      return;
    case DType::kI32:
      // Wraps: the low 32 bits, as C++20 defines the conversion.
      for (int64_t i = 0; i < n; ++i) Write<int32_t>(dst + 4 * i, static_cast<int32_t>(src[i]));
      return;
    case DType::kI64: std::memcpy(dst, src, n * sizeof(int64_t)); return;
    case DType::kBool:
      for (int64_t i = 0; i < n; ++i) dst[i] = std::byte{src[i] != 0};
      return;
  }
}

void CopyRun(const std::byte* src, int elem_size, int64_t stride, int64_t n, std::byte* dst) {
  if (stride == 1) {
    std::memcpy(dst, src, n * elem_size);
    return;
  }
  const int64_t step = stride * elem_size;
  // Fixed-size memcpy calls compile to single loads and stores.
  switch (elem_size) {
    case 1:
      for (int64_t i = 0; i < n; ++i) dst[i] = src[i * step];
      return;
    case 2:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + 2 * i, src + i * step, 2);
      return;
    case 4:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + 4 * i, src + i * step, 4);
      return;
    case 8:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + 8 * i, src + i * step, 8);
      return;
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + elem_size * i, src + i * step, elem_size);
      return;
  }
}

}  // namespace ember::cpu

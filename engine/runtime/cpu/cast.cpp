// Cast and the creation ops (Zeros, Ones, Full): conversions between storage dtypes
// (Note [CPU compute domains], convert.h).
#include <cstring>

#include "engine/runtime/cpu/convert.h"
#include "engine/runtime/cpu/cpu_buffer.h"
#include "engine/runtime/cpu/kernels.h"
#include "engine/runtime/cpu/strided.h"

namespace ember::cpu {

TensorHandle Cast(const Operand& x, const TensorIr& out, ThreadPool& pool) {
  // Same dtype: the output aliases the input like any view (no copy). In-place reuse checks
  // buffer ownership, so a shared buffer is never overwritten.
  if (x.tensor != nullptr && x.tensor->dtype == out.dtype && x.tensor->shape == out.shape) {
    return *x.tensor;
  }
  // Load in the input's domain, store in the output's dtype: the store applies the rules.
  const TileOp tile{DomainOf(x.dtype(out.dtype)),
                    [](const float* const* in, float* result, int64_t n) {
                      std::memmove(result, in[0], n * sizeof(float));
                    },
                    [](const int64_t* const* in, int64_t* result, int64_t n) {
                      std::memmove(result, in[0], n * sizeof(int64_t));
                    }};
  const Operand operands[] = {x};
  return MapTiles(tile, operands, out, pool);
}

void EncodeFill(ScalarIr value, DType dtype, std::byte* element) {
  if (IsFloat(dtype)) {
    const float v = static_cast<float>(value.AsDouble());
    StoreRunF32(&v, 1, dtype, element);
  } else if (dtype == DType::kBool) {
    element[0] = std::byte{value.AsDouble() != 0.0};
  } else if (value.kind == ScalarIr::Kind::kFloat && dtype == DType::kI32) {
    // Saturate at i32's own range (going through i64 would wrap).
    const int32_t v = FloatToI32Saturating(value.AsDouble());
    std::memcpy(element, &v, sizeof(v));
  } else {
    const int64_t v = value.AsInt();
    StoreRunI64(&v, 1, dtype, element);
  }
}

TensorHandle Fill(ScalarIr value, const TensorIr& out, ThreadPool& pool) {
  TensorHandle result = NewHandle(out.shape, out.dtype);
  // Encode one element in the output dtype, then repeat its bytes.
  std::byte element[8] = {};
  EncodeFill(value, out.dtype, element);
  const int size = DTypeSize(out.dtype);
  std::byte* dst = ElementData(result);
  pool.ParallelFor(result.NumElements(), kParallelGrain, [&](int64_t begin, int64_t end) {
    CopyRun(element, size, 0, end - begin, dst + begin * size);
  });
  return result;
}

}  // namespace ember::cpu

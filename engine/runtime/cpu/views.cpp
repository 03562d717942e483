// View kernels: Reshape, Permute, SwapDims, Expand and Slice return handles that alias the
// input's buffer with new shape, strides and offset (no copy), except Reshape of a
// non-contiguous input, which copies first.
#include <algorithm>
#include <cstdint>
#include <utility>

#include "engine/core/check.h"
#include "engine/runtime/cpu/kernels.h"
#include "engine/runtime/cpu/strided.h"

namespace ember::cpu {

TensorHandle Reshape(const TensorHandle& x, const Shape& shape, ThreadPool& pool) {
  EMBER_CHECK(NumElements(shape) == x.NumElements(), "reshape of {} elements to {}",
              x.NumElements(), NumElements(shape));
  TensorHandle out = Contiguous(x, pool);
  out.shape = shape;
  out.strides = TensorHandle::ContiguousStrides(shape);
  return out;
}

TensorHandle Permute(const TensorHandle& x, std::span<const int64_t> axes) {
  EMBER_CHECK(axes.size() == x.shape.size(), "permute of rank {} with {} axes", x.shape.size(),
              axes.size());
  TensorHandle out = x;
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t axis = NormalizeDim(axes[i], x.shape.size());
    out.shape[i] = x.shape[axis];
    out.strides[i] = x.strides[axis];
  }
  return out;
}

TensorHandle SwapDims(const TensorHandle& x, int64_t dim1, int64_t dim2) {
  TensorHandle out = x;
  const int64_t a = NormalizeDim(dim1, x.shape.size());
  const int64_t b = NormalizeDim(dim2, x.shape.size());
  std::swap(out.shape[a], out.shape[b]);
  std::swap(out.strides[a], out.strides[b]);
  return out;
}

TensorHandle Expand(const TensorHandle& x, const Shape& shape) {
  const size_t rank = shape.size();
  const size_t in_rank = x.shape.size();
  EMBER_CHECK(in_rank <= rank, "expand of rank {} to rank {}", in_rank, rank);
  TensorHandle out = x;
  out.shape = shape;
  out.strides.assign(rank, 0);  // new leading dims and expanded size-1 dims repeat
  for (size_t d = 0; d < in_rank; ++d) {
    const size_t od = rank - in_rank + d;
    if (x.shape[d] == shape[od]) {
      out.strides[od] = x.strides[d];
    } else {
      EMBER_CHECK(x.shape[d] == 1, "cannot expand dim of size {} to {}", x.shape[d], shape[od]);
    }
  }
  return out;
}

TensorHandle SliceView(const TensorHandle& x, std::span<const Slice> ranges) {
  EMBER_CHECK(ranges.size() <= x.shape.size(), "{} ranges for rank {}", ranges.size(),
              x.shape.size());
  TensorHandle out = x;
  for (size_t d = 0; d < ranges.size(); ++d) {
    const Slice& r = ranges[d];
    EMBER_CHECK(r.step != 0, "slice step 0");
    const int64_t size = x.shape[d];
    // Negative bounds count from the end; out-of-range bounds clamp (ember/slice.h).
    auto bound = [size](int64_t v) { return std::clamp(v < 0 ? v + size : v, int64_t{0}, size); };
    const int64_t start = bound(r.start);
    const int64_t end = std::max(start, r.end ? bound(*r.end) : size);
    // A step longer than the dim takes one element, as a step of the dim's size does; with that
    // bound neither the length nor the stride below can overflow (INT64_MAX or INT64_MIN as a
    // step: tests/api/bad_input_test.cpp).
    const int64_t magnitude = r.step == INT64_MIN ? INT64_MAX : (r.step < 0 ? -r.step : r.step);
    const int64_t step = std::min(magnitude, std::max<int64_t>(size, 1));
    const int64_t length = end > start ? (end - start - 1) / step + 1 : 0;
    out.shape[d] = length;
    if (length == 0) continue;
    // A negative step walks [start, end) backwards from its last element, end - 1.
    const int64_t first = r.step > 0 ? start : end - 1;
    out.offset += first * x.strides[d];
    out.strides[d] = x.strides[d] * (r.step > 0 ? step : -step);
  }
  return out;
}

}  // namespace ember::cpu

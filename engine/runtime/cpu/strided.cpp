#include "engine/runtime/cpu/strided.h"

#include <algorithm>

#include "engine/core/check.h"
#include "engine/runtime/cpu/convert.h"
#include "engine/runtime/cpu/cpu_buffer.h"

namespace ember::cpu {

StridedView MakeView(const std::byte* data, DType dtype, std::span<const int64_t> shape,
                     std::span<const int64_t> strides) {
  EMBER_DCHECK(shape.size() == strides.size(), "rank mismatch");
  StridedView view;
  view.data = data;
  view.dtype = dtype;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    // Merge into the previous dim when stepping over it equals stepping this dim fully.
    if (!view.shape.empty() && view.strides.back() == strides[d] * shape[d]) {
      view.shape.back() *= shape[d];
      view.strides.back() = strides[d];
      continue;
    }
    view.shape.push_back(shape[d]);
    view.strides.push_back(strides[d]);
  }
  return view;
}

StridedView BroadcastView(const TensorHandle& handle, const Shape& shape) {
  const size_t rank = shape.size();
  const size_t in_rank = handle.shape.size();
  EMBER_CHECK(in_rank <= rank, "cannot broadcast rank {} to rank {}", in_rank, rank);
  std::vector<int64_t> strides(rank, 0);
  for (size_t d = 0; d < in_rank; ++d) {
    const size_t od = rank - in_rank + d;
    if (handle.shape[d] == shape[od]) {
      strides[od] = handle.strides[d];
    } else {
      EMBER_CHECK(handle.shape[d] == 1, "dim {} of size {} does not broadcast to {}", d,
                  handle.shape[d], shape[od]);
    }
  }
  return MakeView(ElementData(handle), handle.dtype, {shape.data(), shape.size()}, strides);
}

RunCursor::RunCursor(const StridedView& view, int64_t begin)
    : view_(view), elem_size_(DTypeSize(view.dtype)), index_(view.shape.size(), 0) {
  EMBER_DCHECK(std::find(view.shape.begin(), view.shape.end(), 0) == view.shape.end(),
               "a cursor over an empty view");
  for (size_t d = view.shape.size(); d-- > 0;) {
    index_[d] = begin % view.shape[d];
    begin /= view.shape[d];
    offset_ += index_[d] * view.strides[d];
  }
}

Run RunCursor::Next(int64_t max_length) {
  if (index_.empty()) return {view_.data, 0, std::min<int64_t>(max_length, 1)};
  const size_t last = index_.size() - 1;
  const int64_t length = std::min(max_length, view_.shape[last] - index_[last]);
  const Run run{view_.data + offset_ * elem_size_, view_.strides[last], length};
  index_[last] += length;
  offset_ += length * view_.strides[last];
  // Carry into the outer dims.
  for (size_t d = last + 1; d-- > 0 && index_[d] == view_.shape[d];) {
    offset_ -= index_[d] * view_.strides[d];
    index_[d] = 0;
    if (d == 0) break;
    ++index_[d - 1];
    offset_ += view_.strides[d - 1];
  }
  return run;
}

const float* LoadF32(const StridedView& view, int64_t begin, int64_t n, float* scratch) {
  if (n <= 0) return scratch;
  if (view.dtype == DType::kF32 && view.IsDense() && !view.shape.empty()) {
    return reinterpret_cast<const float*>(view.data) + begin;
  }
  RunCursor cursor(view, begin);
  for (int64_t done = 0; done < n;) {
    const Run run = cursor.Next(n - done);
    LoadRunF32(run.data, view.dtype, run.stride, run.length, scratch + done);
    done += run.length;
  }
  return scratch;
}

const int64_t* LoadI64(const StridedView& view, int64_t begin, int64_t n, int64_t* scratch) {
  if (n <= 0) return scratch;
  if (view.dtype == DType::kI64 && view.IsDense() && !view.shape.empty()) {
    return reinterpret_cast<const int64_t*>(view.data) + begin;
  }
  RunCursor cursor(view, begin);
  for (int64_t done = 0; done < n;) {
    const Run run = cursor.Next(n - done);
    LoadRunI64(run.data, view.dtype, run.stride, run.length, scratch + done);
    done += run.length;
  }
  return scratch;
}

void CopyElements(const StridedView& view, int64_t begin, int64_t n, std::byte* dst) {
  if (n <= 0) return;  // the view may have a dim of size 0, which a cursor cannot divide by
  const int elem_size = DTypeSize(view.dtype);
  RunCursor cursor(view, begin);
  for (int64_t done = 0; done < n;) {
    const Run run = cursor.Next(n - done);
    CopyRun(run.data, elem_size, run.stride, run.length, dst + done * elem_size);
    done += run.length;
  }
}

TensorHandle Contiguous(const TensorHandle& handle, ThreadPool& pool) {
  if (handle.IsContiguous()) return handle;
  TensorHandle out = NewHandle(handle.shape, handle.dtype);
  const StridedView view = BroadcastView(handle, handle.shape);
  std::byte* dst = ElementData(out);
  const int elem_size = DTypeSize(handle.dtype);
  pool.ParallelFor(out.NumElements(), kParallelGrain, [&](int64_t begin, int64_t end) {
    CopyElements(view, begin, end - begin, dst + begin * elem_size);
  });
  return out;
}

int64_t NormalizeDim(int64_t dim, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (dim < 0) dim += r;
  EMBER_CHECK(dim >= 0 && dim < r, "dim {} out of range for rank {}", dim, r);
  return dim;
}

}  // namespace ember::cpu

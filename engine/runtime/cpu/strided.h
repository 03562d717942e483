// Strided iteration: walks the elements of a strided, possibly broadcast handle in the
// row-major order of an iteration shape, in runs along the innermost dim, so kernels can load
// any view (permuted, sliced with negative steps, expanded with stride 0) into contiguous
// scratch and compute on plain arrays (Note [CPU compute domains], convert.h).
//
// Not thread-safe per object; kernels give each worker its own RunCursor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/runtime/cpu/thread_pool.h"
#include "engine/runtime/handle.h"

namespace ember::cpu {

// Elements of a handle seen through an iteration shape. Dims of size 1 are dropped and
// neighbouring dims that step uniformly are merged, so a contiguous tensor is one dim and a
// broadcast row is two; rank 0 means a single element.
struct StridedView {
  const std::byte* data = nullptr;  // element at multi-index 0
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // in elements

  // True when the iteration order is the memory order with no gaps (stride 1).
  bool IsDense() const { return shape.empty() || (shape.size() == 1 && strides[0] == 1); }
};

// `data` seen with `strides` over `shape` (same rank), simplified.
StridedView MakeView(const std::byte* data, DType dtype, std::span<const int64_t> shape,
                     std::span<const int64_t> strides);

// `handle` broadcast to `shape` by numpy rules (trailing dims aligned; a dim of size 1, or a
// missing leading dim, repeats with stride 0).
// REQUIRES: handle.shape broadcasts to shape.
StridedView BroadcastView(const TensorHandle& handle, const Shape& shape);

// A piece of a view: `length` elements at data, data + stride, ...
struct Run {
  const std::byte* data;
  int64_t stride;
  int64_t length;
};

// Visits the elements [begin, ...) of a view, in iteration order, as runs.
// REQUIRES: the view has at least one element.
class RunCursor {
 public:
  RunCursor(const StridedView& view, int64_t begin);
  // The next run, at most `max_length` elements long.
  Run Next(int64_t max_length);

 private:
  const StridedView& view_;
  int elem_size_;
  std::vector<int64_t> index_;
  int64_t offset_ = 0;  // in elements, of index_
};

// Elements [begin, begin + n) of `view` in the f32 / i64 compute domain. Returns a pointer
// into the tensor itself when it is already dense in that type, else fills `scratch` (room for
// n values) and returns it.
const float* LoadF32(const StridedView& view, int64_t begin, int64_t n, float* scratch);
const int64_t* LoadI64(const StridedView& view, int64_t begin, int64_t n, int64_t* scratch);

// Copies elements [begin, begin + n) of `view`, unconverted, to contiguous `dst`.
void CopyElements(const StridedView& view, int64_t begin, int64_t n, std::byte* dst);

// A contiguous handle with the elements of `handle`: the handle itself when it already is
// contiguous, else a copy.
TensorHandle Contiguous(const TensorHandle& handle, ThreadPool& pool);

// Multiples of this many elements are handed to one worker (ThreadPool::ParallelFor grain)
// by the copy and elementwise kernels: big enough to amortize a wake-up, small enough to
// balance.
inline constexpr int64_t kParallelGrain = 1 << 15;

// `dim` in [0, rank) for a dim that may count from the end (-1 is the last).
int64_t NormalizeDim(int64_t dim, size_t rank);

}  // namespace ember::cpu

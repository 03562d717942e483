// Data movement kernels: Cat, Gather, Select. They move elements without converting them, so
// they work on raw element bytes of any dtype.
#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/core/check.h"
#include "engine/runtime/cpu/cpu_buffer.h"
#include "engine/runtime/cpu/kernels.h"
#include "engine/runtime/cpu/strided.h"

namespace ember::cpu {
namespace {

void CopyOne(std::byte* dst, const std::byte* src, int size) {
  switch (size) {
    case 1: *dst = *src; return;
    case 2: std::memcpy(dst, src, 2); return;
    case 4: std::memcpy(dst, src, 4); return;
    case 8: std::memcpy(dst, src, 8); return;
    default: std::memcpy(dst, src, size); return;
  }
}

// The elements of an index tensor as i64, in row-major order.
std::vector<int64_t> LoadIndices(const TensorHandle& indices) {
  std::vector<int64_t> values(indices.NumElements());
  const StridedView view = BroadcastView(indices, indices.shape);
  const int64_t* loaded = LoadI64(view, 0, values.size(), values.data());
  if (loaded != values.data()) std::copy_n(loaded, values.size(), values.data());
  return values;
}

// Shared by Gather and Select: out[m] = tensor[m with m[dim] replaced by an index], where the
// index is indices[linear(m)] (gather) or indices[m[dim]] (select). Out-of-range positions
// give a zero element instead of reading outside the tensor.
TensorHandle IndexAlong(const TensorHandle& tensor, int64_t dim, const TensorHandle& indices,
                        bool per_element, const TensorIr& out, ThreadPool& pool) {
  const size_t rank = out.shape.size();
  EMBER_CHECK(tensor.shape.size() == rank, "index op: tensor rank {} vs output rank {}",
              tensor.shape.size(), rank);
  const int64_t axis = NormalizeDim(dim, rank);
  const std::vector<int64_t> index_values = LoadIndices(indices);
  TensorHandle result = NewHandle(out.shape, out.dtype);
  const int size = DTypeSize(tensor.dtype);
  EMBER_CHECK(tensor.dtype == out.dtype, "index op changes dtype");
  const std::byte* src = ElementData(tensor);
  std::byte* dst = ElementData(result);
  pool.ParallelFor(result.NumElements(), kParallelGrain, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> m(rank, 0);
    int64_t rest = begin;
    for (size_t d = rank; d-- > 0;) {
      m[d] = rest % out.shape[d];
      rest /= out.shape[d];
    }
    for (int64_t linear = begin; linear < end; ++linear) {
      const int64_t index = per_element ? index_values[linear] : index_values[m[axis]];
      bool in_range = index >= 0 && index < tensor.shape[axis];
      int64_t offset = index * tensor.strides[axis];
      for (size_t d = 0; d < rank && in_range; ++d) {
        if (static_cast<int64_t>(d) == axis) continue;
        in_range = m[d] < tensor.shape[d];
        offset += m[d] * tensor.strides[d];
      }
      std::byte* target = dst + linear * size;
      if (in_range) {
        CopyOne(target, src + offset * size, size);
      } else {
        std::memset(target, 0, size);
      }
      for (size_t d = rank; d-- > 0;) {  // next multi-index
        if (++m[d] < out.shape[d]) break;
        m[d] = 0;
      }
    }
  });
  return result;
}

}  // namespace

TensorHandle Cat(std::span<const TensorHandle> inputs, int64_t dim, const TensorIr& out,
                 ThreadPool& pool) {
  const int64_t axis = NormalizeDim(dim, out.shape.size());
  TensorHandle result = NewHandle(out.shape, out.dtype);
  // Row-major, the output is [outer, total, inner] and input k is [outer, size_k, inner]:
  // each outer row of input k is one block of size_k * inner elements, written at its place.
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= out.shape[d];
  for (size_t d = axis + 1; d < out.shape.size(); ++d) inner *= out.shape[d];
  const int64_t total = out.shape[axis];
  const int size = DTypeSize(out.dtype);
  std::byte* dst = ElementData(result);
  int64_t position = 0;  // along the axis
  for (const TensorHandle& input : inputs) {
    EMBER_CHECK(input.dtype == out.dtype, "cat of mixed dtypes");
    const int64_t block = input.shape[axis] * inner;
    const StridedView view = BroadcastView(input, input.shape);
    const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(block, 1));
    pool.ParallelFor(outer, grain, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        CopyElements(view, o * block, block, dst + ((o * total + position) * inner) * size);
      }
    });
    position += input.shape[axis];
  }
  EMBER_CHECK(position == total, "cat sizes sum to {}, output has {}", position, total);
  return result;
}

TensorHandle Gather(const TensorHandle& tensor, int64_t dim, const TensorHandle& indices,
                    const TensorIr& out, ThreadPool& pool) {
  EMBER_CHECK(indices.shape == out.shape, "gather: indices shape must be the output shape");
  return IndexAlong(tensor, dim, indices, /*per_element=*/true, out, pool);
}

TensorHandle Select(const TensorHandle& tensor, int64_t dim, const TensorHandle& indices,
                    const TensorIr& out, ThreadPool& pool) {
  EMBER_CHECK(indices.shape.size() == 1, "select: indices must be 1-D");
  const int64_t axis = NormalizeDim(dim, out.shape.size());
  EMBER_CHECK(indices.shape[0] == out.shape[axis], "select: {} indices for {} outputs",
              indices.shape[0], out.shape[axis]);
  return IndexAlong(tensor, dim, indices, /*per_element=*/false, out, pool);
}

}  // namespace ember::cpu

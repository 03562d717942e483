#include "engine/runtime/cpu/fused_indexed.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/runtime/cpu/convert.h"
#include "engine/runtime/cpu/cpu_buffer.h"
#include "engine/runtime/cpu/strided.h"

namespace ember::cpu {
namespace {

IndexedTensor Bound(const TensorHandle& handle) {
  return {.data = ElementData(handle), .shape = handle.shape, .strides = handle.strides};
}

// The element of `t` at `m` with m[dim] := index, or null where the unfused kernels read 0:
// an index outside [0, size along dim), or (Gather and Select of a smaller tensor) a
// coordinate past the tensor's size in another dim (IndexAlong, movement.cpp).
const std::byte* ElementAt(const IndexedTensor& t, const std::vector<int64_t>& m, size_t dim,
                           int64_t index, int size) {
  if (index < 0 || index >= t.shape[dim]) return nullptr;
  int64_t offset = index * t.strides[dim];
  for (size_t d = 0; d < m.size(); ++d) {
    if (d == dim) continue;
    if (m[d] >= t.shape[d]) return nullptr;
    offset += m[d] * t.strides[d];
  }
  return t.data + offset * size;
}

}  // namespace

void BindIndexed(IndexedSource& source, std::span<const TensorHandle> tensors, const Shape& ref) {
  source.ref = ref;
  source.reads.clear();
  source.starts.clear();
  if (source.kind == FuseOpKind::kCat) {
    int64_t start = 0;
    for (int t : source.tensors) {
      source.reads.push_back(Bound(tensors[t]));
      source.starts.push_back(start);
      start += tensors[t].shape[source.dim];
    }
    return;
  }
  source.reads.push_back(Bound(tensors[source.tensors[0]]));
  const TensorHandle& indices = tensors[source.tensors[1]];
  if (source.kind == FuseOpKind::kGather) {
    source.indices = BroadcastView(indices, ref);  // indices[p]
    return;
  }
  // Select: indices[p[dim]], a view that steps along dim only.
  const std::vector<int64_t> shape(ref.begin(), ref.end());
  std::vector<int64_t> strides(ref.size(), 0);
  strides[source.dim] = indices.strides[0];
  source.indices = MakeView(ElementData(indices), indices.dtype, shape, strides);
}

void LoadIndexedTile(const IndexedSource& source, int64_t pos, int64_t n, void* out,
                     std::byte* temp) {
  const Shape& ref = source.ref;
  const auto dim = static_cast<size_t>(source.dim);
  const int size = DTypeSize(source.dtype);
  // The indices go through the same i64 load as the unfused kernels' (LoadIndices); `out` is
  // free until the elements are loaded into it at the end.
  const int64_t* indices = nullptr;
  if (source.kind != FuseOpKind::kCat) {
    indices = LoadI64(source.indices, pos, n, static_cast<int64_t*>(out));
  }
  std::vector<int64_t> m(ref.size());
  int64_t rest = pos;
  for (size_t d = ref.size(); d-- > 0;) {
    m[d] = rest % ref[d];
    rest /= ref[d];
  }
  for (int64_t i = 0; i < n; ++i) {
    const std::byte* element = nullptr;
    if (indices != nullptr) {
      element = ElementAt(source.reads[0], m, dim, indices[i], size);
    } else {
      // The last input starting at or before m[dim]; empty inputs before it are skipped.
      const auto t =
          static_cast<size_t>(std::upper_bound(source.starts.begin(), source.starts.end(), m[dim]) -
                              source.starts.begin() - 1);
      element = ElementAt(source.reads[t], m, dim, m[dim] - source.starts[t], size);
    }
    if (element != nullptr) {
      std::memcpy(temp + i * size, element, size);
    } else {
      std::memset(temp + i * size, 0, size);
    }
    for (size_t d = ref.size(); d-- > 0;) {  // the next position's multi-index
      if (++m[d] < ref[d]) break;
      m[d] = 0;
    }
  }
  if (DomainOf(source.dtype) == Domain::kFloat) {
    LoadRunF32(temp, source.dtype, 1, n, static_cast<float*>(out));
  } else {
    LoadRunI64(temp, source.dtype, 1, n, static_cast<int64_t*>(out));
  }
}

}  // namespace ember::cpu

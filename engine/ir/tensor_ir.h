// TensorIr: a snapshot of one tensor at one use inside an op (burn's TensorIr).
//
// In a global op, `id` is the process-wide tensor id and `shape` holds real dim sizes. In a
// relative op (Note [Relative form], engine/ir/relative.h) `id` is the position of first
// appearance in the queue and `shape` holds relative shape ids. Plain data; compared field
// by field (all four fields take part in equality and in the canonical bytes).
#pragma once

#include <cstdint>
#include <vector>

// GCC 12 at -O2 reports -Wstringop-overread inside small_vector's inline-storage moves (it
// does not see that a size beyond the inline capacity takes the heap path): a false positive,
// silenced for that header only. Diagnostic pragmas follow source locations, so the warnings,
// which point into the header, stay silenced wherever it is instantiated.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#include <boost/container/small_vector.hpp>
#pragma GCC diagnostic pop

#include <ember/dtype.h>

namespace ember {

using TensorId = uint64_t;
// Dim sizes (or relative shape ids), inline up to rank kInlineRank: every op the API queues
// copies several shapes (its TensorIrs, their relative forms), and a heap allocation per copy
// was a third of the cache-hit path's cost per op (docs/BENCHMARKS.md, issue 18).
inline constexpr size_t kInlineRank = 5;
using Shape = boost::container::small_vector<int64_t, kInlineRank>;
// Dim sizes as the public API gives and takes them (ember::Tensor::Shape()).
using Dims = std::vector<int64_t>;
inline Shape ToShape(const Dims& dims) { return Shape(dims.begin(), dims.end()); }
inline Dims ToDims(const Shape& shape) { return Dims(shape.begin(), shape.end()); }

// The stored numbers are part of the canonical bytes: never renumber.
enum class TensorStatus : uint8_t {
  kNotInit = 0,    // an op output: no handle exists yet
  kReadOnly = 1,   // read, and other references remain
  kReadWrite = 2,  // last use: the op may consume the buffer; the handle is freed after it
};

struct TensorIr {
  TensorId id = 0;
  Shape shape;
  TensorStatus status = TensorStatus::kNotInit;
  DType dtype = DType::kF32;

  bool operator==(const TensorIr&) const = default;
};

// Number of elements of `shape` (1 for rank 0).
int64_t NumElements(const Shape& shape);
int64_t NumElements(const Dims& dims);

}  // namespace ember

// Matmul: [..., m, k] x [..., k, n] -> [..., m, n] with numpy batch broadcasting.
//
// Both operands are first brought to dense matrices of the compute domain (f32 or i64; a
// dense f32/i64 input is used in place), then each block of up to kRowBlock output rows is
// computed as rank-1 updates in i-k-j order: the innermost loop runs along a row of the rhs
// and of the output, which the compiler vectorizes, and each rhs row is reused by the whole
// row block. Each output element sums over k in order, so results do not depend on threads.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "engine/core/check.h"
#include "engine/runtime/cpu/convert.h"
#include "engine/runtime/cpu/cpu_buffer.h"
#include "engine/runtime/cpu/kernels.h"
#include "engine/runtime/cpu/strided.h"

namespace ember::cpu {
namespace {

constexpr int64_t kRowBlock = 4;

// The elements of `x` as a dense array of T (f32 or i64), and where they are.
template <typename T>
struct DenseOperand {
  std::vector<T> storage;  // empty when `data` points into the tensor
  const T* data = nullptr;
};

template <typename T>
DenseOperand<T> Densify(const TensorHandle& x, ThreadPool& pool) {
  constexpr DType kDense = std::is_same_v<T, float> ? DType::kF32 : DType::kI64;
  DenseOperand<T> dense;
  if (x.dtype == kDense && x.IsContiguous()) {
    dense.data = reinterpret_cast<const T*>(ElementData(x));
    return dense;
  }
  dense.storage.resize(x.NumElements());
  const StridedView view = BroadcastView(x, x.shape);
  T* dst = dense.storage.data();
  pool.ParallelFor(x.NumElements(), kParallelGrain, [&](int64_t begin, int64_t end) {
    const T* loaded;
    if constexpr (std::is_same_v<T, float>) {
      loaded = LoadF32(view, begin, end - begin, dst + begin);
    } else {
      loaded = LoadI64(view, begin, end - begin, dst + begin);
    }
    if (loaded != dst + begin) std::copy(loaded, loaded + (end - begin), dst + begin);
  });
  dense.data = dense.storage.data();
  return dense;
}

// Per output batch dim, the step (in matrices) of an operand whose batch dims are
// right-aligned to the output's; 0 where the operand broadcasts.
std::vector<int64_t> BatchSteps(const Shape& operand, const Shape& out_batch) {
  const size_t batch_rank = out_batch.size();
  const size_t own_rank = operand.size() - 2;
  std::vector<int64_t> steps(batch_rank, 0);
  int64_t step = 1;
  for (size_t d = own_rank; d-- > 0;) {
    const size_t od = batch_rank - own_rank + d;
    if (operand[d] != 1) steps[od] = step;
    step *= operand[d];
  }
  return steps;
}

template <typename T>
void MatmulTyped(const TensorHandle& lhs, const TensorHandle& rhs, TensorHandle& out,
                 ThreadPool& pool) {
  const size_t rank = out.shape.size();
  const int64_t m = out.shape[rank - 2];
  const int64_t n = out.shape[rank - 1];
  const int64_t k = lhs.shape.back();
  EMBER_CHECK(rhs.shape[rhs.shape.size() - 2] == k, "matmul: inner dims {} and {}", k,
              rhs.shape[rhs.shape.size() - 2]);
  const Shape batch_shape(out.shape.begin(), out.shape.end() - 2);
  const int64_t batches = NumElements(batch_shape);
  const std::vector<int64_t> lhs_steps = BatchSteps(lhs.shape, batch_shape);
  const std::vector<int64_t> rhs_steps = BatchSteps(rhs.shape, batch_shape);
  const DenseOperand<T> a = Densify<T>(lhs, pool);
  const DenseOperand<T> b = Densify<T>(rhs, pool);
  constexpr DType kDense = std::is_same_v<T, float> ? DType::kF32 : DType::kI64;
  const bool direct = out.dtype == kDense;
  std::byte* dst = ElementData(out);
  const int out_size = DTypeSize(out.dtype);

  const int64_t blocks_per_batch = (m + kRowBlock - 1) / kRowBlock;
  const int64_t work_per_block = std::max<int64_t>(1, kRowBlock * k * n);
  const int64_t grain = std::max<int64_t>(1, kParallelGrain * 8 / work_per_block);
  pool.ParallelFor(batches * blocks_per_batch, grain, [&](int64_t begin, int64_t end) {
    std::vector<T> scratch(direct ? 0 : kRowBlock * n);
    for (int64_t block = begin; block < end; ++block) {
      const int64_t batch = block / blocks_per_batch;
      const int64_t row0 = (block % blocks_per_batch) * kRowBlock;
      const int64_t rows = std::min(kRowBlock, m - row0);
      int64_t a_matrix = 0, b_matrix = 0;
      int64_t rest = batch;
      for (size_t d = batch_shape.size(); d-- > 0;) {
        const int64_t i = rest % batch_shape[d];
        rest /= batch_shape[d];
        a_matrix += i * lhs_steps[d];
        b_matrix += i * rhs_steps[d];
      }
      const T* a_rows = a.data + a_matrix * m * k + row0 * k;
      const T* b_mat = b.data + b_matrix * k * n;
      const int64_t out_offset = (batch * m + row0) * n;
      T* c = direct ? reinterpret_cast<T*>(dst) + out_offset : scratch.data();
      std::fill_n(c, rows * n, T{0});
      for (int64_t p = 0; p < k; ++p) {
        const T* b_row = b_mat + p * n;
        for (int64_t r = 0; r < rows; ++r) {
          const T scale = a_rows[r * k + p];
          T* c_row = c + r * n;
          if constexpr (std::is_same_v<T, float>) {
            for (int64_t j = 0; j < n; ++j) c_row[j] += scale * b_row[j];
          } else {  // wrapping i64 arithmetic
            const uint64_t s = static_cast<uint64_t>(scale);
            for (int64_t j = 0; j < n; ++j) {
              c_row[j] = static_cast<int64_t>(static_cast<uint64_t>(c_row[j]) +
                                              s * static_cast<uint64_t>(b_row[j]));
            }
          }
        }
      }
      if (direct) continue;
      if constexpr (std::is_same_v<T, float>) {
        StoreRunF32(c, rows * n, out.dtype, dst + out_offset * out_size);
      } else {
        StoreRunI64(c, rows * n, out.dtype, dst + out_offset * out_size);
      }
    }
  });
}

}  // namespace

TensorHandle Matmul(const TensorHandle& lhs, const TensorHandle& rhs, const TensorIr& out,
                    ThreadPool& pool) {
  EMBER_CHECK(lhs.shape.size() >= 2 && rhs.shape.size() >= 2 && out.shape.size() >= 2,
              "matmul needs rank >= 2");
  TensorHandle result = NewHandle(out.shape, out.dtype);
  if (IsFloat(lhs.dtype)) {
    MatmulTyped<float>(lhs, rhs, result, pool);
  } else {
    MatmulTyped<int64_t>(lhs, rhs, result, pool);
  }
  return result;
}

}  // namespace ember::cpu
